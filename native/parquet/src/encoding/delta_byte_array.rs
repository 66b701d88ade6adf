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
        let previous = std::mem::take(&mut self.previous);
        self.put_after(v, &previous);
        self.previous = previous;
        self.set_previous(v);
    }

    /// Appends values that outlive the call, each coded against the one before it in place;
    /// only the last is copied (for the next call).
    pub fn put_all<'a>(&mut self, values: impl Iterator<Item = &'a [u8]>) {
        let mut previous: Option<&[u8]> = None;
        for v in values {
            match previous {
                Some(p) => self.put_after(v, p),
                None => self.put(v),
            }
            previous = Some(v);
        }
        if let Some(p) = previous {
            self.set_previous(p);
        }
    }

    /// Appends `v` whose predecessor is `previous` (a slice of the caller's input), without
    /// copying `v`: for runs of values call [`Self::set_previous`] with the last one.
    #[inline]
    pub fn put_after(&mut self, v: &[u8], previous: &[u8]) {
        let prefix = common_prefix(v, previous);
        self.prefix_lengths.put(prefix as i64);
        self.suffix_lengths.put((v.len() - prefix) as i64);
        self.suffixes.extend_from_slice(&v[prefix..]);
    }

    /// The value the next [`Self::put`] is prefix-coded against.
    pub fn set_previous(&mut self, v: &[u8]) {
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

/// Length of the common prefix, eight bytes at a time.
#[inline]
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let max = a.len().min(b.len());
    let mut i = 0;
    while i + 8 <= max {
        let x = u64::from_le_bytes(a[i..i + 8].try_into().expect("8 bytes"));
        let y = u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        if x != y {
            return i + ((x ^ y).trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < max && a[i] == b[i] {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::common_prefix;

    #[test]
    fn common_prefix_lengths() {
        let a = b"abcdefghijklmnopq";
        for n in 0..=a.len() {
            let mut b = a[..n].to_vec();
            b.extend_from_slice(b"XYZ");
            assert_eq!(common_prefix(a, &b), n);
            assert_eq!(common_prefix(&b, a), n);
        }
        assert_eq!(common_prefix(b"", b"abc"), 0);
    }
}
