//! Borrowed column buffers in Arrow's memory layout: what a caller (the JVM through JNI, a
//! test, the CLI) hands to [`crate::FileWriter::write_batch`].
//!
//! For a batch of `n` rows, each column is:
//!
//! * `validity`: `None` when no value is null, else a bitmap of at least `ceil(n / 8)` bytes,
//!   bit `i` (byte `i / 8`, bit `i % 8`, least significant first) set when row `i` holds a value.
//!   A required (non-nullable) column must not have a null.
//! * `data`, by physical type:
//!   * BOOLEAN: a bitmap of at least `ceil(n / 8)` bytes, same bit order as validity.
//!   * INT32 / INT64 / FLOAT / DOUBLE: `n` values (native little-endian), one per row; the slot
//!     of a null row is present and ignored. INT8/INT16/DATE/DECIMAL(p<=9) are INT32 values;
//!     timestamps and DECIMAL(p<=18) are INT64 values.
//!   * BYTE_ARRAY: `n + 1` offsets (`i32`, non-decreasing, the first at least 0) into `data`;
//!     row `i` is `data[offsets[i]..offsets[i + 1]]`. A null row's range is ignored but must
//!     still be in order.
//!   * FIXED_LEN_BYTE_ARRAY of width `w` and INT96 (`w` = 12): `n * w` bytes, row `i` at
//!     `data[i * w..(i + 1) * w]`. Decimals are big-endian two's complement, as Parquet stores
//!     them; INT96 is Parquet's little-endian nanos-of-day + Julian day.
//!
//! Buffers are only read during the call; the writer copies what it keeps.

use crate::error::{Error, Result};
use crate::schema::{Field, PhysicalType};

