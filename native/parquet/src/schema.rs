//! Flat Parquet schemas: one leaf column per field, each with its physical and logical type.

use crate::error::{Error, Result};

/// Parquet physical types (the `Type` enum of parquet.thrift).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PhysicalType {
    Boolean,
    Int32,
    Int64,
    Int96,
    Float,
    Double,
    ByteArray,
    /// Fixed-length byte array of the given width in bytes.
    FixedLenByteArray(usize),
}

impl PhysicalType {
    pub(crate) fn thrift_id(self) -> i32 {
        match self {
            PhysicalType::Boolean => 0,
            PhysicalType::Int32 => 1,
            PhysicalType::Int64 => 2,
            PhysicalType::Int96 => 3,
            PhysicalType::Float => 4,
            PhysicalType::Double => 5,
            PhysicalType::ByteArray => 6,
            PhysicalType::FixedLenByteArray(_) => 7,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            PhysicalType::Boolean => "BOOLEAN",
            PhysicalType::Int32 => "INT32",
            PhysicalType::Int64 => "INT64",
            PhysicalType::Int96 => "INT96",
            PhysicalType::Float => "FLOAT",
            PhysicalType::Double => "DOUBLE",
            PhysicalType::ByteArray => "BYTE_ARRAY",
            PhysicalType::FixedLenByteArray(_) => "FIXED_LEN_BYTE_ARRAY",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeUnit {
    Millis,
    Micros,
}

/// Logical type annotations used by Spark's flat types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogicalType {
    String,
    /// Signed integer narrower than the physical type (Spark's ByteType, ShortType).
    Int {
        bit_width: u8,
    },
    Date,
    Decimal {
        precision: u32,
        scale: u32,
    },
    Timestamp {
        unit: TimeUnit,
        adjusted_to_utc: bool,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub physical: PhysicalType,
    pub logical: Option<LogicalType>,
    pub nullable: bool,
    pub field_id: Option<i32>,
}

impl Field {
    pub fn new(name: impl Into<String>, physical: PhysicalType, nullable: bool) -> Self {
        Field {
            name: name.into(),
            physical,
            logical: None,
            nullable,
            field_id: None,
        }
    }

    pub fn with_logical(mut self, logical: LogicalType) -> Self {
        self.logical = Some(logical);
        self
    }

    pub fn with_field_id(mut self, id: i32) -> Self {
        self.field_id = Some(id);
        self
    }

    /// A decimal in the physical type Spark picks for its precision: INT32 up to 9 digits,
    /// INT64 up to 18, otherwise FIXED_LEN_BYTE_ARRAY of the minimal width.
    pub fn decimal(name: impl Into<String>, precision: u32, scale: u32, nullable: bool) -> Self {
        let physical = if precision <= 9 {
            PhysicalType::Int32
        } else if precision <= 18 {
            PhysicalType::Int64
        } else {
            PhysicalType::FixedLenByteArray(decimal_min_bytes(precision))
        };
        Field::new(name, physical, nullable).with_logical(LogicalType::Decimal { precision, scale })
    }

    pub(crate) fn converted_type(&self) -> Option<i32> {
        Some(match self.logical? {
            LogicalType::String => 0,
            LogicalType::Decimal { .. } => 5,
            LogicalType::Date => 6,
            LogicalType::Timestamp {
                unit: TimeUnit::Millis,
                ..
            } => 9,
            LogicalType::Timestamp {
                unit: TimeUnit::Micros,
                ..
            } => 10,
            LogicalType::Int { bit_width: 8 } => 15,
            LogicalType::Int { bit_width: 16 } => 16,
            LogicalType::Int { bit_width: 32 } => 17,
            LogicalType::Int { .. } => 18,
        })
    }

    pub(crate) fn is_decimal(&self) -> bool {
        matches!(self.logical, Some(LogicalType::Decimal { .. }))
    }

    fn validate(&self) -> Result<()> {
        let bad = |msg: String| Err(Error::Schema(format!("column '{}': {msg}", self.name)));
        if self.name.is_empty() {
            return Err(Error::Schema("a column name is empty".into()));
        }
        if let PhysicalType::FixedLenByteArray(w) = self.physical {
            if w == 0 || w > i32::MAX as usize {
                return bad(format!("FIXED_LEN_BYTE_ARRAY width {w} is not valid"));
            }
        }
        match (self.logical, self.physical) {
            (None, _) => Ok(()),
            (Some(LogicalType::String), PhysicalType::ByteArray) => Ok(()),
            (
                Some(LogicalType::Int {
                    bit_width: 8 | 16 | 32,
                }),
                PhysicalType::Int32,
            ) => Ok(()),
            (Some(LogicalType::Int { bit_width: 64 }), PhysicalType::Int64) => Ok(()),
            (Some(LogicalType::Date), PhysicalType::Int32) => Ok(()),
            (Some(LogicalType::Timestamp { .. }), PhysicalType::Int64) => Ok(()),
            (Some(LogicalType::Decimal { precision, scale }), p) => {
                if precision == 0 || scale > precision {
                    return bad(format!("DECIMAL({precision},{scale}) is not valid"));
                }
                let max = match p {
                    PhysicalType::Int32 => 9,
                    PhysicalType::Int64 => 18,
                    PhysicalType::FixedLenByteArray(w) => max_decimal_precision(w),
                    PhysicalType::ByteArray => u32::MAX,
                    _ => 0,
                };
                if precision > max {
                    return bad(format!(
                        "DECIMAL({precision},{scale}) does not fit in {}",
                        p.name()
                    ));
                }
                Ok(())
            }
            (Some(l), p) => bad(format!("logical type {l:?} cannot annotate {}", p.name())),
        }
    }
}

/// Bytes needed to hold any unscaled value of a decimal of `precision` digits.
pub fn decimal_min_bytes(precision: u32) -> usize {
    let mut bytes = 1;
    while max_decimal_precision(bytes) < precision {
        bytes += 1;
    }
    bytes
}

fn max_decimal_precision(bytes: usize) -> u32 {
    // floor(log10(2^(8*bytes-1) - 1))
    let bits = 8.0 * bytes as f64 - 1.0;
    (bits * std::f64::consts::LOG10_2).floor() as u32
}

/// A flat schema: the root group (Spark names it `spark_schema`) and its leaf fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schema {
    pub root_name: String,
    pub fields: Vec<Field>,
}

impl Schema {
    pub fn new(fields: Vec<Field>) -> Result<Self> {
        Self::with_root_name("spark_schema", fields)
    }

    pub fn with_root_name(root: impl Into<String>, fields: Vec<Field>) -> Result<Self> {
        for f in &fields {
            f.validate()?;
        }
        let mut names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
        names.sort_unstable();
        if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
            return Err(Error::Schema(format!("column '{}' appears twice", w[0])));
        }
        Ok(Schema {
            root_name: root.into(),
            fields,
        })
    }
}
