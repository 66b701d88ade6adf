//! Spark's types as they are written, and one table of their facts: where a value sits in an
//! `UnsafeRow` (in its slot, or in the variable-length region), how many bytes of a slot or
//! array element are its own, which column buffer it goes to and how it is converted on the
//! way. The transposer, the shredder and the splitter all read these facts here; adding a Spark
//! type touches this table and the code that is really new.

use vecruntime_parquet::schema::decimal_min_bytes;
use vecruntime_parquet::{ColumnDescriptor, LogicalType, PhysicalType, TimeUnit};

/// Spark's flat types as they are written (the output timestamp type already chosen).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SparkType {
    Boolean,
    Byte,
    Short,
    Int,
    Long,
    Float,
    Double,
    Date,
    /// TimestampType written as INT96 (Julian day + nanos of day).
    TimestampInt96,
    /// TimestampType written as INT64 micros.
    TimestampMicros,
    /// TimestampType written as INT64 millis (floor of micros / 1000).
    TimestampMillis,
    /// TimestampNTZType: INT64 micros.
    TimestampNtz,
    /// TimeType (nanos of day) as INT64 TIME micros: the nanos floor-divided by 1000.
    Time,
    Decimal {
        precision: u32,
    },
    /// A decimal of at most 18 digits in `writeLegacyFormat`'s FIXED_LEN_BYTE_ARRAY of the
    /// minimal width: the unscaled long's low bytes, big-endian.
    LegacyDecimal {
        precision: u32,
    },
    String,
    Binary,
    /// BinaryType as FIXED_LEN_BYTE_ARRAY of `width` bytes (a table format's fixed type, or a
    /// UUID's 16 bytes): a value of another length is an error naming the column, as
    /// parquet-java's fixed-width writer refuses it.
    FixedBinary {
        width: u32,
    },
    /// GEOMETRY or GEOGRAPHY: SRID header and WKB, written as Spark's writer re-encodes it
    /// ([`crate::wkb`]).
    Geo {
        geography: bool,
    },
}

impl SparkType {
    /// How Spark's writer fills a flat column of this Parquet type: Spark's
    /// `SparkToParquetSchemaConverter` decides the Parquet type, and the row decoding follows
    /// from it (no Spark type is written as two different leaves). `None` for a leaf no Spark
    /// type is written as by this kernel (a nested leaf, a legacy-layout decimal).
    pub fn of_column(c: &ColumnDescriptor) -> Option<SparkType> {
        if !c.is_flat() || c.path.len() != 1 {
            return None;
        }
        Self::of_leaf(c.physical, c.logical.as_ref())
    }

    /// The row type of a leaf of this physical and logical type, wherever it sits.
    pub fn of_leaf(physical: PhysicalType, logical: Option<&LogicalType>) -> Option<SparkType> {
        use PhysicalType as P;
        Some(match (physical, logical) {
            // Spark's void columns: BOOLEAN UNKNOWN, every value null.
            (P::Boolean, None | Some(LogicalType::Unknown)) => SparkType::Boolean,
            (P::Int32, Some(LogicalType::Int { bit_width: 8 })) => SparkType::Byte,
            (P::Int32, Some(LogicalType::Int { bit_width: 16 })) => SparkType::Short,
            (P::Int32, None) => SparkType::Int,
            (P::Int32, Some(LogicalType::Date)) => SparkType::Date,
            (P::Int64, None) => SparkType::Long,
            (P::Float, None) => SparkType::Float,
            (P::Double, None) => SparkType::Double,
            (P::Int96, None) => SparkType::TimestampInt96,
            (
                P::Int64,
                Some(LogicalType::Timestamp {
                    unit,
                    adjusted_to_utc,
                }),
            ) => match (*unit, *adjusted_to_utc) {
                (TimeUnit::Micros, true) => SparkType::TimestampMicros,
                (TimeUnit::Millis, true) => SparkType::TimestampMillis,
                (TimeUnit::Micros, false) => SparkType::TimestampNtz,
                (TimeUnit::Millis, false) => return None,
            },
            (
                P::Int64,
                Some(LogicalType::Time {
                    unit: TimeUnit::Micros,
                    adjusted_to_utc: false,
                }),
            ) => SparkType::Time,
            (physical, Some(&LogicalType::Decimal { precision, .. })) => {
                // The standard layout, or the legacy one: the minimal FIXED_LEN_BYTE_ARRAY.
                let standard = vecruntime_parquet::Field::decimal("", precision, 0, true).physical;
                let legacy = P::FixedLenByteArray(decimal_min_bytes(precision));
                if precision > 38 {
                    return None;
                } else if physical == standard {
                    SparkType::Decimal { precision }
                } else if physical == legacy && precision <= 18 {
                    SparkType::LegacyDecimal { precision }
                } else {
                    return None;
                }
            }
            (P::FixedLenByteArray(w), None)
            | (P::FixedLenByteArray(w @ 16), Some(LogicalType::Uuid)) => SparkType::FixedBinary {
                width: u32::try_from(w).ok()?,
            },
            (P::ByteArray, Some(LogicalType::String)) => SparkType::String,
            (P::ByteArray, None) => SparkType::Binary,
            (P::ByteArray, Some(LogicalType::Geometry { .. })) => {
                SparkType::Geo { geography: false }
            }
            (P::ByteArray, Some(LogicalType::Geography { .. })) => {
                SparkType::Geo { geography: true }
            }
            _ => return None,
        })
    }

