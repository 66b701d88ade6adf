//! Writes dsdgen store_sales (benchmarks/data/store_sales.parquet) a few times, for profilers:
//!     cargo build --release --example profile_write && perf record target/release/examples/profile_write
use arrow_array::{Array, Decimal128Array, Int32Array, Int64Array};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use vecruntime_parquet::*;

/// One column of one batch: validity and INT32 (Ok) or INT64 (Err) values.
type Column = (Option<Vec<u8>>, std::result::Result<Vec<i32>, Vec<i64>>);

fn main() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../benchmarks/data/store_sales.parquet"
    );
    let file = std::fs::File::open(path).expect("run benchmarks/tpcds.py first");
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .with_batch_size(65_536)
        .build()
        .unwrap();
    let batches: Vec<_> = reader.take(16).map(|b| b.unwrap()).collect();
    let mut fields = Vec::new();
    for f in batches[0].schema().fields() {
        fields.push(match f.data_type() {
            arrow_schema::DataType::Int32 => Field::new(f.name(), PhysicalType::Int32, true),
            arrow_schema::DataType::Int64 => Field::new(f.name(), PhysicalType::Int64, true),
            _ => Field::decimal(f.name(), 7, 2, true),
        });
    }
    let schema = Schema::new(fields).unwrap();
    let cols: Vec<Vec<Column>> = batches
        .iter()
        .map(|b| {
            b.columns()
                .iter()
                .map(|c| {
                    let v = c.nulls().map(|n| {
                        let mut out = vec![0u8; n.len().div_ceil(8)];
                        (0..n.len())
                            .filter(|&i| n.is_valid(i))
                            .for_each(|i| out[i / 8] |= 1 << (i % 8));
                        out
                    });
                    let d = if let Some(a) = c.as_any().downcast_ref::<Int32Array>() {
                        Ok(a.values().to_vec())
                    } else if let Some(a) = c.as_any().downcast_ref::<Int64Array>() {
                        Err(a.values().to_vec())
                    } else if let Some(a) = c.as_any().downcast_ref::<Decimal128Array>() {
                        Ok(a.values().iter().map(|&x| x as i32).collect())
                    } else {
                        let a = c
                            .as_any()
                            .downcast_ref::<arrow_array::Decimal32Array>()
                            .unwrap();
                        Ok(a.values().to_vec())
                    };
                    (v, d)
                })
                .collect()
        })
        .collect();
    let iters: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5);
    let t = std::time::Instant::now();
    for _ in 0..iters {
        let mut w =
            FileWriter::new(std::io::sink(), schema.clone(), WriterOptions::default()).unwrap();
        for (b, batch) in cols.iter().zip(&batches) {
            let views = b
                .iter()
                .map(|(v, d)| ColumnView {
                    validity: v.as_deref(),
                    data: match d {
                        Ok(x) => ColumnData::Int32(x),
                        Err(x) => ColumnData::Int64(x),
                    },
                })
                .collect();
            w.write_batch(&Batch {
                num_rows: batch.num_rows(),
                columns: views,
            })
            .unwrap();
        }
        w.close().unwrap();
    }
    let rows = batches.iter().map(|b| b.num_rows()).sum::<usize>() * iters;
    eprintln!(
        "{:.1} ns/row, {:.2} Mrows/s",
        t.elapsed().as_nanos() as f64 / rows as f64,
        rows as f64 / t.elapsed().as_secs_f64() / 1e6
    );
}
