//! Benchmark tables and our write of them, shared by the criterion benchmark and the
//! profiling example: TPC-DS `store_sales` (dsdgen data or a synthetic table of the same
//! shape) and a string-heavy customer table.

use arrow_array::{
    Array, ArrayRef, Decimal128Array, Int32Array, Int64Array, RecordBatch, StringArray,
};
use arrow_schema::DataType;
use std::sync::Arc;
use vecruntime_parquet::*;

const BATCH: usize = 65_536;
pub const ROWS: usize = 1_048_576;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
}

fn maybe_null(rng: &mut Rng, pct: u64) -> bool {
    rng.next() % 1000 < pct
}

/// Synthetic store_sales: value ranges of dsdgen at scale factor 1, ~4.5% nulls.
pub fn synthetic_store_sales(n: usize) -> RecordBatch {
    let mut rng = Rng(42);
    let keys: [(&str, i64, i64, bool); 9] = [
        ("ss_sold_date_sk", 2_450_816, 2_452_642, true),
        ("ss_sold_time_sk", 28_800, 75_599, true),
        ("ss_item_sk", 1, 18_000, false),
        ("ss_customer_sk", 1, 100_000, true),
        ("ss_cdemo_sk", 1, 1_920_800, true),
        ("ss_hdemo_sk", 1, 7_200, true),
        ("ss_addr_sk", 1, 50_000, true),
        ("ss_store_sk", 1, 12, true),
        ("ss_promo_sk", 1, 300, true),
    ];
    let mut fields = Vec::new();
    let mut cols: Vec<ArrayRef> = Vec::new();
    // Rows come grouped by ticket (about 10 line items each): date, time, customer repeat.
    let mut ticket = 1i64;
    let mut ticket_rows: Vec<i64> = Vec::with_capacity(n);
    let mut left = 0;
    for _ in 0..n {
        if left == 0 {
            ticket += 1;
            left = rng.range(1, 20);
        }
        left -= 1;
        ticket_rows.push(ticket);
    }
    for (name, lo, hi, nullable) in keys {
        let per_ticket = matches!(
            name,
            "ss_sold_date_sk"
                | "ss_sold_time_sk"
                | "ss_customer_sk"
                | "ss_cdemo_sk"
                | "ss_hdemo_sk"
                | "ss_addr_sk"
                | "ss_store_sk"
        );
        let mut last = (0, 0);
        let vals: Int32Array = ticket_rows
            .iter()
            .map(|&t| {
                if nullable && maybe_null(&mut rng, 45) {
                    return None;
                }
                if per_ticket {
                    if last.0 != t {
                        last = (t, rng.range(lo, hi));
                    }
                    Some(last.1 as i32)
                } else {
                    Some(rng.range(lo, hi) as i32)
                }
            })
            .collect();
        fields.push(arrow_schema::Field::new(name, DataType::Int32, nullable));
        cols.push(Arc::new(vals));
    }
    fields.push(arrow_schema::Field::new(
        "ss_ticket_number",
        DataType::Int64,
        false,
    ));
    cols.push(Arc::new(Int64Array::from(ticket_rows.clone())));
    fields.push(arrow_schema::Field::new(
        "ss_quantity",
        DataType::Int32,
        true,
    ));
    cols.push(Arc::new(
        (0..n)
            .map(|_| (!maybe_null(&mut rng, 45)).then(|| rng.range(1, 100) as i32))
            .collect::<Int32Array>(),
    ));
    for name in [
        "ss_wholesale_cost",
        "ss_list_price",
        "ss_sales_price",
        "ss_ext_discount_amt",
        "ss_ext_sales_price",
        "ss_ext_wholesale_cost",
        "ss_ext_list_price",
        "ss_ext_tax",
        "ss_coupon_amt",
        "ss_net_paid",
        "ss_net_paid_inc_tax",
        "ss_net_profit",
    ] {
        let hi = if name.starts_with("ss_ext") || name.starts_with("ss_net") {
            2_000_000
        } else {
            20_000
        };
        let lo = if name == "ss_net_profit" {
            -1_000_000
        } else {
            0
        };
        let a: Decimal128Array = (0..n)
            .map(|_| (!maybe_null(&mut rng, 45)).then(|| rng.range(lo, hi) as i128))
            .collect::<Decimal128Array>()
            .with_precision_and_scale(7, 2)
            .unwrap();
        fields.push(arrow_schema::Field::new(
            name,
            DataType::Decimal128(7, 2),
            true,
        ));
        cols.push(Arc::new(a));
    }
    RecordBatch::try_new(Arc::new(arrow_schema::Schema::new(fields)), cols).unwrap()
}

