//! Column index (per-page min/max, null pages, null counts, boundary order) and offset index
//! (page locations), as parquet-java's `ColumnIndexBuilder` / `OffsetIndexBuilder` build them.

use crate::statistics::{PageStats, SortOrder};
use std::cmp::Ordering;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundaryOrder {
    Unordered,
    Ascending,
    Descending,
}

impl BoundaryOrder {
    pub fn thrift_id(self) -> i32 {
        match self {
            BoundaryOrder::Unordered => 0,
            BoundaryOrder::Ascending => 1,
            BoundaryOrder::Descending => 2,
        }
    }
}

#[derive(Clone, Debug)]
pub struct ColumnIndex {
    pub null_pages: Vec<bool>,
    pub min_values: Vec<Vec<u8>>,
    pub max_values: Vec<Vec<u8>>,
    pub boundary_order: BoundaryOrder,
    pub null_counts: Vec<i64>,
}

#[derive(Clone, Copy, Debug)]
pub struct PageLocation {
    pub offset: i64,
    pub compressed_page_size: i32,
    pub first_row_index: i64,
}

/// How binary min/max values are cut to the truncate length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Truncation {
    None,
    /// parquet-java's UTF-8 truncator (strings, and binary without a logical type): whole
    /// characters when the value is valid UTF-8, bytes otherwise.
    Utf8,
}

pub struct ColumnIndexBuilder {
    order: SortOrder,
    truncation: Truncation,
    truncate_len: usize,
    index: ColumnIndex,
    /// A page held values with no order (NaN): the column index is not written.
    invalid: bool,
    min_max_size: usize,
}

impl ColumnIndexBuilder {
    pub fn new(order: SortOrder, truncation: Truncation, truncate_len: usize) -> Self {
        ColumnIndexBuilder {
            order,
            truncation,
            truncate_len,
            index: ColumnIndex {
                null_pages: Vec::new(),
                min_values: Vec::new(),
                max_values: Vec::new(),
                boundary_order: BoundaryOrder::Unordered,
                null_counts: Vec::new(),
            },
            invalid: order == SortOrder::Undefined,
            min_max_size: 0,
        }
    }

    pub fn add_page(&mut self, page: &PageStats) {
        self.index.null_counts.push(page.null_count as i64);
        if page.unordered_values {
            self.invalid = true;
        }
        match &page.min_max {
            Some((min, max)) => {
                let min = truncate_min(self.truncation, min, self.truncate_len);
                let max = truncate_max(self.truncation, max, self.truncate_len);
                self.min_max_size += min.len() + max.len();
                self.index.null_pages.push(false);
                self.index.min_values.push(min);
                self.index.max_values.push(max);
            }
            None => {
                self.index.null_pages.push(true);
                self.index.min_values.push(Vec::new());
                self.index.max_values.push(Vec::new());
            }
        }
    }

    /// The finished index, or `None` where parquet-java writes none.
    pub fn build(self) -> Option<ColumnIndex> {
        let pages = self.index.null_pages.len();
        if self.invalid || pages == 0 || self.min_max_size > pages * 4096 {
            return None;
        }
        let mut index = self.index;
        index.boundary_order = boundary_order(self.order, &index);
        Some(index)
    }
}

fn boundary_order(order: SortOrder, idx: &ColumnIndex) -> BoundaryOrder {
    let pages: Vec<usize> = (0..idx.null_pages.len())
        .filter(|&i| !idx.null_pages[i])
        .collect();
    let mut asc = true;
    let mut desc = true;
    for w in pages.windows(2) {
        let (a, b) = (w[0], w[1]);
        let min_cmp = order.compare(&idx.min_values[a], &idx.min_values[b]);
        let max_cmp = order.compare(&idx.max_values[a], &idx.max_values[b]);
        if min_cmp == Ordering::Greater || max_cmp == Ordering::Greater {
            asc = false;
        }
        if min_cmp == Ordering::Less || max_cmp == Ordering::Less {
            desc = false;
        }
    }
    if asc {
        BoundaryOrder::Ascending
    } else if desc {
        BoundaryOrder::Descending
    } else {
        BoundaryOrder::Unordered
    }
}

fn utf8_prefix(v: &[u8], len: usize) -> Option<usize> {
    let s = std::str::from_utf8(v).ok()?;
    let mut end = len.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    Some(end)
}

/// A lower bound of `v` no longer than `len` bytes.
pub fn truncate_min(t: Truncation, v: &[u8], len: usize) -> Vec<u8> {
    if t == Truncation::None || v.len() <= len {
        return v.to_vec();
    }
    let end = match t {
        Truncation::Utf8 => utf8_prefix(v, len).unwrap_or(len),
        _ => len,
    };
    v[..end].to_vec()
}