#[derive(Clone, Copy, Debug)]
pub enum ColumnData<'a> {
    Boolean(&'a [u8]),
    Int32(&'a [i32]),
    Int64(&'a [i64]),
    Float(&'a [f32]),
    Double(&'a [f64]),
    Binary { offsets: &'a [i32], data: &'a [u8] },
    FixedBinary { width: usize, data: &'a [u8] },
}

impl ColumnData<'_> {
    fn kind(&self) -> &'static str {
        match self {
            ColumnData::Boolean(_) => "boolean bitmap",
            ColumnData::Int32(_) => "int32 values",
            ColumnData::Int64(_) => "int64 values",
            ColumnData::Float(_) => "float values",
            ColumnData::Double(_) => "double values",
            ColumnData::Binary { .. } => "binary offsets and data",
            ColumnData::FixedBinary { .. } => "fixed-width bytes",
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct ColumnView<'a> {
    pub validity: Option<&'a [u8]>,
    pub data: ColumnData<'a>,
}

impl<'a> ColumnView<'a> {
    pub fn new(data: ColumnData<'a>) -> Self {
        ColumnView {
            validity: None,
            data,
        }
    }

    pub fn with_validity(mut self, validity: Option<&'a [u8]>) -> Self {
        self.validity = validity;
        self
    }
}

/// Owned buffers of one column in the same layout, for callers that build batches themselves
/// (the CLI, tests); [`OwnedColumn::view`] lends them to a [`Batch`].
#[derive(Clone, Debug)]
pub enum OwnedData {
    Bool(Vec<u8>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    /// Offsets and data.
    Bin(Vec<i32>, Vec<u8>),
    /// Width and data.
    Fixed(usize, Vec<u8>),
}

#[derive(Clone, Debug)]
pub struct OwnedColumn {
    pub validity: Option<Vec<u8>>,
    pub data: OwnedData,
}

impl OwnedColumn {
    pub fn view(&self) -> ColumnView<'_> {
        let data = match &self.data {
            OwnedData::Bool(b) => ColumnData::Boolean(b),
            OwnedData::I32(v) => ColumnData::Int32(v),
            OwnedData::I64(v) => ColumnData::Int64(v),
            OwnedData::F32(v) => ColumnData::Float(v),
            OwnedData::F64(v) => ColumnData::Double(v),
            OwnedData::Bin(o, d) => ColumnData::Binary {
                offsets: o,
                data: d,
            },
            OwnedData::Fixed(w, d) => ColumnData::FixedBinary { width: *w, data: d },
        };
        ColumnView {
            validity: self.validity.as_deref(),
            data,
        }
    }

    /// Whether row `i` holds a value.
    pub fn is_valid(&self, i: usize) -> bool {
        self.validity.as_deref().is_none_or(|v| bit(v, i))
    }
}

/// `n` rows of every column of the schema, in schema order.
#[derive(Clone, Debug)]
pub struct Batch<'a> {
    pub num_rows: usize,
    pub columns: Vec<ColumnView<'a>>,
}

/// Longest BYTE_ARRAY value: with its 4-byte PLAIN length prefix it must fit an i32 page size.
const MAX_VALUE_LEN: i32 = i32::MAX - 4;

#[inline]
pub(crate) fn bit(bitmap: &[u8], i: usize) -> bool {
    bitmap[i >> 3] & (1 << (i & 7)) != 0
}

/// Up to `N` (8 or 16) bytes of `bytes` from `at` as a little-endian integer, zero past the end.
/// One unaligned load away from the end of the buffer; a byte-count copy only in its last
/// bytes (a variable-length copy is a `memcpy` call).
#[inline(always)]
fn load_le<const N: usize>(bytes: &[u8], at: usize) -> u128 {
    let mut word = [0u8; 16];
    if bytes.len() - at >= N {
        word[..N].copy_from_slice(&bytes[at..at + N]);
    } else {
        let avail = bytes.len() - at;
        word[..avail].copy_from_slice(&bytes[at..]);
    }
    u128::from_le_bytes(word)
}

/// The value of bit `i` and how many bits from `i` (at most 56, never past `end`) share it.
#[inline]
pub(crate) fn bit_run(bitmap: &[u8], i: usize, end: usize) -> (bool, usize) {
    let w = load_le::<8>(bitmap, i >> 3) as u64 >> (i & 7);
    let set = w & 1 == 1;
    let run = if set {
        w.trailing_ones()
    } else {
        w.trailing_zeros()
    } as usize;
    (set, run.min(56).min(end - i))
}

/// Validity bits `start..start + len` (len <= 64) as one word, bit 0 = row `start`.
#[inline]
pub(crate) fn validity_word(valid: &[u8], start: usize, len: usize) -> u64 {
    let w = (load_le::<16>(valid, start >> 3) >> (start & 7)) as u64;
    if len == 64 {
        w
    } else {
        w & ((1u64 << len) - 1)
    }
}

/// Number of set bits among bits `start..end`.
pub(crate) fn count_set_bits(bitmap: &[u8], start: usize, end: usize) -> usize {
    let mut count = 0;
    let mut i = start;
    while i < end && i & 7 != 0 {
        count += bit(bitmap, i) as usize;
        i += 1;
    }
    let full_end = end & !7;
    if i < full_end {
        count += bitmap[i >> 3..full_end >> 3]
            .iter()
            .map(|b| b.count_ones() as usize)
            .sum::<usize>();
        i = full_end;
    }
    while i < end {
        count += bit(bitmap, i) as usize;
        i += 1;
    }
    count
}

fn bitmap_len(n: usize) -> usize {
    n.div_ceil(8)
}

/// Checks one column of a batch against its field. Everything the chunk writers index is
/// checked here, so they may index without further checks.
pub(crate) fn validate(field: &Field, col: &ColumnView, n: usize) -> Result<()> {
    let name = field.name.as_str();
    let short = |what: &str, have: usize, need: usize| {
        Err(Error::input(
            name,
            format!("{what} holds {have} entries but {need} are needed for {n} rows"),
        ))
    };
    if let Some(v) = col.validity {
        if v.len() < bitmap_len(n) {
            return short("validity bitmap (bytes)", v.len(), bitmap_len(n));
        }
        if !field.nullable && count_set_bits(v, 0, n) != n {
            return Err(Error::input(
                name,
                "a null in a required (non-nullable) column",
            ));
        }
    }
    let mismatch = || {
        Err(Error::input(
            name,
            format!("{} column given {}", field.physical.name(), col.data.kind()),
        ))
    };
    match (field.physical, col.data) {
        (PhysicalType::Boolean, ColumnData::Boolean(b)) => {
            if b.len() < bitmap_len(n) {
                return short("boolean bitmap (bytes)", b.len(), bitmap_len(n));
            }
        }
        (PhysicalType::Int32, ColumnData::Int32(v)) if v.len() < n => {
            return short("values", v.len(), n)
        }
        (PhysicalType::Int64, ColumnData::Int64(v)) if v.len() < n => {
            return short("values", v.len(), n)
        }
        (PhysicalType::Float, ColumnData::Float(v)) if v.len() < n => {
            return short("values", v.len(), n)
        }
        (PhysicalType::Double, ColumnData::Double(v)) if v.len() < n => {
            return short("values", v.len(), n)
        }
        (PhysicalType::Int32, ColumnData::Int32(_))
        | (PhysicalType::Int64, ColumnData::Int64(_))
        | (PhysicalType::Float, ColumnData::Float(_))
        | (PhysicalType::Double, ColumnData::Double(_)) => {}
        (PhysicalType::ByteArray, ColumnData::Binary { offsets, data }) => {
            if offsets.len() < n + 1 {
                return short("offsets", offsets.len(), n + 1);
            }
            if offsets[0] < 0 {
                return Err(Error::input(
                    name,
                    format!("first offset {} is negative", offsets[0]),
                ));
            }
            if let Some(i) = offsets[..=n].windows(2).position(|w| w[1] < w[0]) {
                return Err(Error::input(
                    name,
                    format!(
                        "offsets not monotone at row {i}: {} then {}",
                        offsets[i],
                        offsets[i + 1]
                    ),
                ));
            }
            if let Some(i) = offsets[..=n]
                .windows(2)
                .position(|w| w[1] - w[0] > MAX_VALUE_LEN)
            {
                return Err(Error::too_large(
                    name,
                    format!(
                        "value at row {i} has {} bytes; with its length prefix it exceeds Parquet's 2 GiB page limit",
                        offsets[i + 1] - offsets[i]
                    ),
                ));
            }
            let last = offsets[n] as usize;
            if last > data.len() {
                return Err(Error::input(
                    name,
                    format!("offset {last} points past the {} data bytes", data.len()),
                ));
            }
        }
        (
            PhysicalType::FixedLenByteArray(_) | PhysicalType::Int96,
            ColumnData::FixedBinary { width, data },
        ) => {
            let want = match field.physical {
                PhysicalType::FixedLenByteArray(w) => w,
                _ => 12,
            };
            if width != want {
                return Err(Error::input(
                    name,
                    format!(
                        "fixed width {width} given, {} needs {want}",
                        field.physical.name()
                    ),
                ));
            }
            let need = n
                .checked_mul(width)
                .ok_or_else(|| Error::input(name, "size overflows"))?;
            if data.len() < need {
                return short("fixed-width data (bytes)", data.len(), need);
            }
        }
        _ => return mismatch(),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_runs_read_every_offset_up_to_the_end() {
        let bitmap: Vec<u8> = (0..37u32)
            .map(|i| (i.wrapping_mul(0x9E37) >> 3) as u8)
            .collect();
        let n = bitmap.len() * 8;
        for start in 0..n {
            for len in [1, 7, 8, 9, 63, 64] {
                let len = len.min(n - start);
                let want = (0..len).fold(0u64, |w, j| w | (bit(&bitmap, start + j) as u64) << j);
                assert_eq!(validity_word(&bitmap, start, len), want, "{start} {len}");
            }
            let (set, run) = bit_run(&bitmap, start, n);
            assert_eq!(set, bit(&bitmap, start));
            assert!((start..start + run).all(|j| bit(&bitmap, j) == set));
            assert!(start + run == n || run == 56 || bit(&bitmap, start + run) != set);
        }
    }
}
