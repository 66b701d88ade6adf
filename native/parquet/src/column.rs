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
//! A column below a repeated or optional group (a leaf of a struct, list or map) carries its
//! levels explicitly instead ([`NestedLevels`]): one definition and one repetition level per
//! entry, `data` holding only the values of the entries defined at the leaf's maximum level,
//! back to back, and no validity. Its rows (records) are the entries with repetition level 0.
//!
//! Buffers are only read during the call; the writer copies what it keeps.

use crate::error::{Error, Result};
use crate::schema::{ColumnDescriptor, PhysicalType};

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

/// The levels of a nested column, one entry per value slot (null or not).
#[derive(Clone, Copy, Debug)]
pub struct NestedLevels<'a> {
    pub def: &'a [i16],
    pub rep: &'a [i16],
}

/// One column of a batch. Its levels come in one of three forms: none (a required top-level
/// column: no validity, no nested levels), a validity bitmap (a top-level optional column: the
/// fast path), or explicit nested levels.
#[derive(Clone, Copy, Debug)]
pub struct ColumnView<'a> {
    pub validity: Option<&'a [u8]>,
    pub data: ColumnData<'a>,
    pub nested: Option<NestedLevels<'a>>,
}

impl<'a> ColumnView<'a> {
    pub fn new(data: ColumnData<'a>) -> Self {
        ColumnView {
            validity: None,
            data,
            nested: None,
        }
    }

    pub fn with_validity(mut self, validity: Option<&'a [u8]>) -> Self {
        self.validity = validity;
        self
    }

    /// A nested column: `data` holds the values of the entries whose definition level is the
    /// column's maximum.
    pub fn with_levels(mut self, def: &'a [i16], rep: &'a [i16]) -> Self {
        self.nested = Some(NestedLevels { def, rep });
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
    /// Definition and repetition levels of a nested column.
    pub levels: Option<(Vec<i16>, Vec<i16>)>,
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
            nested: self
                .levels
                .as_ref()
                .map(|(def, rep)| NestedLevels { def, rep }),
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

/// Where each row (record) of a nested column starts: its first level entry and its first
/// value, for rows `0..=num_rows` (the last pair is the end).
pub(crate) struct RecordStarts {
    pub levels: Vec<usize>,
    pub values: Vec<usize>,
}

/// Bit `j` set when `test(levels[j])` (up to 64 levels).
fn mask64(levels: &[i16], test: impl Fn(i16) -> bool) -> u64 {
    if let Ok(full) = <&[i16; 64]>::try_from(levels) {
        // A fixed length the compiler turns into vector compares.
        let mut bits = [false; 64];
        for (b, &l) in bits.iter_mut().zip(full) {
            *b = test(l);
        }
        return bits
            .iter()
            .enumerate()
            .fold(0, |m, (j, &b)| m | ((b as u64) << j));
    }
    levels
        .iter()
        .enumerate()
        .fold(0, |m, (j, &l)| m | ((test(l) as u64) << j))
}

/// Checks the levels of a nested column; returns where its records start.
fn validate_levels(
    column: &ColumnDescriptor,
    levels: &NestedLevels,
    n: usize,
) -> Result<RecordStarts> {
    let name = column.name.as_str();
    let NestedLevels { def, rep } = *levels;
    if def.len() != rep.len() {
        return Err(Error::input(
            name,
            format!(
                "{} definition levels but {} repetition levels",
                def.len(),
                rep.len()
            ),
        ));
    }
    // The bounds first, over each slice on its own (loops the compiler vectorizes); the
    // entry at fault is looked for only when they fail.
    let within = |l: &[i16], max: i16| {
        let (lo, hi) = l
            .iter()
            .fold((0, 0), |(lo, hi): (i16, i16), &x| (lo.min(x), hi.max(x)));
        lo >= 0 && hi <= max
    };
    if !within(def, column.max_def) || !within(rep, column.max_rep) {
        let (i, (d, r)) = def
            .iter()
            .zip(rep)
            .enumerate()
            .find(|(_, (&d, &r))| {
                !(0..=column.max_def).contains(&d) || !(0..=column.max_rep).contains(&r)
            })
            .expect("a level out of bounds");
        return Err(Error::input(
            name,
            format!(
                "levels (definition {d}, repetition {r}) at entry {i} are outside 0..={} and 0..={}",
                column.max_def, column.max_rep
            ),
        ));
    }
    if let Some(&r) = rep.first().filter(|&&r| r != 0) {
        return Err(Error::input(
            name,
            format!("the first entry has repetition level {r}, not 0"),
        ));
    }
    let mut starts = RecordStarts {
        levels: Vec::with_capacity(n + 1),
        values: Vec::with_capacity(n + 1),
    };
    // 64 entries at a time: a mask of record starts and one of defined values, so that a
    // record start costs a push and the entries between them nothing each.
    let mut values = 0;
    for (block, (d, r)) in def.chunks(64).zip(rep.chunks(64)).enumerate() {
        let defined = mask64(d, |d| d == column.max_def);
        let mut record = mask64(r, |r| r == 0);
        while record != 0 {
            let j = record.trailing_zeros();
            starts.levels.push(block * 64 + j as usize);
            starts
                .values
                .push(values + (defined & ((1u64 << j) - 1)).count_ones() as usize);
            record &= record - 1;
        }
        values += defined.count_ones() as usize;
    }
    if starts.levels.len() != n {
        return Err(Error::input(
            name,
            format!(
                "levels hold {} records (entries with repetition level 0) but the batch has {n} rows",
                starts.levels.len()
            ),
        ));
    }
    starts.levels.push(def.len());
    starts.values.push(values);
    Ok(starts)
}

/// Checks one column of a batch against its descriptor. Everything the chunk writers index is
/// checked here, so they may index without further checks. A nested column's record starts
/// come back with it.
pub(crate) fn validate(
    column: &ColumnDescriptor,
    col: &ColumnView,
    rows: usize,
) -> Result<Option<RecordStarts>> {
    let name = column.name.as_str();
    let starts = match &col.nested {
        // An empty batch of a nested column needs no levels (the Java side sends none).
        None if !column.is_flat() && rows > 0 => {
            return Err(Error::input(
                name,
                "a nested column given without its definition and repetition levels",
            ))
        }
        None => None,
        Some(_) if col.validity.is_some() => {
            return Err(Error::input(
                name,
                "a nested column given a validity bitmap: its definition levels say which values are null",
            ))
        }
        Some(levels) => Some(validate_levels(column, levels, rows)?),
    };
    // Values: one slot per row for flat columns, one per defined entry for nested ones.
    let n = starts.as_ref().map_or(rows, |s| s.values[rows]);
    validate_values(column, col, n)?;
    Ok(starts)
}

fn validate_values(field: &ColumnDescriptor, col: &ColumnView, n: usize) -> Result<()> {
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
        if field.max_def == 0 && count_set_bits(v, 0, n) != n {
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