/// dsdgen's store_sales written by benchmarks/tpcds.py, if present: the first `n` rows.
pub fn real_store_sales(n: usize) -> Option<RecordBatch> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../benchmarks/data/store_sales.parquet"
    );
    let file = std::fs::File::open(path).ok()?;
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .ok()?
        .with_batch_size(n)
        .build()
        .ok()?;
    let batches: Vec<RecordBatch> = reader.take(1).collect::<std::result::Result<_, _>>().ok()?;
    let b = batches.into_iter().next()?;
    // arrow-rs reads DECIMAL(7,2) stored as INT32 back as Decimal128 or Decimal32; normalise.
    let cols = b
        .columns()
        .iter()
        .map(|c| match c.data_type() {
            DataType::Decimal32(p, s) => {
                let a = c
                    .as_any()
                    .downcast_ref::<arrow_array::Decimal32Array>()
                    .unwrap();
                Arc::new(
                    a.iter()
                        .map(|v| v.map(|x| x as i128))
                        .collect::<Decimal128Array>()
                        .with_precision_and_scale(*p, *s)
                        .unwrap(),
                ) as ArrayRef
            }
            _ => c.clone(),
        })
        .collect::<Vec<_>>();
    let fields: Vec<arrow_schema::Field> = b
        .schema()
        .fields()
        .iter()
        .zip(&cols)
        .map(|(f, c)| arrow_schema::Field::new(f.name(), c.data_type().clone(), true))
        .collect();
    eprintln!(
        "store_sales: {} rows of dsdgen data from {path}",
        b.num_rows()
    );
    Some(RecordBatch::try_new(Arc::new(arrow_schema::Schema::new(fields)), cols).unwrap())
}

pub fn string_table(n: usize) -> RecordBatch {
    let mut rng = Rng(7);
    let first = [
        "James",
        "Mary",
        "Robert",
        "Patricia",
        "John",
        "Jennifer",
        "Michael",
        "Linda",
        "David",
        "Elizabeth",
    ];
    let states = [
        "CA", "TX", "NY", "FL", "IL", "PA", "OH", "GA", "NC", "MI", "WA", "AZ",
    ];
    let mut cols: Vec<ArrayRef> = Vec::new();
    let mut fields = Vec::new();
    fields.push(arrow_schema::Field::new(
        "c_customer_sk",
        DataType::Int64,
        false,
    ));
    cols.push(Arc::new(Int64Array::from_iter_values(0..n as i64)));
    let mut add = |name: &str, f: &mut dyn FnMut(&mut Rng, usize) -> Option<String>| {
        let a: StringArray = (0..n).map(|i| f(&mut rng, i)).collect();
        fields.push(arrow_schema::Field::new(name, DataType::Utf8, true));
        cols.push(Arc::new(a));
    };
    add("c_customer_id", &mut |_, i| {
        Some(format!("AAAAAAAA{:08X}", i.wrapping_mul(2654435761) as u32))
    });
    add("c_first_name", &mut |r, _| {
        (r.next() % 30 != 0).then(|| first[(r.next() % 10) as usize].to_string())
    });
    add("c_email", &mut |r, i| {
        Some(format!(
            "{}.{}@{}.example.org",
            first[(r.next() % 10) as usize],
            i,
            ["mail", "post", "inbox"][(r.next() % 3) as usize]
        ))
    });
    add("c_street", &mut |r, _| {
        Some(format!(
            "{} {} Street, Suite {}",
            r.next() % 1000,
            first[(r.next() % 10) as usize],
            r.next() % 500
        ))
    });
    add("c_state", &mut |r, _| {
        (r.next() % 20 != 0).then(|| states[(r.next() % 12) as usize].to_string())
    });
    add("c_comment", &mut |r, _| {
        Some(
            (0..(r.next() % 12))
                .map(|_| format!("w{:x}", r.next() % 4096))
                .collect::<Vec<_>>()
                .join(" "),
        )
    });
    RecordBatch::try_new(Arc::new(arrow_schema::Schema::new(fields)), cols).unwrap()
}