    /// The column buffer this type's values go to (and the column data the writer gets).
    pub fn storage(self) -> Storage {
        match self {
            SparkType::Boolean => Storage::Bits,
            SparkType::Byte | SparkType::Short | SparkType::Int | SparkType::Date => Storage::I32,
            SparkType::Decimal { precision: ..=9 } => Storage::I32,
            SparkType::Long
            | SparkType::TimestampMicros
            | SparkType::TimestampMillis
            | SparkType::TimestampNtz
            | SparkType::Time
            | SparkType::Decimal { precision: ..=18 } => Storage::I64,
            SparkType::Decimal { precision } | SparkType::LegacyDecimal { precision } => {
                Storage::Fixed(decimal_min_bytes(precision))
            }
            SparkType::TimestampInt96 => Storage::Fixed(12),
            SparkType::FixedBinary { width } => Storage::Fixed(width as usize),
            SparkType::Float => Storage::F32,
            SparkType::Double => Storage::F64,
            SparkType::String | SparkType::Binary | SparkType::Geo { .. } => Storage::Var,
        }
    }

    /// Whether a slot of this type holds `offset << 32 | size` of the value's bytes (in the
    /// variable-length region) rather than the value: strings, binaries, geospatial values and
    /// decimals of more than 18 digits.
    pub const fn is_var(self) -> bool {
        matches!(
            self,
            SparkType::String
                | SparkType::Binary
                | SparkType::FixedBinary { .. }
                | SparkType::Geo { .. }
                | SparkType::Decimal { precision: 19.. }
        )
    }

    /// Bytes of a value in an array's fixed region, which are also the bytes of a row slot that
    /// are the value's own (the rest of a slot is not: UnsafeRow's in-place setters leave it).
    pub const fn value_width(self) -> usize {
        match self {
            SparkType::Boolean | SparkType::Byte => 1,
            SparkType::Short => 2,
            SparkType::Int | SparkType::Date | SparkType::Float => 4,
            _ => 8,
        }
    }
}

/// Where a column's values are kept for the writer, by [`SparkType::storage`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// A bitmap, one bit a value (BOOLEAN).
    Bits,
    I32,
    I64,
    F32,
    F64,
    /// Bytes of this width a value: INT96, FIXED_LEN_BYTE_ARRAY decimals (big-endian) and
    /// fixed-width binaries. A null keeps its zeroed room.
    Fixed(usize),
    /// Bytes and offsets: strings, binaries, geospatial values.
    Var,
}

/// Dispatches on the types held as a number in their slot or array element: expands
/// `$each!(vector, width, conversion)` with the `Values` vector the values go
/// to, the value's width in an array element ([`SparkType::value_width`]) and its conversion
/// from the little-endian word read there (zero-extended), as Spark's `ParquetWriteSupport`
/// converts it; `$other` for the rest. The type is matched once a column, never once a value.
macro_rules! match_number {
    ($ty:expr, $each:ident, $other:expr) => {
        match $ty {
            SparkType::Byte => $each!(i32s, 1, |v: u64| v as u8 as i8 as i32),
            SparkType::Short => $each!(i32s, 2, |v: u64| v as u16 as i16 as i32),
            SparkType::Int | SparkType::Date => $each!(i32s, 4, |v: u64| v as u32 as i32),
            SparkType::Decimal { precision: ..=9 } => $each!(i32s, 8, |v: u64| v as i64 as i32),
            SparkType::Long
            | SparkType::TimestampMicros
            | SparkType::TimestampNtz
            | SparkType::Decimal { precision: ..=18 } => $each!(i64s, 8, |v: u64| v as i64),
            // Micros to millis, and TIME's nanos of day to micros: floor division.
            SparkType::TimestampMillis | SparkType::Time => {
                $each!(i64s, 8, |v: u64| (v as i64).div_euclid(1000))
            }
            SparkType::Float => $each!(f32s, 4, |v: u64| f32::from_bits(v as u32)),
            SparkType::Double => $each!(f64s, 8, f64::from_bits),
            _ => $other,
        }
    };
}
pub(crate) use match_number;

/// Writes a decimal's unscaled value as Spark's row holds it (`BigInteger.toByteArray`:
/// big-endian two's complement, minimal) into `out`, the column's width, sign-extended.
pub(crate) fn widen_decimal(out: &mut [u8], bytes: &[u8], precision: u32) -> Result<(), String> {
    let width = out.len();
    if bytes.is_empty() || bytes.len() > width {
        return Err(format!(
            "decimal of {} bytes does not fit DECIMAL({precision}) in {width}",
            bytes.len()
        ));
    }
    let sign = if bytes[0] & 0x80 != 0 { 0xff } else { 0 };
    out[..width - bytes.len()].fill(sign);
    out[width - bytes.len()..].copy_from_slice(bytes);
    Ok(())
}

/// `writeLegacyFormat`'s decimal of at most 18 digits: the unscaled long's low bytes,
/// big-endian, in `out` (the minimal width).
pub(crate) fn legacy_decimal(out: &mut [u8], unscaled: i64) {
    let be = unscaled.to_be_bytes();
    out.copy_from_slice(&be[8 - out.len()..]);
}

/// A FIXED_LEN_BYTE_ARRAY value: `value` in `out` when it has `out`'s width, else the error
/// parquet-java's fixed-width writer gives.
pub(crate) fn put_fixed(out: &mut [u8], value: &[u8]) -> std::result::Result<(), String> {
    if value.len() != out.len() {
        return Err(format!(
            "a value of {} bytes in a FIXED_LEN_BYTE_ARRAY({}) column",
            value.len(),
            out.len()
        ));
    }
    out.copy_from_slice(value);
    Ok(())
}

#[cfg(test)]
mod tests;
