//! A batch as the Java side sends it: a row count and, per leaf column, five (address, length)
//! pairs: validity, values, offsets, definition levels, repetition levels (the levels only for
//! a nested column, as i16). Each range is checked against the live allocations before a
//! slice is made; the writer then checks the slices against the row count and the schema.

use crate::errors::{argument, JniResult};
use crate::memory::Pin;
use vecruntime_parquet::{Batch, ColumnData, ColumnView, PhysicalType, Schema};

pub const LONGS_PER_COLUMN: usize = 10;

pub fn decode<'p>(
    pin: &'p Pin,
    schema: &Schema,
    num_rows: i64,
    spec: &[i64],
) -> JniResult<Batch<'p>> {
    let num_rows = usize::try_from(num_rows)
        .ok()
        .filter(|&n| n <= i32::MAX as usize)
        .ok_or_else(|| argument(format!("row count {num_rows} is out of range")))?;
    let leaves = schema.columns();
    if spec.len() != leaves.len() * LONGS_PER_COLUMN {
        return Err(argument(format!(
            "batch describes {} buffers for a schema of {} columns (expected {} longs each)",
            spec.len(),
            leaves.len(),
            LONGS_PER_COLUMN
        )));
    }
    let mut columns = Vec::with_capacity(leaves.len());
    for (field, s) in leaves.iter().zip(spec.chunks_exact(LONGS_PER_COLUMN)) {
        let name = field.name.as_str();
        let validity = if s[0] == 0 && s[1] == 0 {
            None
        } else {
            Some(pin.bytes(s[0], s[1], &|| format!("column '{name}' validity buffer"))?)
        };
        let values = |what: &str| format!("column '{name}' {what} buffer");
        let data = match field.physical {
            PhysicalType::Boolean => {
                ColumnData::Boolean(pin.bytes(s[2], s[3], &|| values("values"))?)
            }
            PhysicalType::Int32 => ColumnData::Int32(pin.values(s[2], s[3], &|| values("values"))?),
            PhysicalType::Int64 => ColumnData::Int64(pin.values(s[2], s[3], &|| values("values"))?),
            PhysicalType::Float => ColumnData::Float(pin.values(s[2], s[3], &|| values("values"))?),
            PhysicalType::Double => {
                ColumnData::Double(pin.values(s[2], s[3], &|| values("values"))?)
            }
            PhysicalType::ByteArray => ColumnData::Binary {
                offsets: pin.values(s[4], s[5], &|| values("offsets"))?,
                data: pin.bytes(s[2], s[3], &|| values("values"))?,
            },
            PhysicalType::FixedLenByteArray(width) => ColumnData::FixedBinary {
                width,
                data: pin.bytes(s[2], s[3], &|| values("values"))?,
            },
            PhysicalType::Int96 => ColumnData::FixedBinary {
                width: 12,
                data: pin.bytes(s[2], s[3], &|| values("values"))?,
            },
        };
        let mut view = ColumnView::new(data).with_validity(validity);
        if !(s[6] == 0 && s[7] == 0 && s[8] == 0 && s[9] == 0) {
            view = view.with_levels(
                pin.values(s[6], s[7], &|| values("definition levels"))?,
                pin.values(s[8], s[9], &|| values("repetition levels"))?,
            );
        }
        columns.push(view);
    }
    Ok(Batch { num_rows, columns })
}
