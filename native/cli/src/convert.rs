//! `vecruntime rewrite`: any Parquet file (read by arrow-rs) written again through our writer,
//! keeping logical types, field ids and key/value metadata.

use arrow_array::{cast::AsArray, types::*, Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, TimeUnit as ATimeUnit};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use vecruntime_parquet::column::{OwnedColumn, OwnedData};
use vecruntime_parquet::{
    Batch, Codec, Field, FileWriter, LogicalType, PhysicalType, Schema, TimeUnit, WriterOptions,
};

fn field_for(f: &arrow_schema::Field) -> Result<Field, String> {
    use LogicalType as L;
    use PhysicalType as P;
    let name = f.name().clone();
    let n = f.is_nullable();
    let field = match f.data_type() {
        DataType::Boolean => Field::new(name, P::Boolean, n),
        DataType::Int8 => Field::new(name, P::Int32, n).with_logical(L::Int { bit_width: 8 }),
        DataType::Int16 => Field::new(name, P::Int32, n).with_logical(L::Int { bit_width: 16 }),
        DataType::Int32 => Field::new(name, P::Int32, n),
        DataType::Int64 => Field::new(name, P::Int64, n),
        DataType::Date32 => Field::new(name, P::Int32, n).with_logical(L::Date),
        DataType::Timestamp(ATimeUnit::Millisecond, tz) => Field::new(name, P::Int64, n)
            .with_logical(L::Timestamp {
                unit: TimeUnit::Millis,
                adjusted_to_utc: tz.is_some(),
            }),
        DataType::Timestamp(ATimeUnit::Microsecond, tz) => Field::new(name, P::Int64, n)
            .with_logical(L::Timestamp {
                unit: TimeUnit::Micros,
                adjusted_to_utc: tz.is_some(),
            }),
        // Nanosecond timestamps are what INT96 reads as; they are written back as INT96.
        DataType::Timestamp(ATimeUnit::Nanosecond, _) => Field::new(name, P::Int96, n),
        DataType::Float32 => Field::new(name, P::Float, n),
        DataType::Float64 => Field::new(name, P::Double, n),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            Field::new(name, P::ByteArray, n).with_logical(L::String)
        }
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => {
            Field::new(name, P::ByteArray, n)
        }
        DataType::FixedSizeBinary(w) => Field::new(name, P::FixedLenByteArray(*w as usize), n),
        DataType::Decimal32(p, s) | DataType::Decimal64(p, s) | DataType::Decimal128(p, s)
            if *s >= 0 =>
        {
            Field::decimal(name, *p as u32, *s as u32, n)
        }
        other => {
            return Err(format!(
                "column '{}': type {other} is not supported by the writer",
                f.name()
            ))
        }
    };
    let field = match f
        .metadata()
        .get("PARQUET:field_id")
        .and_then(|v| v.parse().ok())
    {
        Some(id) => field.with_field_id(id),
        None => field,
    };
    Ok(field)
}

fn bitmap(len: usize, get: impl Fn(usize) -> bool) -> Vec<u8> {
    let mut out = vec![0u8; len.div_ceil(8)];
    for i in 0..len {
        if get(i) {
            out[i / 8] |= 1 << (i % 8);
        }
    }
    out
}

fn decimal_value(a: &dyn Array, i: usize) -> i128 {
    match a.data_type() {
        DataType::Decimal32(..) => a.as_primitive::<Decimal32Type>().value(i) as i128,
        DataType::Decimal64(..) => a.as_primitive::<Decimal64Type>().value(i) as i128,
        _ => a.as_primitive::<Decimal128Type>().value(i),
    }
}

