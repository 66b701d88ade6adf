//! A column's values for one batch, in the buffers the writer reads: the transposer's flat
//! columns and the shredder's leaves keep them alike, and hand them over as one kind of view.

use crate::spark_type::{SparkType, Storage};
use vecruntime_parquet::error::Result;
use vecruntime_parquet::{ColumnData, Error};

/// One vector per [`Storage`]; a column uses the one its type's storage names (`bytes` for a
/// bitmap, fixed-width bytes or variable-length bytes, with `offsets` for the latter).
#[derive(Default)]
pub(crate) struct Values {
    pub bytes: Vec<u8>,
    pub i32s: Vec<i32>,
    pub i64s: Vec<i64>,
    pub f32s: Vec<f32>,
    pub f64s: Vec<f64>,
    pub offsets: Vec<i32>,
}

impl Values {
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.i32s.clear();
        self.i64s.clear();
        self.f32s.clear();
        self.f64s.clear();
        self.offsets.clear();
    }

    pub fn capacity_bytes(&self) -> usize {
        self.bytes.capacity()
            + 4 * (self.i32s.capacity() + self.f32s.capacity() + self.offsets.capacity())
            + 8 * (self.i64s.capacity() + self.f64s.capacity())
    }

    /// The values of a column of type `ty` as the writer takes them.
    pub fn data(&self, ty: SparkType) -> ColumnData<'_> {
        match ty.storage() {
            Storage::Bits => ColumnData::Boolean(&self.bytes),
            Storage::I32 => ColumnData::Int32(&self.i32s),
            Storage::I64 => ColumnData::Int64(&self.i64s),
            Storage::F32 => ColumnData::Float(&self.f32s),
            Storage::F64 => ColumnData::Double(&self.f64s),
            Storage::Fixed(width) => ColumnData::FixedBinary {
                width,
                data: &self.bytes,
            },
            Storage::Var => ColumnData::Binary {
                offsets: &self.offsets,
                data: &self.bytes,
            },
        }
    }

    /// Appends a variable-length value's bytes: a geospatial value re-encoded as Spark's writer
    /// writes it, anything else as it is. The error is the message for the value's row.
    pub fn append_var(&mut self, ty: SparkType, value: &[u8]) -> std::result::Result<(), String> {
        match ty {
            SparkType::Geo { geography } => {
                crate::wkb::append_spark_wkb(&mut self.bytes, value, geography)
            }
            _ => {
                self.bytes.extend_from_slice(value);
                Ok(())
            }
        }
    }

    /// The offset after the last appended value: a batch's values of one column stay within
    /// i32 offsets.
    pub fn end_offset(&self, column: &str) -> Result<i32> {
        i32::try_from(self.bytes.len()).map_err(|_| Error::TooLarge {
            column: column.to_string(),
            message: "more than 2 GiB of values in one batch".into(),
        })
    }
}
