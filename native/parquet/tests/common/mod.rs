#![allow(clippy::needless_range_loop)]
//! Shared test support: owned column data, a seeded generator, and reading files back with the
//! arrow-rs `parquet` crate (an independent reader) into comparable values.
#![allow(dead_code)]

use arrow_array::{cast::AsArray, types::*, Array, RecordBatch};
use arrow_schema::{DataType, TimeUnit as ATimeUnit};
use bytes::Bytes;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use vecruntime_parquet::*;

/// xorshift64*: deterministic test data without a dependency.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A value as every reader can report it.
#[derive(Clone, Debug, PartialEq, PartialOrd)]
pub enum V {
    I(i128),
    F(u64),
    B(Vec<u8>),
}

pub use vecruntime_parquet::column::{OwnedColumn, OwnedData as Owned};

/// What a reader should return for a row of a column we wrote.
pub trait Expected {
    fn expected(&self, field: &Field, i: usize) -> Option<V>;
}

impl Expected for OwnedColumn {
    /// Row `i` as the reader should return it for `field`.
    fn expected(&self, field: &Field, i: usize) -> Option<V> {
        if !self.is_valid(i) {
            return None;
        }
        Some(match &self.data {
            Owned::Bool(b) => V::I((b[i / 8] >> (i % 8) & 1) as i128),
            Owned::I32(v) => V::I(v[i] as i128),
            Owned::I64(v) => V::I(v[i] as i128),
            Owned::F32(v) => V::F(v[i].to_bits() as u64),
            Owned::F64(v) => V::F(v[i].to_bits()),
            Owned::Bin(o, d) => V::B(d[o[i] as usize..o[i + 1] as usize].to_vec()),
            Owned::Fixed(w, d) => {
                let b = &d[i * w..(i + 1) * w];
                if field.physical == PhysicalType::Int96 {
                    let nanos = i64::from_le_bytes(b[..8].try_into().unwrap());
                    let day = u32::from_le_bytes(b[8..].try_into().unwrap()) as i64;
                    V::I(((day - 2_440_588) * 86_400_000_000_000 + nanos) as i128)
                } else {
                    V::I(be_to_i128(b))
                }
            }
        })
    }
}

pub fn be_to_i128(b: &[u8]) -> i128 {
    let mut v: i128 = if b[0] & 0x80 != 0 { -1 } else { 0 };
    for &x in b {
        v = (v << 8) | x as i128;
    }
    v
}

pub fn i128_to_be(v: i128, w: usize) -> Vec<u8> {
    v.to_be_bytes()[16 - w..].to_vec()
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Nulls {
    None,
    Some,
    All,
}

/// Kinds of generated data: how many distinct values a column draws from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Card {
    /// A few distinct values: stays dictionary-encoded.
    Low,
    /// Low cardinality for the first `n` rows, then unique values: the dictionary overflows
    /// mid-chunk when its page size is small.
    LowThenUnique(usize),
    Unique,
}

