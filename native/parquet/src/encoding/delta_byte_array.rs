//! DELTA_BYTE_ARRAY (incremental / front coding): prefix lengths shared with the previous value
//! as DELTA_BINARY_PACKED, then the suffixes as DELTA_LENGTH_BYTE_ARRAY (their lengths as
//! DELTA_BINARY_PACKED, then the bytes), as parquet-java's `DeltaByteArrayWriter`.

use super::append_prefix;
use super::delta_binary_packed::DeltaBinaryPackedEncoder;
use std::ops::Range;

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
        self.put_run(v, std::iter::once(0..v.len()));
    }

    /// Appends the values `data[r]` for each range `r`, each coded against the one before it in
    /// place; only the last is copied (for the next call). Suffixes are copied with reads past
    /// their end inside `data`, so that short ones move in one fixed-size copy.
    pub fn put_run(&mut self, data: &[u8], ranges: impl Iterator<Item = Range<usize>>) {
        let mut previous: Option<Range<usize>> = None;
        for r in ranges {
            let v = &data[r.clone()];
            let before = match &previous {
                Some(p) => &data[p.clone()],
                None => &self.previous[..],
            };
            let prefix = common_prefix(v, before);
            self.prefix_lengths.put(prefix as i64);
            self.suffix_lengths.put((v.len() - prefix) as i64);
            append_from(&mut self.suffixes, data, r.start + prefix, r.end);
            previous = Some(r);
        }
        if let Some(p) = previous {
            self.set_previous(&data[p]);
        }
    }

    /// The value the next [`Self::put`] is prefix-coded against.
    fn set_previous(&mut self, v: &[u8]) {
        self.previous.clear();
        self.previous.extend_from_slice(v);
    }

    /// Starts a new column chunk (see [`DeltaBinaryPackedEncoder::reset_chunk`]).
    pub fn reset_chunk(&mut self) {
        self.prefix_lengths.reset_chunk();
        self.suffix_lengths.reset_chunk();
    }

    pub fn finish_into(&mut self, out: &mut Vec<u8>) {
        let suffixes = self.finish_lengths_into(out);
        out.extend_from_slice(suffixes);
        self.clear();
    }

    /// Appends the page's two length streams to `out` and returns its suffix bytes (the rest
    /// of the page), so that a caller can write them without copying them into `out` first;
    /// call [`Self::clear`] after.
    pub fn finish_lengths_into(&mut self, out: &mut Vec<u8>) -> &[u8] {
        self.prefix_lengths.finish_into(out);
        self.suffix_lengths.finish_into(out);
        &self.suffixes
    }

    /// Starts the next page.
    pub fn clear(&mut self) {
        self.suffixes.clear();
        self.previous.clear();
    }
}

/// Appends `data[start..end]` to `out`. Up to 32 bytes go as one 32-byte copy (when `data` has
/// them) cut back to length: cheaper than a `memcpy` call of a variable count.
#[inline(always)]
fn append_from(out: &mut Vec<u8>, data: &[u8], start: usize, end: usize) {
    const WINDOW: usize = 32;
    if end - start <= WINDOW && data.len() - start >= WINDOW {
        let window: &[u8; WINDOW] = data[start..start + WINDOW].try_into().expect("window");
        append_prefix(out, window, end - start);
    } else {
        out.extend_from_slice(&data[start..end]);
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
    use super::*;

    #[test]
    fn put_run_matches_put() {
        // Values of every length up to 80 in one buffer, some sharing prefixes, some at its end
        // (no window past them): the run and value-by-value encodings must be equal, and equal
        // to the format's layout built here byte by byte.
        let mut data = Vec::new();
        let mut ranges = Vec::new();
        for i in 0..400usize {
            let start = data.len();
            let len = (i * 7) % 81;
            data.extend((0..len).map(|j| if j < i % 9 { b'p' } else { (i * 31 + j) as u8 }));
            ranges.push(start..data.len());
        }
        let mut values: Vec<&[u8]> = vec![b"seed"];
        values.extend(ranges.iter().map(|r| &data[r.clone()]));
        let (mut prefixes, mut lengths) = (
            DeltaBinaryPackedEncoder::new_i32(),
            DeltaBinaryPackedEncoder::new_i32(),
        );
        let mut suffixes = Vec::new();
        let mut before: &[u8] = b"";
        for v in &values {
            let p = v.iter().zip(before).take_while(|(x, y)| x == y).count();
            prefixes.put(p as i64);
            lengths.put((v.len() - p) as i64);
            suffixes.extend_from_slice(&v[p..]);
            before = v;
        }
        let mut want = Vec::new();
        prefixes.finish_into(&mut want);
        lengths.finish_into(&mut want);
        want.extend_from_slice(&suffixes);
        for split in [0, 1, 200, 399, 400] {
            let mut run = DeltaByteArrayEncoder::new();
            run.put(b"seed");
            run.put_run(&data, ranges[..split].iter().cloned());
            run.put_run(&data, ranges[split..].iter().cloned());
            let mut one = DeltaByteArrayEncoder::new();
            one.put(b"seed");
            for r in &ranges {
                one.put(&data[r.clone()]);
            }
            let (mut a, mut b) = (Vec::new(), Vec::new());
            run.finish_into(&mut a);
            one.finish_into(&mut b);
            assert_eq!(a, b, "split at {split}");
            assert_eq!(a, want, "split at {split}");
        }
    }

    /// parquet-java 1.17.0's DeltaByteArrayWriter.getBufferedSize after that many of these
    /// strings: suffixes shorter than 32 bytes behind prefixes that make them longer.
    #[test]
    fn buffered_size_of_parquet_java() {
        let mut e = DeltaByteArrayEncoder::new();
        let mut put = 0;
        for (n, size) in [(100, 621), (129, 935), (130, 943), (200, 1433), (300, 2209)] {
            for i in put..n {
                let mut s = format!("abcdefghijklmnopqrs{}", (b'a' + (i % 26) as u8) as char);
                if i % 7 != 0 {
                    s += &format!("tail{i}");
                }
                e.put(s.as_bytes());
            }
            put = n;
            assert_eq!(e.encoded_len(), size, "{n} values");
        }
    }

    /// A new column chunk encodes as a new encoder (parquet-java makes a new writer per chunk),
    /// whatever widths the last chunk's length streams left.
    #[test]
    fn reset_chunk_forgets_the_last_chunk() {
        let long: Vec<Vec<u8>> = (0..300u32)
            .map(|i| vec![b'x'; (i * 7919 % 3000) as usize])
            .collect();
        let short: Vec<&[u8]> = vec![b"a", b"ab", b"b"];
        let mut e = DeltaByteArrayEncoder::new();
        long.iter().for_each(|v| e.put(v));
        e.finish_into(&mut Vec::new());
        e.reset_chunk();
        short.iter().for_each(|v| e.put(v));
        let mut fresh = DeltaByteArrayEncoder::new();
        short.iter().for_each(|v| fresh.put(v));
        let (mut a, mut b) = (Vec::new(), Vec::new());
        e.finish_into(&mut a);
        fresh.finish_into(&mut b);
        assert_eq!(a, b);
    }

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