fn buffers(field: &Field, a: &ArrayRef) -> OwnedColumn {
    let len = a.len();
    let validity = a
        .nulls()
        .filter(|n| n.null_count() > 0)
        .map(|n| bitmap(len, |i| n.is_valid(i)));
    let data = match (field.physical, a.data_type()) {
        (PhysicalType::Boolean, _) => {
            let b = a.as_boolean();
            OwnedData::Bool(bitmap(len, |i| b.value(i)))
        }
        (PhysicalType::Int32, DataType::Int8) => OwnedData::I32(
            a.as_primitive::<Int8Type>()
                .values()
                .iter()
                .map(|&v| v as i32)
                .collect(),
        ),
        (PhysicalType::Int32, DataType::Int16) => OwnedData::I32(
            a.as_primitive::<Int16Type>()
                .values()
                .iter()
                .map(|&v| v as i32)
                .collect(),
        ),
        (PhysicalType::Int32, DataType::Int32) => {
            OwnedData::I32(a.as_primitive::<Int32Type>().values().to_vec())
        }
        (PhysicalType::Int32, DataType::Date32) => {
            OwnedData::I32(a.as_primitive::<Date32Type>().values().to_vec())
        }
        (PhysicalType::Int32, _) => OwnedData::I32(
            (0..len)
                .map(|i| decimal_value(a.as_ref(), i) as i32)
                .collect(),
        ),
        (PhysicalType::Int64, DataType::Int64) => {
            OwnedData::I64(a.as_primitive::<Int64Type>().values().to_vec())
        }
        (PhysicalType::Int64, DataType::Timestamp(ATimeUnit::Millisecond, _)) => OwnedData::I64(
            a.as_primitive::<TimestampMillisecondType>()
                .values()
                .to_vec(),
        ),
        (PhysicalType::Int64, DataType::Timestamp(ATimeUnit::Microsecond, _)) => OwnedData::I64(
            a.as_primitive::<TimestampMicrosecondType>()
                .values()
                .to_vec(),
        ),
        (PhysicalType::Int64, _) => OwnedData::I64(
            (0..len)
                .map(|i| decimal_value(a.as_ref(), i) as i64)
                .collect(),
        ),
        (PhysicalType::Float, _) => {
            OwnedData::F32(a.as_primitive::<Float32Type>().values().to_vec())
        }
        (PhysicalType::Double, _) => {
            OwnedData::F64(a.as_primitive::<Float64Type>().values().to_vec())
        }
        (PhysicalType::ByteArray, dt) => {
            let get = |i: usize| -> &[u8] {
                match dt {
                    DataType::Utf8 => a.as_string::<i32>().value(i).as_bytes(),
                    DataType::LargeUtf8 => a.as_string::<i64>().value(i).as_bytes(),
                    DataType::Utf8View => a.as_string_view().value(i).as_bytes(),
                    DataType::Binary => a.as_binary::<i32>().value(i),
                    DataType::LargeBinary => a.as_binary::<i64>().value(i),
                    _ => a.as_binary_view().value(i),
                }
            };
            let mut offsets = Vec::with_capacity(len + 1);
            let mut data = Vec::new();
            offsets.push(0);
            for i in 0..len {
                if a.is_valid(i) {
                    data.extend_from_slice(get(i));
                }
                offsets.push(data.len() as i32);
            }
            OwnedData::Bin(offsets, data)
        }
        (PhysicalType::Int96, _) => {
            let ts = a.as_primitive::<TimestampNanosecondType>();
            let mut data = Vec::with_capacity(len * 12);
            for &ns in ts.values().iter() {
                let day = ns.div_euclid(86_400_000_000_000);
                let nanos = ns.rem_euclid(86_400_000_000_000);
                data.extend_from_slice(&nanos.to_le_bytes());
                data.extend_from_slice(&((day + 2_440_588) as u32).to_le_bytes());
            }
            OwnedData::Fixed(12, data)
        }
        (PhysicalType::FixedLenByteArray(w), DataType::FixedSizeBinary(_)) => {
            let b = a.as_fixed_size_binary();
            let mut data = Vec::with_capacity(len * w);
            for i in 0..len {
                data.extend_from_slice(b.value(i));
            }
            OwnedData::Fixed(w, data)
        }
        (PhysicalType::FixedLenByteArray(w), _) => {
            let mut data = Vec::with_capacity(len * w);
            for i in 0..len {
                data.extend_from_slice(&decimal_value(a.as_ref(), i).to_be_bytes()[16 - w..]);
            }
            OwnedData::Fixed(w, data)
        }
    };
    OwnedColumn {
        validity,
        data,
        levels: None,
    }
}

pub fn run(args: &[String]) -> Result<(), String> {
    let mut pos = Vec::new();
    let mut opts = WriterOptions::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--codec" => {
                let c = it.next().ok_or("--codec needs a value")?;
                opts.codec = Codec::parse(c).map_err(|e| e.to_string())?;
            }
            "--row-group-size" => {
                let v = it.next().ok_or("--row-group-size needs a value")?;
                opts.row_group_size = v
                    .parse()
                    .map_err(|_| format!("bad --row-group-size '{v}'"))?;
            }
            "--no-dictionary" => opts.dictionary_enabled = false,
            s if s.starts_with("--") => return Err(format!("unknown option {s}")),
            _ => pos.push(a.clone()),
        }
    }
    let [input, output] = pos.as_slice() else {
        return Err("rewrite needs IN and OUT".into());
    };
    let file = std::fs::File::open(input).map_err(|e| format!("{input}: {e}"))?;
    let builder =
        ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| format!("{input}: {e}"))?;
    let kv: Vec<(String, String)> = builder
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .into_iter()
        .flatten()
        .filter(|kv| kv.key != "ARROW:schema")
        .map(|kv| (kv.key.clone(), kv.value.clone().unwrap_or_default()))
        .collect();
    opts.key_value_metadata = kv;
    let arrow_schema = builder.schema().clone();
    let fields = arrow_schema
        .fields()
        .iter()
        .map(|f| field_for(f))
        .collect::<Result<Vec<_>, _>>()?;
    let root = builder
        .metadata()
        .file_metadata()
        .schema_descr()
        .name()
        .to_string();
    let schema = Schema::with_root_name(root, fields.clone()).map_err(|e| e.to_string())?;
    let reader = builder
        .with_batch_size(65_536)
        .build()
        .map_err(|e| e.to_string())?;
    let out = std::fs::File::create(output).map_err(|e| format!("{output}: {e}"))?;
    let mut w =
        FileWriter::new(std::io::BufWriter::new(out), schema, opts).map_err(|e| e.to_string())?;
    for batch in reader {
        let batch: RecordBatch = batch.map_err(|e| e.to_string())?;
        let bufs: Vec<_> = fields
            .iter()
            .zip(batch.columns())
            .map(|(f, a)| buffers(f, a))
            .collect();
        let cols = bufs.iter().map(OwnedColumn::view).collect();
        w.write_batch(&Batch {
            num_rows: batch.num_rows(),
            columns: cols,
        })
        .map_err(|e| e.to_string())?;
    }
    let s = w.close().map_err(|e| e.to_string())?;
    println!(
        "wrote {output}: {} rows, {} row groups, {} bytes",
        s.num_rows,
        s.row_groups.len(),
        s.file_size
    );
    Ok(())
}