/// Generates `n` rows of a column of `field`.
pub fn generate(field: &Field, n: usize, nulls: Nulls, card: Card, rng: &mut Rng) -> OwnedColumn {
    let pick = |rng: &mut Rng, i: usize| -> u64 {
        let low = match card {
            Card::Low => true,
            Card::LowThenUnique(k) => i < k,
            Card::Unique => false,
        };
        if low {
            rng.below(7)
        } else {
            rng.next()
        }
    };
    let validity = match nulls {
        Nulls::None => None,
        Nulls::Some => Some(
            (0..n.div_ceil(8))
                .map(|_| (rng.next() as u8) | 0x11)
                .collect(),
        ),
        Nulls::All => Some(vec![0u8; n.div_ceil(8)]),
    };
    let data = match field.physical {
        PhysicalType::Boolean => {
            Owned::Bool((0..n.div_ceil(8)).map(|_| rng.next() as u8).collect())
        }
        PhysicalType::Int32 => Owned::I32(
            (0..n)
                .map(|i| {
                    let r = pick(rng, i);
                    match field.logical {
                        Some(LogicalType::Int { bit_width: 8 }) => (r as i8) as i32,
                        Some(LogicalType::Int { bit_width: 16 }) => (r as i16) as i32,
                        Some(LogicalType::Decimal { precision, .. }) => {
                            (r % 10u64.pow(precision)) as i32 * if r & 1 == 0 { -1 } else { 1 }
                        }
                        Some(LogicalType::Date) => (r % 100_000) as i32 - 50_000,
                        _ => r as i32,
                    }
                })
                .collect(),
        ),
        PhysicalType::Int64 => Owned::I64(
            (0..n)
                .map(|i| {
                    let r = pick(rng, i);
                    match field.logical {
                        Some(LogicalType::Decimal { precision, .. }) => {
                            (r % 10u64.pow(precision)) as i64 * if r & 1 == 0 { -1 } else { 1 }
                        }
                        Some(LogicalType::Timestamp { .. }) => (r % (1 << 52)) as i64 - (1 << 51),
                        _ => r as i64,
                    }
                })
                .collect(),
        ),
        PhysicalType::Float => Owned::F32(
            (0..n)
                .map(|i| match pick(rng, i) {
                    0 => -0.0,
                    1 => 0.0,
                    r => (r as i64 as f64 / 3.7e15) as f32,
                })
                .collect(),
        ),
        PhysicalType::Double => Owned::F64(
            (0..n)
                .map(|i| match pick(rng, i) {
                    0 => f64::INFINITY,
                    1 => -1.5,
                    r => r as i64 as f64 / 1.3e12,
                })
                .collect(),
        ),
        PhysicalType::ByteArray => {
            let mut offsets = vec![0i32];
            let mut data = Vec::new();
            for i in 0..n {
                let r = pick(rng, i);
                let s = if r % 5 == 0 {
                    String::new()
                } else {
                    format!("v{r}-é✓-{}", "x".repeat((r % 30) as usize))
                };
                data.extend_from_slice(s.as_bytes());
                offsets.push(data.len() as i32);
            }
            Owned::Bin(offsets, data)
        }
        PhysicalType::FixedLenByteArray(w) => {
            let mut data = Vec::new();
            let digits = match field.logical {
                Some(LogicalType::Decimal { precision, .. }) => precision,
                _ => 18,
            };
            let modulus = 10i128.pow(digits.min(38));
            for i in 0..n {
                let p = pick(rng, i);
                let sign = if i % 3 == 0 { -1 } else { 1 };
                let v = if p < 7 {
                    p as i128 * sign
                } else {
                    (p as i128).wrapping_mul(rng.next() as i128 | 1) % modulus * sign
                };
                data.extend_from_slice(&i128_to_be(v, w));
            }
            Owned::Fixed(w, data)
        }
        PhysicalType::Int96 => {
            let mut data = Vec::new();
            for i in 0..n {
                let r = pick(rng, i);
                let nanos = (r % 86_400_000_000_000) as i64;
                let day = 2_440_588 + (r % 40_000) as u32 - 20_000;
                data.extend_from_slice(&nanos.to_le_bytes());
                data.extend_from_slice(&day.to_le_bytes());
            }
            Owned::Fixed(12, data)
        }
    };
    OwnedColumn {
        validity,
        data,
        levels: None,
    }
}

/// Every flat type Spark writes.
pub fn all_fields() -> Vec<Field> {
    use LogicalType as L;
    use PhysicalType as P;
    vec![
        Field::new("bool", P::Boolean, true),
        Field::new("byte", P::Int32, true).with_logical(L::Int { bit_width: 8 }),
        Field::new("short", P::Int32, true).with_logical(L::Int { bit_width: 16 }),
        Field::new("int", P::Int32, true),
        Field::new("date", P::Int32, true).with_logical(L::Date),
        Field::decimal("dec9", 9, 2, true),
        Field::new("long", P::Int64, true),
        Field::new("ts_micros", P::Int64, true).with_logical(L::Timestamp {
            unit: TimeUnit::Micros,
            adjusted_to_utc: true,
        }),
        Field::new("ts_millis_ntz", P::Int64, true).with_logical(L::Timestamp {
            unit: TimeUnit::Millis,
            adjusted_to_utc: false,
        }),
        Field::decimal("dec18", 18, 3, true),
        Field::new("float", P::Float, true),
        Field::new("double", P::Double, true),
        Field::new("string", P::ByteArray, true).with_logical(L::String),
        Field::new("binary", P::ByteArray, true),
        Field::decimal("dec38", 38, 10, true),
        Field::decimal("dec20", 20, 2, true),
        Field::new("int96", P::Int96, true),
    ]
}