/// Our schema and column views over the very same arrow buffers.
pub fn our_schema(b: &RecordBatch) -> Schema {
    Schema::new(
        b.schema()
            .fields()
            .iter()
            .map(|f| match f.data_type() {
                DataType::Int32 => Field::new(f.name(), PhysicalType::Int32, f.is_nullable()),
                DataType::Int64 => Field::new(f.name(), PhysicalType::Int64, f.is_nullable()),
                DataType::Decimal128(p, s) => {
                    Field::decimal(f.name(), *p as u32, *s as u32, f.is_nullable())
                }
                DataType::Utf8 => Field::new(f.name(), PhysicalType::ByteArray, f.is_nullable())
                    .with_logical(LogicalType::String),
                t => panic!("{t}"),
            })
            .collect(),
    )
    .unwrap()
}

/// Decimal(7,2) is INT32 in Parquet: the i32 buffers are made once, outside the timing.
pub struct Prepared {
    pub batches: Vec<RecordBatch>,
    decimals: Vec<Vec<Option<Vec<i32>>>>,
}

pub fn prepare(b: &RecordBatch) -> Prepared {
    let batches: Vec<RecordBatch> = (0..b.num_rows())
        .step_by(BATCH)
        .map(|s| b.slice(s, BATCH.min(b.num_rows() - s)))
        .collect();
    let decimals = batches
        .iter()
        .map(|b| {
            b.columns()
                .iter()
                .map(|c| {
                    c.as_any()
                        .downcast_ref::<Decimal128Array>()
                        .map(|d| d.values().iter().map(|&v| v as i32).collect())
                })
                .collect()
        })
        .collect();
    Prepared { batches, decimals }
}

pub fn write_ours(schema: &Schema, p: &Prepared, options: WriterOptions) -> u64 {
    write_open(schema, p, options, false)
        .close()
        .unwrap()
        .file_size
}

/// A file with `p`'s rows written to it, still open (not closed); with `among_many`, set up as
/// the plugin sets up each of the many files of a partitioned or bucketed write.
pub fn write_open(
    schema: &Schema,
    p: &Prepared,
    options: WriterOptions,
    among_many: bool,
) -> FileWriter<std::io::Sink> {
    let mut w = FileWriter::new(std::io::sink(), schema.clone(), options).unwrap();
    if among_many {
        w.release_abandoned_dictionaries();
    }
    let mut validity: Vec<Option<Vec<u8>>> = Vec::new();
    for (b, decs) in p.batches.iter().zip(&p.decimals) {
        // Sliced arrow bitmaps can start mid-byte; copy those (not the case for 64 Ki slices).
        validity.clear();
        for c in b.columns() {
            validity.push(
                c.nulls()
                    .filter(|n| n.null_count() > 0 && n.offset() % 8 != 0)
                    .map(|n| {
                        let mut out = vec![0u8; n.len().div_ceil(8)];
                        for i in 0..n.len() {
                            if n.is_valid(i) {
                                out[i / 8] |= 1 << (i % 8);
                            }
                        }
                        out
                    }),
            );
        }
        let cols = b
            .columns()
            .iter()
            .zip(decs)
            .zip(&validity)
            .map(|((c, dec), copied)| {
                let valid = match (copied, c.nulls().filter(|n| n.null_count() > 0)) {
                    (Some(v), _) => Some(v.as_slice()),
                    (None, Some(n)) => Some(&n.validity()[n.offset() / 8..]),
                    (None, None) => None,
                };
                let data = if let Some(d) = dec {
                    ColumnData::Int32(d)
                } else if let Some(a) = c.as_any().downcast_ref::<Int32Array>() {
                    ColumnData::Int32(a.values())
                } else if let Some(a) = c.as_any().downcast_ref::<Int64Array>() {
                    ColumnData::Int64(a.values())
                } else {
                    let s = c.as_any().downcast_ref::<StringArray>().unwrap();
                    ColumnData::Binary {
                        offsets: s.value_offsets(),
                        data: s.value_data(),
                    }
                };
                ColumnView::new(data).with_validity(valid)
            })
            .collect();
        w.write_batch(&Batch {
            num_rows: b.num_rows(),
            columns: cols,
        })
        .unwrap();
    }
    w
}

/// The store_sales table of `n` rows: dsdgen data when present, else synthetic.
pub fn store_sales(n: usize) -> RecordBatch {
    real_store_sales(n).unwrap_or_else(|| {
        eprintln!(
            "store_sales: synthetic data ({n} rows); run benchmarks/tpcds.sh for dsdgen data"
        );
        synthetic_store_sales(n)
    })
}
