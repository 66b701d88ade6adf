//! UnsafeRow bytes for the unit tests, laid out as Spark's `UnsafeRowWriter` writes them.
/// Builds UnsafeRow bytes as Spark's UnsafeRowWriter lays them out.
pub(crate) struct RowBuilder {
    bitset: usize,
    pub buf: Vec<u8>,
}

impl RowBuilder {
    pub(crate) fn new(n: usize) -> Self {
        let bitset = n.div_ceil(64) * 8;
        RowBuilder {
            bitset,
            buf: vec![0; bitset + 8 * n],
        }
    }
    pub(crate) fn null(mut self, i: usize) -> Self {
        self.buf[i / 8] |= 1 << (i % 8);
        self
    }
    pub(crate) fn fixed(mut self, i: usize, v: u64) -> Self {
        let at = self.bitset + 8 * i;
        self.buf[at..at + 8].copy_from_slice(&v.to_le_bytes());
        self
    }
    pub(crate) fn var(mut self, i: usize, bytes: &[u8]) -> Self {
        let offset = self.buf.len() as u64;
        self.buf.extend_from_slice(bytes);
        while !self.buf.len().is_multiple_of(8) {
            self.buf.push(0);
        }
        self.fixed(i, offset << 32 | bytes.len() as u64)
    }
}

pub(crate) fn batch(rows: &[Vec<u8>]) -> (Vec<u8>, Vec<i32>) {
    let mut data = Vec::new();
    let mut offsets = vec![0];
    for r in rows {
        data.extend_from_slice(r);
        offsets.push(data.len() as i32);
    }
    (data, offsets)
}
