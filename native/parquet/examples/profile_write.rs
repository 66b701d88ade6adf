//! Writes one benchmark table a few times with our writer, for profilers:
//!     cargo build --release --example profile_write
//!     perf record target/release/examples/profile_write [store_sales|strings] [iterations] [codec]
//! store_sales is dsdgen data when benchmarks/data/store_sales.parquet exists (as in the
//! criterion benchmark), the strings table the benchmark's. `VECRUNTIME_PER_COLUMN=1` also
//! times each column written alone (`=name`: only that column). `VECRUNTIME_FILE_ROWS=n` writes
//! files of n rows each (the cost per file); `VECRUNTIME_OPEN_FILES=n` holds n files open at once
//! (of `VECRUNTIME_FILE_ROWS` rows, 1 by default) and reports the memory an open file holds;
//! with `VECRUNTIME_ROUNDS=n` it then opens and closes them n times more, each time on a new
//! thread, and reports each round's time and page faults.
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
    let file_rows = std::env::var("VECRUNTIME_FILE_ROWS")
        .ok()
        .and_then(|r| r.parse().ok());
    if let Some(files) = std::env::var("VECRUNTIME_OPEN_FILES")
        .ok()
        .and_then(|r| r.parse().ok())
    {
        // Files held open at once (a partitioned write's), each given `file_rows` rows (1 by
        // default): the memory an open file holds.
        open_files(&table, files, file_rows.unwrap_or(1), options);
        return;
    }
    if let Some(rows) = file_rows {
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

/// Opens `files` files of `rows` rows each (the table's first rows) and reports the resident
/// memory they hold while open, per file and per column chunk.
fn open_files(table: &arrow_array::RecordBatch, files: usize, rows: usize, options: WriterOptions) {
    let schema = tables::our_schema(table);
    let prepared = tables::prepare(&table.slice(0, rows.min(table.num_rows())));
    let before = resident_bytes();
    let open: Vec<_> = (0..files)
        .map(|_| tables::write_open(&schema, &prepared, options.clone(), true))
        .collect();
    let held = resident_bytes().saturating_sub(before) as f64 / files as f64;
    let chunks = schema.columns().len();
    eprintln!(
        "{files} open files of {rows} rows, {chunks} column chunks each: {:.1} KiB resident a file, {:.1} KiB a column chunk",
        held / 1024.0,
        held / 1024.0 / chunks as f64
    );
    for mut w in open {
        w.close().expect("close");
    }
    // Rounds of opening and closing the files, each on a new thread as tasks come on an
    // executor's threads: the page faults of memory the allocator handed back and takes again.
    let rounds: usize = std::env::var("VECRUNTIME_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(0);
    for round in 1..=rounds {
        std::thread::scope(|scope| {
            scope.spawn(|| {
                let (faults, t) = (minor_faults(), std::time::Instant::now());
                for mut w in (0..files)
                    .map(|_| tables::write_open(&schema, &prepared, options.clone(), true))
                    .collect::<Vec<_>>()
                {
                    w.close().expect("close");
                }
                eprintln!(
                    "round {round}: {:.0} ms, {} page faults",
                    t.elapsed().as_secs_f64() * 1e3,
                    minor_faults() - faults
                );
            });
        });
    }
}

/// The process's minor page faults so far (Linux: /proc/self/stat, field 10).
fn minor_faults() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')').expect("stat") + 2..];
    rest.split_whitespace()
        .nth(7)
        .and_then(|f| f.parse().ok())
        .expect("minflt")
}

/// The process's resident memory (Linux: /proc/self/statm, in pages of 4 KiB).
fn resident_bytes() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
    let pages: usize = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .expect("resident pages");
    pages * 4096
}

/// Writes `table` as files of `rows` rows, each one of many open on the thread: the number of
/// files and the time per row.
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
    // Set up as the plugin sets up each of a partitioned write's files, with its default
    // options (PLAIN integers).
    let options = WriterOptions {
        delta_binary_packed: false,
        ..options
    };
    let t = std::time::Instant::now();
    for prepared in &slices {
        tables::write_open(&schema, prepared, options.clone(), true)
            .close()
            .expect("close");
    }
    (
        slices.len(),
        t.elapsed().as_nanos() as f64 / table.num_rows() as f64,
    )
}