/// An upper bound of `v` no longer than `len` bytes, or `v` itself when there is none.
pub fn truncate_max(t: Truncation, v: &[u8], len: usize) -> Vec<u8> {
    if t == Truncation::None || v.len() <= len {
        return v.to_vec();
    }
    if t == Truncation::Utf8 {
        if let Some(end) = utf8_prefix(v, len) {
            let s = std::str::from_utf8(&v[..end]).expect("checked prefix");
            let mut chars: Vec<char> = s.chars().collect();
            while let Some(c) = chars.pop() {
                let mut next = c as u32 + 1;
                if (0xD800..=0xDFFF).contains(&next) {
                    next = 0xE000;
                }
                if let Some(n) = char::from_u32(next) {
                    chars.push(n);
                    let out: String = chars.iter().collect();
                    if out.len() <= len {
                        return out.into_bytes();
                    }
                    chars.pop();
                }
            }
            return v.to_vec();
        }
    }
    let mut out = v[..len].to_vec();
    while let Some(last) = out.pop() {
        if last != 0xFF {
            out.push(last + 1);
            return out;
        }
    }
    v.to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(min_max: Option<(&[u8], &[u8])>) -> PageStats {
        PageStats {
            null_count: min_max.is_none() as u64,
            min_max: min_max.map(|(a, b)| (a.to_vec(), b.to_vec())),
            unordered_values: false,
        }
    }

    fn index_of(pages: &[Option<(&[u8], &[u8])>]) -> Option<ColumnIndex> {
        let mut b = ColumnIndexBuilder::new(SortOrder::Unsigned, Truncation::None, 64);
        pages.iter().for_each(|p| b.add_page(&page(*p)));
        b.build()
    }

    #[test]
    fn boundary_order_ids_are_parquet_formats() {
        assert_eq!(BoundaryOrder::Unordered.thrift_id(), 0);
        assert_eq!(BoundaryOrder::Ascending.thrift_id(), 1);
        assert_eq!(BoundaryOrder::Descending.thrift_id(), 2);
    }

    #[test]
    fn boundary_order_as_parquet_java() {
        let p = |a: &'static str, b: &'static str| Some((a.as_bytes(), b.as_bytes()));
        let order = |pages: &[Option<(&[u8], &[u8])>]| index_of(pages).unwrap().boundary_order;
        // Null pages take no part; equal pages are ascending.
        assert_eq!(
            order(&[p("a", "c"), None, p("b", "d")]),
            BoundaryOrder::Ascending
        );
        assert_eq!(
            order(&[p("a", "b"), p("a", "b"), p("a", "b")]),
            BoundaryOrder::Ascending
        );
        assert_eq!(
            order(&[p("c", "d"), p("b", "c"), p("a", "b")]),
            BoundaryOrder::Descending
        );
        // Minimums one way and maximums the other: neither.
        assert_eq!(order(&[p("a", "d"), p("b", "c")]), BoundaryOrder::Unordered);
        assert_eq!(order(&[p("b", "c"), p("a", "d")]), BoundaryOrder::Unordered);
    }

    #[test]
    fn no_index_over_4096_bytes_of_min_max_a_page_or_with_unordered_values() {
        // parquet-java's ParquetFileWriter: none when getMinMaxSize() > pages * MAX_STATS_SIZE,
        // null pages counted.
        let v = vec![b'x'; 2048];
        let w = vec![b'y'; 2049];
        assert!(
            index_of(&[Some((&v, &v)), Some((&v, &v))]).is_some(),
            "8,192 bytes, 2 pages"
        );
        assert!(
            index_of(&[Some((&v, &w)), Some((&v, &v))]).is_none(),
            "8,193 bytes, 2 pages"
        );
        assert!(
            index_of(&[Some((&v, &w)), Some((&v, &v)), None]).is_some(),
            "a null page"
        );
        let mut b = ColumnIndexBuilder::new(SortOrder::Double, Truncation::None, 64);
        let mut nan = page(Some((b"a".as_slice(), b"b".as_slice())));
        nan.unordered_values = true;
        b.add_page(&page(Some((b"a".as_slice(), b"b".as_slice()))));
        b.add_page(&nan);
        assert!(b.build().is_none(), "a page holding NaN");
        assert!(index_of(&[]).is_none(), "no page");
    }

    #[test]
    fn truncation_cuts_utf8_between_characters_and_other_bytes_anywhere() {
        let s = "é".repeat(40); // 80 bytes, a character every 2
        let min = truncate_min(Truncation::Utf8, s.as_bytes(), 63);
        assert_eq!(min, "é".repeat(31).as_bytes());
        let max = truncate_max(Truncation::Utf8, s.as_bytes(), 63);
        assert_eq!(max, ("é".repeat(30) + "ê").as_bytes());
        // Not UTF-8 (a byte 0xFF at the end): cut at any byte.
        let mut invalid = s.as_bytes().to_vec();
        invalid.push(0xFF);
        assert_eq!(
            truncate_min(Truncation::Utf8, &invalid, 63),
            &s.as_bytes()[..63]
        );
        let mut bytes_max = s.as_bytes()[..63].to_vec();
        bytes_max[62] += 1;
        assert_eq!(truncate_max(Truncation::Utf8, &invalid, 63), bytes_max);
        assert_eq!(
            truncate_min(Truncation::None, s.as_bytes(), 63),
            s.as_bytes()
        );
    }

    #[test]
    fn truncation_bounds() {
        let long = "a".repeat(100);
        assert_eq!(
            truncate_min(Truncation::Utf8, long.as_bytes(), 64),
            "a".repeat(64).as_bytes()
        );
        let mut max = "a".repeat(63);
        max.push('b');
        assert_eq!(
            truncate_max(Truncation::Utf8, long.as_bytes(), 64),
            max.as_bytes()
        );
        // Multi-byte: never cut inside a character.
        let s = "é".repeat(40); // 80 bytes
        let m = truncate_min(Truncation::Utf8, s.as_bytes(), 64);
        assert!(std::str::from_utf8(&m).is_ok());
        assert_eq!(m.len(), 64);
        let x = truncate_max(Truncation::Utf8, s.as_bytes(), 64);
        assert!(std::str::from_utf8(&x).is_ok() && x.len() <= 64 && x.as_slice() > s.as_bytes());
        // Bytes all 0xFF: no shorter upper bound exists.
        let ff = vec![0xFFu8; 70];
        assert_eq!(truncate_max(Truncation::Utf8, &ff, 64), ff);
        let mut b = vec![1u8; 70];
        b[63] = 0xFF;
        let t = truncate_max(Truncation::Utf8, &b, 64);
        assert_eq!(t.len(), 63);
        assert_eq!(t[62], 2);
    }
}