pub fn write_file(
    schema: &Schema,
    opts: &WriterOptions,
    batches: &[Vec<OwnedColumn>],
    rows: &[usize],
) -> (Vec<u8>, FooterSummary) {
    let mut out = Vec::new();
    let mut w = FileWriter::new(&mut out, schema.clone(), opts.clone()).unwrap();
    for (cols, &n) in batches.iter().zip(rows) {
        w.write_batch(&Batch {
            num_rows: n,
            columns: cols.iter().map(|c| c.view()).collect(),
        })
        .unwrap();
    }
    let s = w.close().unwrap();
    (out, s)
}

/// Canonical value of row `i` of an arrow array.
pub fn canon(a: &dyn Array, i: usize) -> Option<V> {
    if a.is_null(i) {
        return None;
    }
    Some(match a.data_type() {
        DataType::Boolean => V::I(a.as_boolean().value(i) as i128),
        DataType::Int8 => V::I(a.as_primitive::<Int8Type>().value(i) as i128),
        DataType::Int16 => V::I(a.as_primitive::<Int16Type>().value(i) as i128),
        DataType::Int32 => V::I(a.as_primitive::<Int32Type>().value(i) as i128),
        DataType::Int64 => V::I(a.as_primitive::<Int64Type>().value(i) as i128),
        DataType::Date32 => V::I(a.as_primitive::<Date32Type>().value(i) as i128),
        DataType::Timestamp(ATimeUnit::Millisecond, _) => {
            V::I(a.as_primitive::<TimestampMillisecondType>().value(i) as i128)
        }
        DataType::Timestamp(ATimeUnit::Microsecond, _) => {
            V::I(a.as_primitive::<TimestampMicrosecondType>().value(i) as i128)
        }
        DataType::Timestamp(ATimeUnit::Nanosecond, _) => {
            V::I(a.as_primitive::<TimestampNanosecondType>().value(i) as i128)
        }
        DataType::Decimal128(_, _) => V::I(a.as_primitive::<Decimal128Type>().value(i)),
        DataType::Decimal32(_, _) => V::I(a.as_primitive::<Decimal32Type>().value(i) as i128),
        DataType::Decimal64(_, _) => V::I(a.as_primitive::<Decimal64Type>().value(i) as i128),
        DataType::Float32 => V::F(a.as_primitive::<Float32Type>().value(i).to_bits() as u64),
        DataType::Float64 => V::F(a.as_primitive::<Float64Type>().value(i).to_bits()),
        DataType::Utf8 => V::B(a.as_string::<i32>().value(i).as_bytes().to_vec()),
        DataType::Binary => V::B(a.as_binary::<i32>().value(i).to_vec()),
        DataType::FixedSizeBinary(_) => V::B(a.as_fixed_size_binary().value(i).to_vec()),
        other => panic!("unexpected arrow type {other}"),
    })
}

/// Reads a whole file with arrow-rs; returns the column arrays concatenated over batches.
pub fn read_back(file: &[u8]) -> Vec<Vec<Option<V>>> {
    let reader = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(file.to_vec()))
        .unwrap()
        .with_batch_size(4096)
        .build()
        .unwrap();
    let mut cols: Vec<Vec<Option<V>>> = Vec::new();
    for b in reader {
        let b: RecordBatch = b.unwrap();
        if cols.is_empty() {
            cols = vec![Vec::new(); b.num_columns()];
        }
        for (c, out) in cols.iter_mut().enumerate() {
            let a = b.column(c);
            for i in 0..a.len() {
                out.push(canon(a.as_ref(), i));
            }
        }
    }
    cols
}

pub fn metadata(file: &[u8]) -> parquet::file::metadata::ParquetMetaData {
    parquet::file::metadata::ParquetMetaDataReader::new()
        .with_page_index_policy(parquet::file::metadata::PageIndexPolicy::Optional)
        .with_metadata_options(Some(
            parquet::file::metadata::ParquetMetaDataOptions::new()
                .with_encoding_stats_as_mask(false),
        ))
        .parse_and_finish(&Bytes::from(file.to_vec()))
        .unwrap()
}

