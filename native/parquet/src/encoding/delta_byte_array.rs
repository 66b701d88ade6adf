//! DELTA_BYTE_ARRAY (incremental / front coding): prefix lengths shared with the previous value
//! as DELTA_BINARY_PACKED, then the suffixes as DELTA_LENGTH_BYTE_ARRAY (their lengths as
//! DELTA_BINARY_PACKED, then the bytes), as parquet-java's `DeltaByteArrayWriter`.

use super::delta_binary_packed::DeltaBinaryPackedEncoder;

pub struct DeltaByteArrayEncoder {
    prefix_lengths: DeltaBinaryPackedEncoder,
    suffix_lengths: DeltaBinaryPackedEncoder,
    suffixes: Vec<u8>,
    previous: Vec<u8>,
}

impl Default for DeltaByteArrayEncoder {
    fn default() -> Self {
        Self::new()
    }
}

impl DeltaByteArrayEncoder {
    pub fn new() -> Self {
        DeltaByteArrayEncoder {
            prefix_lengths: DeltaBinaryPackedEncoder::new_i32(),
            suffix_lengths: DeltaBinaryPackedEncoder::new_i32(),
            suffixes: Vec::new(),
            previous: Vec::new(),
        }
    }

    /// parquet-java's `getBufferedSize`: both length streams and the suffix bytes.
    pub fn encoded_len(&self) -> usize {
        self.prefix_lengths.encoded_len() + self.suffix_lengths.encoded_len() + self.suffixes.len()
    }

    #[inline]
    pub fn put(&mut self, v: &[u8]) {
        let max = v.len().min(self.previous.len());
        let prefix = v[..max]
            .iter()
            .zip(&self.previous[..max])
            .take_while(|(a, b)| a == b)
            .count();
        self.prefix_lengths.put(prefix as i64);
        self.suffix_lengths.put((v.len() - prefix) as i64);
        self.suffixes.extend_from_slice(&v[prefix..]);
        self.previous.clear();
        self.previous.extend_from_slice(v);
    }

    pub fn finish_into(&mut self, out: &mut Vec<u8>) {
        self.prefix_lengths.finish_into(out);
        self.suffix_lengths.finish_into(out);
        out.extend_from_slice(&self.suffixes);
        self.suffixes.clear();
        self.previous.clear();
    }
}
