//! Write throughput: vecruntime vs arrow-rs `ArrowWriter` (PARQUET_2_0) on the same data in the
//! same criterion group, single-threaded, output discarded.
//!
//! Tables: TPC-DS `store_sales` (23 columns; real dsdgen data when
//! `benchmarks/data/store_sales.parquet` exists, see benchmarks/README.md, otherwise synthetic
//! data of the same shape) and a string-heavy table.
//!
//!     cargo bench -p vecruntime-parquet --bench write

mod tables;

use arrow_array::RecordBatch;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{WriterProperties, WriterVersion};
use tables::{our_schema, prepare, write_ours, Prepared, ROWS};
use vecruntime_parquet::*;

fn options(codec: Codec) -> WriterOptions {
    WriterOptions {
        codec,
        ..Default::default()
    }
}

fn arrow_props(codec: Codec) -> WriterProperties {
    let c = match codec {
        Codec::Uncompressed => Compression::UNCOMPRESSED,
        Codec::Snappy => Compression::SNAPPY,
        Codec::Zstd(l) => Compression::ZSTD(ZstdLevel::try_new(l).unwrap()),
        _ => unreachable!(),
    };
    WriterProperties::builder()
        .set_writer_version(WriterVersion::PARQUET_2_0)
        .set_compression(c)
        .build()
}

struct Counter(u64);
impl std::io::Write for Counter {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len() as u64;
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn write_arrow(p: &Prepared, codec: Codec) -> u64 {
    let mut w =
        ArrowWriter::try_new(Counter(0), p.batches[0].schema(), Some(arrow_props(codec))).unwrap();
    for b in &p.batches {
        w.write(b).unwrap();
    }
    w.into_inner().unwrap().0
}

fn bench_table(c: &mut Criterion, name: &str, table: RecordBatch) {
    let schema = our_schema(&table);
    let p = prepare(&table);
    for codec in [Codec::Uncompressed, Codec::Snappy, Codec::Zstd(3)] {
        let mut g = c.benchmark_group(format!("{name}/{}", codec.name().to_lowercase()));
        g.sample_size(10);
        g.throughput(Throughput::Elements(table.num_rows() as u64));
        let ours = write_ours(&schema, &p, options(codec));
        let theirs = write_arrow(&p, codec);
        eprintln!(
            "{name}/{}: vecruntime {ours} bytes, arrow-rs {theirs} bytes",
            codec.name()
        );
        g.bench_function(BenchmarkId::new("vecruntime", table.num_rows()), |b| {
            b.iter(|| write_ours(&schema, &p, options(codec)))
        });
        g.bench_function(BenchmarkId::new("arrow-rs", table.num_rows()), |b| {
            b.iter(|| write_arrow(&p, codec))
        });
        g.finish();
    }
}

fn benches(c: &mut Criterion) {
    let rows = std::env::var("VECRUNTIME_BENCH_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(ROWS);
    bench_table(c, "store_sales", tables::store_sales(rows));
    bench_table(c, "strings", tables::string_table(rows / 2));
}

criterion_group!(write, benches);
criterion_main!(write);
