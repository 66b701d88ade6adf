//! The schema as the Java side sends it: column names and, per column, eight ints.
//!
//! `[physical, width, logical, a, b, nullable, has_field_id, field_id]` where `physical` is the
//! parquet.thrift `Type` id, `width` the FIXED_LEN_BYTE_ARRAY width, and `logical` one of
//! 0 none, 1 STRING, 2 INT(bit width a), 3 DATE, 4 DECIMAL(precision a, scale b),
//! 5 TIMESTAMP(unit a: 0 millis, 1 micros; adjusted to UTC b != 0).

use crate::errors::{argument, JniResult};
use vecruntime_parquet::{Field, LogicalType, PhysicalType, Schema, TimeUnit};

pub const INTS_PER_FIELD: usize = 8;

pub fn decode(root: String, names: Vec<String>, spec: &[i32]) -> JniResult<Schema> {
    if spec.len() != names.len() * INTS_PER_FIELD {
        return Err(argument(format!(
            "schema spec has {} ints for {} columns (expected {} each)",
            spec.len(),
            names.len(),
            INTS_PER_FIELD
        )));
    }
    let fields = names
        .into_iter()
        .zip(spec.chunks_exact(INTS_PER_FIELD))
        .map(|(name, s)| field(name, s))
        .collect::<JniResult<Vec<_>>>()?;
    Ok(Schema::with_root_name(root, fields)?)
}

fn field(name: String, s: &[i32]) -> JniResult<Field> {
    let bad = |what: String| argument(format!("column '{name}': {what}"));
    let physical = match s[0] {
        0 => PhysicalType::Boolean,
        1 => PhysicalType::Int32,
        2 => PhysicalType::Int64,
        3 => PhysicalType::Int96,
        4 => PhysicalType::Float,
        5 => PhysicalType::Double,
        6 => PhysicalType::ByteArray,
        7 if s[1] > 0 => PhysicalType::FixedLenByteArray(s[1] as usize),
        7 => {
            return Err(bad(format!(
                "FIXED_LEN_BYTE_ARRAY width {} is not valid",
                s[1]
            )))
        }
        t => return Err(bad(format!("unknown physical type id {t}"))),
    };
    let non_negative =
        |v: i32, what: &str| u32::try_from(v).map_err(|_| bad(format!("{what} {v} is negative")));
    let logical = match s[2] {
        0 => None,
        1 => Some(LogicalType::String),
        2 => Some(LogicalType::Int {
            bit_width: u8::try_from(s[3]).map_err(|_| bad(format!("INT bit width {}", s[3])))?,
        }),
        3 => Some(LogicalType::Date),
        4 => Some(LogicalType::Decimal {
            precision: non_negative(s[3], "decimal precision")?,
            scale: non_negative(s[4], "decimal scale")?,
        }),
        5 => Some(LogicalType::Timestamp {
            unit: match s[3] {
                0 => TimeUnit::Millis,
                1 => TimeUnit::Micros,
                u => return Err(bad(format!("unknown timestamp unit {u}"))),
            },
            adjusted_to_utc: s[4] != 0,
        }),
        l => return Err(bad(format!("unknown logical type id {l}"))),
    };
    let mut f = Field::new(name.clone(), physical, s[5] != 0);
    f.logical = logical;
    if s[6] != 0 {
        f = f.with_field_id(s[7]);
    }
    Ok(f)
}
