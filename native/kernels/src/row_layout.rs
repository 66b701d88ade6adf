//! Spark's `UnsafeRow` layout, read with every offset and size checked.
//!
//! A row of `n` fields is: a null bitset of `ceil(n / 64)` 8-byte words (bit `i` set when field
//! `i` is null), then one 8-byte slot per field, then the variable-length region. Fixed-width
//! values sit in their slot (little-endian, from the slot's start); strings, binaries and
//! decimals of more than 18 digits hold `offset << 32 | size` in the slot, the offset counted
//! from the row's start. Decimals up to 18 digits hold the unscaled long.
//!
//! A batch is the rows' bytes back to back plus `num_rows + 1` i32 offsets (row `i` is
//! `rows[offsets[i]..offsets[i + 1]]`). A malformed row is an error naming the column and the
//! row, never a read out of bounds.

use vecruntime_parquet::error::Result;
use vecruntime_parquet::Error;

/// Bytes of the null bitset of a row (or struct) of `num_fields` fields.
pub(crate) const fn bitset_bytes(num_fields: usize) -> usize {
    num_fields.div_ceil(64) * 8
}

/// Bytes of a row's fixed part: its null bitset and slots.
pub(crate) const fn fixed_bytes(num_fields: usize) -> usize {
    bitset_bytes(num_fields) + 8 * num_fields
}

/// Row `r` of a batch, checked to lie inside it and to hold the null bits and slots of
/// `num_fields` fields (`column` names the error).
pub(crate) fn checked_row<'a>(
    rows: &'a [u8],
    offsets: &[i32],
    r: usize,
    num_fields: usize,
    column: &str,
) -> Result<&'a [u8]> {
    let (start, end) = (offsets[r], offsets[r + 1]);
    if start < 0 || end < start || end as usize > rows.len() {
        return Err(row_error(
            column,
            r,
            format!(
                "row bytes {start}..{end} outside the batch of {} bytes",
                rows.len()
            ),
        ));
    }
    let fixed = fixed_bytes(num_fields);
    if ((end - start) as usize) < fixed {
        return Err(row_error(
            column,
            r,
            format!(
                "row of {} bytes, {num_fields} fields need at least {fixed}",
                end - start
            ),
        ));
    }
    Ok(&rows[start as usize..end as usize])
}

/// Where the bytes of a variable-length slot (`offset << 32 | size`) lie in a container of
/// `len` bytes: `(offset, size)`, or the error's message (`container` says whose bytes).
#[inline(always)]
pub(crate) fn var_span(
    slot: u64,
    len: usize,
    container: &str,
) -> std::result::Result<(usize, usize), String> {
    let offset = (slot >> 32) as usize;
    let size = (slot & 0xffff_ffff) as usize;
    match offset.checked_add(size) {
        Some(end) if end <= len => Ok((offset, size)),
        _ => Err(format!(
            "value of {size} bytes at offset {offset} runs past {container} {len} bytes"
        )),
    }
}

/// The variable-length bytes a slot points at, checked to lie inside the row.
pub(crate) fn var_bytes<'a>(row: &'a [u8], slot: u64, column: &str, r: usize) -> Result<&'a [u8]> {
    match var_span(slot, row.len(), "the row's") {
        Ok((offset, size)) => Ok(&row[offset..offset + size]),
        Err(m) => Err(row_error(column, r, m)),
    }
}

/// Whether field `field` of a checked row is null.
#[inline]
pub(crate) fn is_null(row: &[u8], field: usize) -> bool {
    row[field / 8] >> (field % 8) & 1 == 1
}

/// Field `field`'s 8-byte slot in a checked row of `num_fields` fields.
#[inline]
pub(crate) fn slot(row: &[u8], num_fields: usize, field: usize) -> [u8; 8] {
    let at = bitset_bytes(num_fields) + 8 * field;
    row[at..at + 8].try_into().expect("8 bytes")
}

/// The error of a malformed value in row `row` of the batch, naming its column.
#[cold]
#[inline(never)]
pub(crate) fn row_error(column: &str, row: usize, message: String) -> Error {
    Error::InvalidInput {
        column: column.to_string(),
        message: format!("UnsafeRow {row} of the batch: {message}"),
    }
}
