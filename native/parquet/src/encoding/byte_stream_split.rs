//! BYTE_STREAM_SPLIT: byte `k` of every value goes to stream `k`; the streams are concatenated.

pub struct ByteStreamSplitEncoder {
    width: usize,
    /// Values in plain layout until the page ends, then scattered once.
    plain: Vec<u8>,
}

impl ByteStreamSplitEncoder {
    pub fn new(width: usize) -> Self {
        ByteStreamSplitEncoder {
            width,
            plain: Vec::new(),
        }
    }

    pub fn encoded_len(&self) -> usize {
        self.plain.len()
    }

    #[inline]
    pub fn put(&mut self, v: &[u8]) {
        debug_assert_eq!(v.len(), self.width);
        self.plain.extend_from_slice(v);
    }

    pub fn finish_into(&mut self, out: &mut Vec<u8>) {
        let n = self.plain.len() / self.width;
        let start = out.len();
        out.resize(start + self.plain.len(), 0);
        let dst = &mut out[start..];
        for (i, value) in self.plain.chunks_exact(self.width).enumerate() {
            for (k, b) in value.iter().enumerate() {
                dst[k * n + i] = *b;
            }
        }
        self.plain.clear();
    }
}
