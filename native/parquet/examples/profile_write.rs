//! Writes one benchmark table a few times with our writer, for profilers:
//!     cargo build --release --example profile_write
//!     perf record target/release/examples/profile_write [store_sales|strings] [iterations] [codec]
//! store_sales is dsdgen data when benchmarks/data/store_sales.parquet exists (as in the
//! criterion benchmark), the strings table the benchmark's. `VECRUNTIME_PER_COLUMN=1` also
//! times each column written alone (`=name`: only that column).
#[path = "../benches/tables/mod.rs"]
mod tables;

use vecruntime_parquet::{Codec, WriterOptions};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let table = match args.get(1).map(String::as_str).unwrap_or("store_sales") {
        "strings" => tables::string_table(tables::ROWS / 2),
        "store_sales" => tables::store_sales(tables::ROWS),
        other => panic!("unknown table {other}: store_sales or strings"),
    };
    let iters: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(5);
    let codec = match args.get(3).map(String::as_str).unwrap_or("none") {
        "none" => Codec::Uncompressed,
        "snappy" => Codec::Snappy,
        "zstd" => Codec::Zstd(3),
        other => panic!("unknown codec {other}: none, snappy or zstd"),
    };
    let options = WriterOptions {
        codec,
        ..Default::default()
    };
    if let Ok(only) = std::env::var("VECRUNTIME_PER_COLUMN") {
        // Each column alone. A narrow column is under a byte a row, and then parquet-java's
        // row-group check (which the writer keeps) runs on every row; checks every 10,000 rows
        // here, so the figure is the column's encoding cost.
        let alone = WriterOptions {
            min_row_count_for_size_check: i32::MAX as usize,
            ..options.clone()
        };
        for (i, f) in table.schema().fields().iter().enumerate() {
            if only != "1" && only != *f.name() {
                continue;
            }
            let one = table.project(&[i]).expect("column");
            let (bytes, ns) = time_writes(&one, iters, alone.clone());
            eprintln!("{:>24} {ns:6.1} ns/row {bytes:>10} bytes", f.name());
        }
        if only != "1" {
            return;
        }
    }
    if let Some(rows) = std::env::var("VECRUNTIME_FILE_ROWS")
        .ok()
        .and_then(|r| r.parse().ok())
    {
        // Files of `rows` rows each (a partitioned write's small files): the cost per file.
        let (files, ns) = time_small_files(&table, rows, options);
        eprintln!(
            "{files} files of {rows} rows: {:.1} us a file, {:.1} ns/row",
            ns * rows as f64 / 1e3,
            ns
        );
        return;
    }
    let (bytes, ns) = time_writes(&table, iters, options);
    eprintln!("{bytes} bytes, {ns:.1} ns/row, {:.2} Mrows/s", 1e3 / ns);
}

/// Writes `table` `iters` times: the file size and the time per row.
fn time_writes(
    table: &arrow_array::RecordBatch,
    iters: usize,
    options: WriterOptions,
) -> (u64, f64) {
    let schema = tables::our_schema(table);
    let prepared = tables::prepare(table);
    let t = std::time::Instant::now();
    let mut bytes = 0;
    for _ in 0..iters {
        bytes = tables::write_ours(&schema, &prepared, options.clone());
    }
    let rows = table.num_rows() * iters;
    (bytes, t.elapsed().as_nanos() as f64 / rows as f64)
}

/// Writes `table` as files of `rows` rows: the number of files and the time per row.
fn time_small_files(
    table: &arrow_array::RecordBatch,
    rows: usize,
    options: WriterOptions,
) -> (usize, f64) {
    let schema = tables::our_schema(table);
    let slices: Vec<_> = (0..table.num_rows())
        .step_by(rows)
        .map(|at| tables::prepare(&table.slice(at, rows.min(table.num_rows() - at))))
        .collect();
    let t = std::time::Instant::now();
    for prepared in &slices {
        tables::write_ours(&schema, prepared, options.clone());
    }
    (
        slices.len(),
        t.elapsed().as_nanos() as f64 / table.num_rows() as f64,
    )
}
