//! PLAIN encoding helpers.

/// Appends a BYTE_ARRAY value: 4-byte little-endian length, then the bytes.
#[inline]
pub fn put_byte_array(out: &mut Vec<u8>, v: &[u8]) {
    out.extend_from_slice(&(v.len() as u32).to_le_bytes());
    out.extend_from_slice(v);
}

/// Bit-packed booleans, least significant bit first.
#[derive(Default)]
pub struct PlainBooleanEncoder {
    out: Vec<u8>,
    current: u8,
    bits: u32,
}

impl PlainBooleanEncoder {
    /// Bytes with the open byte counted (parquet-java's padded `getBufferSize`).
    pub fn encoded_len(&self) -> usize {
        self.out.len() + (self.bits > 0) as usize
    }

    #[inline]
    pub fn put(&mut self, v: bool) {
        self.current |= (v as u8) << self.bits;
        self.bits += 1;
        if self.bits == 8 {
            self.out.push(self.current);
            self.current = 0;
            self.bits = 0;
        }
    }

    pub fn finish_into(&mut self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.out);
        if self.bits > 0 {
            out.push(self.current);
        }
        self.out.clear();
        self.current = 0;
        self.bits = 0;
    }
}
