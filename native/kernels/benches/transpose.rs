//! The row kernel alone: UnsafeRow batches of TPC-DS `store_sales`' shape (9 INT keys, a
//! BIGINT ticket, an INT quantity and 12 DECIMAL(7,2) amounts, about 4.5% nulls, 192-byte
//! rows) to columns, 4,096 rows a batch as the JVM side sends them.
//!
//!     cargo bench -p vecruntime-kernels --bench transpose

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use vecruntime_kernels::unsafe_row::{RowTransposer, SparkType};

const ROWS: usize = 4096;

fn store_sales_types() -> Vec<SparkType> {
    let mut t = vec![SparkType::Int; 9];
    t.push(SparkType::Long);
    t.push(SparkType::Int);
    t.extend(std::iter::repeat_n(SparkType::Decimal { precision: 7 }, 12));
    t
}

/// Rows back to back and their offsets; values and nulls from a fixed xorshift sequence.
fn rows(types: &[SparkType]) -> (Vec<u8>, Vec<i32>) {
    let width = 8 + 8 * types.len();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut data = Vec::with_capacity(ROWS * width);
    let mut offsets = vec![0i32];
    for _ in 0..ROWS {
        let mut row = vec![0u8; width];
        let mut nulls = 0u64;
        for (i, t) in types.iter().enumerate() {
            let r = next();
            // The ticket number is never null in store_sales; the others about 4.5%.
            if i != 9 && r % 1000 < 45 {
                nulls |= 1 << i;
                continue;
            }
            let v = match t {
                SparkType::Long => r >> 40,
                _ => (r >> 44) as i32 as i64 as u64,
            };
            row[8 + 8 * i..16 + 8 * i].copy_from_slice(&v.to_le_bytes());
        }
        row[..8].copy_from_slice(&nulls.to_le_bytes());
        data.extend_from_slice(&row);
        offsets.push(data.len() as i32);
    }
    (data, offsets)
}

fn bench(c: &mut Criterion) {
    let types = store_sales_types();
    let names = (0..types.len()).map(|i| format!("c{i}")).collect();
    let (data, offsets) = rows(&types);
    let mut transposer = RowTransposer::new(names, types);
    let mut g = c.benchmark_group("transpose");
    g.throughput(Throughput::Elements(ROWS as u64));
    g.bench_function("store_sales 4096 rows", |b| {
        b.iter(|| {
            let batch = transposer.transpose(&data, &offsets).expect("valid rows");
            std::hint::black_box(batch.num_rows)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
