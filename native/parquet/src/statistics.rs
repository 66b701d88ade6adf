//! Min/max by each type's sort order, on plain-encoded values.
//!
//! The chunk writers keep typed running min/max on the hot path and hand each page's result
//! here encoded; pages are merged into the chunk statistics and the column index by
//! [`SortOrder::compare`].

use std::cmp::Ordering;

/// How plain-encoded values of a column compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortOrder {
    Boolean,
    Int32,
    Int64,
    Float,
    Double,
    /// Unsigned lexicographic (strings, binary, plain FLBA).
    Unsigned,
    /// Big-endian two's complement (decimals in FLBA).
    SignedBytes,
    /// No order: INT96. Only the null count is written.
    Undefined,
}

impl SortOrder {
    #[inline]
    pub fn compare(self, a: &[u8], b: &[u8]) -> Ordering {
        fn arr<const N: usize>(v: &[u8]) -> [u8; N] {
            v.try_into().expect("plain value width")
        }
        match self {
            SortOrder::Boolean => a[0].cmp(&b[0]),
            SortOrder::Int32 => i32::from_le_bytes(arr(a)).cmp(&i32::from_le_bytes(arr(b))),
            SortOrder::Int64 => i64::from_le_bytes(arr(a)).cmp(&i64::from_le_bytes(arr(b))),
            SortOrder::Float => f32::from_le_bytes(arr(a)).total_cmp(&f32::from_le_bytes(arr(b))),
            SortOrder::Double => f64::from_le_bytes(arr(a)).total_cmp(&f64::from_le_bytes(arr(b))),
            SortOrder::Unsigned | SortOrder::Undefined => compare_unsigned(a, b),
            SortOrder::SignedBytes => compare_signed_be(a, b),
        }
    }
}

/// Unsigned lexicographic order, eight bytes at a time as big-endian words: no `memcpy` or
/// `memcmp` calls for the short strings that dominate (this runs for every value of a column
/// that is not dictionary-encoded).
#[inline(always)]
pub fn compare_unsigned(a: &[u8], b: &[u8]) -> Ordering {
    let (mut a, mut b) = (a, b);
    while a.len() >= 8 && b.len() >= 8 {
        let (x, y) = (be_word(a), be_word(b));
        if x != y {
            return x.cmp(&y);
        }
        (a, b) = (&a[8..], &b[8..]);
    }
    // Zero padding orders like the shorter-is-less rule: a difference inside the padded words
    // is the answer; equal words mean one is a prefix of the other (or they are equal).
    match padded_be_word(a).cmp(&padded_be_word(b)) {
        Ordering::Equal => a.len().cmp(&b.len()),
        o => o,
    }
}

#[inline(always)]
fn be_word(v: &[u8]) -> u64 {
    u64::from_be_bytes(v[..8].try_into().expect("8 bytes"))
}

/// The first eight bytes of `v` as a big-endian word, zero-padded when `v` is shorter; short
/// values are read with overlapping loads instead of a byte-count `memcpy`.
#[inline(always)]
pub(crate) fn padded_be_word(v: &[u8]) -> u64 {
    let n = v.len();
    if n >= 8 {
        be_word(v)
    } else if n >= 4 {
        let hi = u32::from_be_bytes(v[..4].try_into().expect("4 bytes")) as u64;
        let lo = u32::from_be_bytes(v[n - 4..].try_into().expect("4 bytes")) as u64;
        (hi << 32) | (lo << (8 * (8 - n)))
    } else if n > 0 {
        // Bytes 0, n/2 and n-1 cover every byte of a 1-3 byte value.
        ((v[0] as u64) << 56)
            | ((v[n / 2] as u64) << (56 - 8 * (n / 2)))
            | ((v[n - 1] as u64) << (64 - 8 * n))
    } else {
        0
    }
}

/// Compares big-endian two's-complement integers of any (possibly different) lengths.
pub fn compare_signed_be(a: &[u8], b: &[u8]) -> Ordering {
    let neg_a = a.first().is_some_and(|x| x & 0x80 != 0);
    let neg_b = b.first().is_some_and(|x| x & 0x80 != 0);
    if neg_a != neg_b {
        return if neg_a {
            Ordering::Less
        } else {
            Ordering::Greater
        };
    }
    // Sign-extend the shorter one.
    let pad = if neg_a { 0xFF } else { 0 };
    let n = a.len().max(b.len());
    let at = |v: &[u8], i: usize| {
        if i < n - v.len() {
            pad
        } else {
            v[i - (n - v.len())]
        }
    };
    for i in 0..n {
        match at(a, i).cmp(&at(b, i)) {
            Ordering::Equal => continue,
            o => return o,
        }
    }
    Ordering::Equal
}

/// One page's statistics, min/max plain-encoded (`None` when the page has no orderable value).
#[derive(Clone, Debug, Default)]
pub struct PageStats {
    pub null_count: u64,
    pub min_max: Option<(Vec<u8>, Vec<u8>)>,
    /// The page holds a value with no place in the order (a float NaN): as parquet-java 1.17,
    /// no column index for the chunk and no chunk min/max, so no reader prunes a NaN away
    /// (Spark orders NaN above every number; a min/max without it would skip rows `x > 1`
    /// must return).
    pub unordered_values: bool,
}