/// Plain-encoded min/max of rows `range`, computed independently of the writer: floats with
/// -0.0/+0.0 widened, none at all when a NaN is among them.
pub fn expected_min_max(
    field: &Field,
    col: &OwnedColumn,
    range: std::ops::Range<usize>,
) -> Option<(Vec<u8>, Vec<u8>)> {
    let rows: Vec<usize> = range.filter(|&i| col.is_valid(i)).collect();
    match &col.data {
        Owned::Bool(b) => {
            let vals: Vec<u8> = rows.iter().map(|&i| b[i / 8] >> (i % 8) & 1).collect();
            Some((vec![*vals.iter().min()?], vec![*vals.iter().max()?]))
        }
        Owned::I32(v) => {
            let it = rows.iter().map(|&i| v[i]);
            Some((
                it.clone().min()?.to_le_bytes().to_vec(),
                it.max()?.to_le_bytes().to_vec(),
            ))
        }
        Owned::I64(v) => {
            let it = rows.iter().map(|&i| v[i]);
            Some((
                it.clone().min()?.to_le_bytes().to_vec(),
                it.max()?.to_le_bytes().to_vec(),
            ))
        }
        Owned::F32(v) => {
            // A NaN anywhere leaves the chunk without min/max (parquet-java 1.17).
            if rows.iter().any(|&i| v[i].is_nan()) {
                return None;
            }
            let vals: Vec<f32> = rows.iter().map(|&i| v[i]).collect();
            let min = vals
                .iter()
                .cloned()
                .fold(None, |a: Option<f32>, x| Some(a.map_or(x, |a| a.min(x))))?;
            let max = vals
                .iter()
                .cloned()
                .fold(None, |a: Option<f32>, x| Some(a.map_or(x, |a| a.max(x))))?;
            let min = if min == 0.0 { -0.0f32 } else { min };
            let max = if max == 0.0 { 0.0f32 } else { max };
            Some((min.to_le_bytes().to_vec(), max.to_le_bytes().to_vec()))
        }
        Owned::F64(v) => {
            // A NaN anywhere leaves the chunk without min/max (parquet-java 1.17).
            if rows.iter().any(|&i| v[i].is_nan()) {
                return None;
            }
            let vals: Vec<f64> = rows.iter().map(|&i| v[i]).collect();
            let min = vals
                .iter()
                .cloned()
                .fold(None, |a: Option<f64>, x| Some(a.map_or(x, |a| a.min(x))))?;
            let max = vals
                .iter()
                .cloned()
                .fold(None, |a: Option<f64>, x| Some(a.map_or(x, |a| a.max(x))))?;
            let min = if min == 0.0 { -0.0f64 } else { min };
            let max = if max == 0.0 { 0.0f64 } else { max };
            Some((min.to_le_bytes().to_vec(), max.to_le_bytes().to_vec()))
        }
        Owned::Bin(o, d) => {
            let it = rows.iter().map(|&i| &d[o[i] as usize..o[i + 1] as usize]);
            Some((it.clone().min()?.to_vec(), it.max()?.to_vec()))
        }
        Owned::Fixed(w, d) => {
            if field.physical == PhysicalType::Int96 {
                return None;
            }
            let it = rows.iter().map(|&i| &d[i * w..(i + 1) * w]);
            let min = it.clone().min_by_key(|b| be_to_i128(b))?;
            let max = it.max_by_key(|b| be_to_i128(b))?;
            Some((min.to_vec(), max.to_vec()))
        }
    }
}

pub fn check_file(fields: &[Field], cols: &[OwnedColumn], n: usize, file: &[u8], what: &str) {
    let read = read_back(file);
    assert_eq!(read.len(), fields.len(), "{what}");
    for (c, f) in fields.iter().enumerate() {
        assert_eq!(read[c].len(), n, "{what} {}", f.name);
        for i in 0..n {
            assert_eq!(
                read[c][i],
                cols[c].expected(f, i),
                "{what}: column {} row {i}",
                f.name
            );
        }
    }
    // Chunk statistics through arrow-rs, per row group.
    let md = metadata(file);
    let mut first = 0usize;
    for rg in md.row_groups() {
        let range = first..first + rg.num_rows() as usize;
        for (c, f) in fields.iter().enumerate() {
            let cc = rg.column(c);
            let st: &parquet::file::statistics::Statistics =
                cc.statistics().expect("statistics written");
            let nulls = range.clone().filter(|&i| !cols[c].is_valid(i)).count() as u64;
            assert_eq!(
                st.null_count_opt(),
                Some(nulls),
                "{what}: null count of {}",
                f.name
            );
            let exp = expected_min_max(f, &cols[c], range.clone());
            let got = st
                .min_bytes_opt()
                .map(|m| (m.to_vec(), st.max_bytes_opt().unwrap().to_vec()));
            assert_eq!(got, exp, "{what}: min/max of {}", f.name);
        }
        first = range.end;
    }
}
