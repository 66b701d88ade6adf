//! Spark's INT96 timestamps: `ParquetWriteSupport` writes a timestamp's micros as the nanos of
//! the day (i64 little-endian) then the Julian day (i32 little-endian).

/// Julian day of 1970-01-01, as Spark's `DateTimeUtils.JULIAN_DAY_OF_EPOCH`.
const JULIAN_DAY_OF_EPOCH: i64 = 2_440_588;
const MICROS_PER_DAY: i64 = 86_400_000_000;

/// Spark's `DateTimeUtils.toJulianDay` and `ParquetWriteSupport`'s INT96 bytes. Truncating
/// division, as Spark's.
pub fn int96_from_micros(micros: i64) -> [u8; 12] {
    let julian_us = micros.wrapping_add(JULIAN_DAY_OF_EPOCH * MICROS_PER_DAY);
    let day = (julian_us / MICROS_PER_DAY) as i32;
    let nanos = (julian_us % MICROS_PER_DAY) * 1000;
    let mut out = [0u8; 12];
    out[..8].copy_from_slice(&nanos.to_le_bytes());
    out[8..].copy_from_slice(&day.to_le_bytes());
    out
}

/// The micros of Spark's INT96 bytes ([`int96_from_micros`] undone).
pub(crate) fn int96_micros(b: &[u8]) -> i64 {
    let nanos = i64::from_le_bytes(b[..8].try_into().unwrap());
    let day = i32::from_le_bytes(b[8..12].try_into().unwrap()) as i64;
    (day * MICROS_PER_DAY + nanos / 1000).wrapping_sub(JULIAN_DAY_OF_EPOCH * MICROS_PER_DAY)
}

#[cfg(test)]
mod tests;