/// Chunk statistics merged from pages.
#[derive(Clone, Debug, Default)]
pub struct ChunkStats {
    pub null_count: u64,
    pub min_max: Option<(Vec<u8>, Vec<u8>)>,
    /// A page had unordered values: min/max stay absent for the whole chunk.
    pub unordered: bool,
}

impl ChunkStats {
    pub fn merge(&mut self, order: SortOrder, page: &PageStats) {
        self.null_count += page.null_count;
        if page.unordered_values {
            self.unordered = true;
            self.min_max = None;
        }
        if self.unordered {
            return;
        }
        if let Some((pmin, pmax)) = &page.min_max {
            match &mut self.min_max {
                None => self.min_max = Some((pmin.clone(), pmax.clone())),
                Some((min, max)) => {
                    if order.compare(pmin, min) == Ordering::Less {
                        *min = pmin.clone();
                    }
                    if order.compare(pmax, max) == Ordering::Greater {
                        *max = pmax.clone();
                    }
                }
            }
        }
    }
}

/// Running min/max of a fixed-width numeric page.
#[derive(Clone, Copy)]
pub struct NumMinMax<T> {
    pub min: T,
    pub max: T,
    pub any: bool,
}

impl<T: Copy + PartialOrd> NumMinMax<T> {
    pub fn new(init: T) -> Self {
        NumMinMax {
            min: init,
            max: init,
            any: false,
        }
    }

    #[inline]
    pub fn update(&mut self, v: T) {
        if !self.any {
            self.min = v;
            self.max = v;
            self.any = true;
        } else {
            if v < self.min {
                self.min = v;
            }
            if v > self.max {
                self.max = v;
            }
        }
    }
}

/// Running min/max of a byte-string page under `order`.
#[derive(Default)]
pub struct BytesMinMax {
    pub min: Vec<u8>,
    pub max: Vec<u8>,
    pub any: bool,
}

impl BytesMinMax {
    #[inline]
    pub fn update(&mut self, order: SortOrder, v: &[u8]) {
        // Strings and binary are the common case: compare them without the dispatch.
        if order == SortOrder::Unsigned {
            self.update_with(v, compare_unsigned)
        } else {
            self.update_with(v, |a, b| order.compare(a, b))
        }
    }

    #[inline(always)]
    fn update_with(&mut self, v: &[u8], cmp: impl Fn(&[u8], &[u8]) -> Ordering) {
        if !self.any {
            self.min.clear();
            self.min.extend_from_slice(v);
            self.max.clear();
            self.max.extend_from_slice(v);
            self.any = true;
            return;
        }
        if cmp(v, &self.min) == Ordering::Less {
            self.min.clear();
            self.min.extend_from_slice(v);
        } else if cmp(v, &self.max) == Ordering::Greater {
            self.max.clear();
            self.max.extend_from_slice(v);
        }
    }

    pub fn take(&mut self) -> Option<(Vec<u8>, Vec<u8>)> {
        if !self.any {
            return None;
        }
        self.any = false;
        Some((std::mem::take(&mut self.min), std::mem::take(&mut self.max)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsigned_bytes_by_words() {
        let mut vals: Vec<Vec<u8>> = [
            &b""[..],
            b"\0",
            b"a",
            b"a\0",
            b"a\0b",
            b"ab",
            b"abcdefgh",
            b"abcdefgh\0",
            b"abcdefghabcdefgh",
            b"abcdefghabcdefgi",
            b"\xff",
        ]
        .iter()
        .map(|v| v.to_vec())
        .collect();
        // Every length from 0 to 20 around a shared prefix, differing at each position.
        let base: Vec<u8> = (1..=20).collect();
        for n in 0..=20 {
            vals.push(base[..n].to_vec());
            for i in 0..n {
                let mut v = base[..n].to_vec();
                v[i] = 0;
                vals.push(v.clone());
                v[i] = 0xff;
                vals.push(v);
            }
        }
        for a in &vals {
            for b in &vals {
                assert_eq!(compare_unsigned(a, b), a.cmp(b), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn unsigned_bytes_differing_at_several_places() {
        // Values of 0 to 12 bytes over a small alphabet, so that pairs differ at several
        // positions at once and the word of a 4 to 7 byte value must keep all its bytes.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let vals: Vec<Vec<u8>> = (0..400)
            .map(|_| {
                let n = (next() % 13) as usize;
                (0..n)
                    .map(|_| [0u8, 1, 2, 0x80, 0xff][(next() % 5) as usize])
                    .collect()
            })
            .collect();
        for a in &vals {
            for b in &vals {
                assert_eq!(compare_unsigned(a, b), a.cmp(b), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn signed_decimal_bytes() {
        let v = |x: i128, n: usize| x.to_be_bytes()[16 - n..].to_vec();
        let vals = [-300i128, -1, 0, 1, 127, 128, 70000];
        for &a in &vals {
            for &b in &vals {
                assert_eq!(compare_signed_be(&v(a, 4), &v(b, 4)), a.cmp(&b), "{a} {b}");
                assert_eq!(compare_signed_be(&v(a, 3), &v(b, 5)), a.cmp(&b), "{a} {b}");
            }
        }
    }
}
