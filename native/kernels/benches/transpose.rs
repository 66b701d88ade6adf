//! The row kernel alone: UnsafeRow batches of TPC-DS `store_sales`' shape (9 INT keys, a
//! BIGINT ticket, an INT quantity and 12 DECIMAL(7,2) amounts, about 4.5% nulls, 192-byte
//! rows) to columns, 4,096 rows a batch as the JVM side sends them, 144 rows into a new
//! transposer each time (a partitioned write's file, sharing its buffers), and 24,576 rows of
//! values spanning 2^20 encoded into a new file (a bucketed write's file, its dictionaries
//! built from nothing); and nested rows of the Spark benchmark's `nested` table (a ticket: a
//! BIGINT, its lines an `array<struct<2 INT, 5 DECIMAL(7,2)>>` of 1 to 20 elements with 4.5%
//! null fields, a 3-entry `map<string,int>`), shredded into levels and values, with the cost
//! per leaf value, then also encoded.
//!
//!     cargo bench -p vecruntime-kernels --bench transpose

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use vecruntime_kernels::spark_type::SparkType;
use vecruntime_kernels::transpose::RowTransposer;
use vecruntime_parquet::{
    Codec, Field, FileWriter, Group, LogicalType, PhysicalType, Repetition, Schema, WriterOptions,
};

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
    rows_from(types, ROWS, 0x9E37_79B9_7F4A_7C15)
}

fn rows_from(types: &[SparkType], n: usize, seed: u64) -> (Vec<u8>, Vec<i32>) {
    let width = 8 + 8 * types.len();
    let mut state = seed;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut data = Vec::with_capacity(n * width);
    let mut offsets = vec![0i32];
    for _ in 0..n {
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
    let mut transposer = RowTransposer::new(names, types.clone());
    let mut g = c.benchmark_group("transpose");
    g.throughput(Throughput::Elements(ROWS as u64));
    g.bench_function("store_sales 4096 rows", |b| {
        b.iter(|| {
            let batch = transposer.transpose(&data, &offsets).expect("valid rows");
            std::hint::black_box(batch.num_rows)
        })
    });
    // A partitioned write: a file (transposer) per partition, small batches, buffers shared.
    let few = &offsets[..145];
    g.throughput(Throughput::Elements(144));
    g.bench_function("store_sales 144 rows, a file each", |b| {
        b.iter(|| {
            let names = (0..23).map(|i| format!("c{i}")).collect();
            let mut t = RowTransposer::new(names, store_sales_types()).sharing_buffers();
            let n = t.transpose(&data, few).expect("valid rows").num_rows;
            t.release_buffers();
            std::hint::black_box(n)
        })
    });
    // A bucketed write's file: 6 batches of new values (the keys span 2^20, so most columns
    // build hash-table dictionaries as they go) into a new file writer.
    let batches: Vec<_> = (0..6)
        .map(|i| rows_from(&types, ROWS, 0x9E37_79B9_7F4A_7C15 + i))
        .collect();
    let schema = store_sales_schema();
    let mut t = RowTransposer::new((0..23).map(|i| format!("c{i}")).collect(), types.clone());
    g.throughput(Throughput::Elements(6 * ROWS as u64));
    g.bench_function("store_sales 24576 rows, a new file, written", |b| {
        b.iter(|| {
            let opts = WriterOptions {
                codec: Codec::Snappy,
                ..Default::default()
            };
            let mut w = FileWriter::new(std::io::sink(), schema.clone(), opts).expect("writer");
            for (data, offsets) in &batches {
                w.write_batch(&t.transpose(data, offsets).expect("valid rows"))
                    .expect("written");
            }
            w.close().expect("closed");
        })
    });
    g.finish();
}

/// `store_sales_types()` as Spark's converter writes them.
fn store_sales_schema() -> Schema {
    let fields = store_sales_types()
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let name = format!("c{i}");
            match t {
                SparkType::Long => Field::new(&name, PhysicalType::Int64, true),
                SparkType::Decimal { .. } => Field::new(&name, PhysicalType::Int32, true)
                    .with_logical(LogicalType::Decimal {
                        precision: 7,
                        scale: 2,
                    }),
                _ => Field::new(&name, PhysicalType::Int32, true),
            }
            .into()
        })
        .collect();
    Schema::from_nodes("spark_schema", fields).unwrap()
}

/// The nested table's Parquet schema, as Spark's converter writes it.
fn nested_schema() -> Schema {
    let dec = |name: &str| {
        Field::new(name, PhysicalType::Int32, true).with_logical(LogicalType::Decimal {
            precision: 7,
            scale: 2,
        })
    };
    let mut fields = vec![
        Field::new("item", PhysicalType::Int32, true).into(),
        Field::new("quantity", PhysicalType::Int32, true).into(),
    ];
    fields.extend((0..5).map(|i| dec(&format!("p{i}")).into()));
    let element = Group::new("element", Repetition::Optional, fields);
    let lines = Group::list("lines", Repetition::Optional, element.into());
    let key = Field::new("key", PhysicalType::ByteArray, false).with_logical(LogicalType::String);
    let value = Field::new("value", PhysicalType::Int32, true);
    let attrs = Group::map("attrs", Repetition::Optional, key.into(), value.into());
    Schema::from_nodes(
        "spark_schema",
        vec![
            Field::new("ticket", PhysicalType::Int64, false).into(),
            lines.into(),
            attrs.into(),
        ],
    )
    .unwrap()
}

/// `offset << 32 | size` of `part` appended (8-byte aligned) to `out`, counted from `base`.
fn append(out: &mut Vec<u8>, base: usize, part: &[u8]) -> u64 {
    let at = out.len() - base;
    out.extend_from_slice(part);
    out.resize(out.len().next_multiple_of(8), 0);
    ((at as u64) << 32) | part.len() as u64
}

/// UnsafeArrayData of 8-byte slots (`slots`), then the variable-length `parts` they point at.
fn array(fixed: &[u64], parts: &[Vec<u8>], elem: usize) -> Vec<u8> {
    let n = fixed.len().max(parts.len());
    let mut a = (n as u64).to_le_bytes().to_vec();
    a.resize(8 + n.div_ceil(64) * 8, 0);
    let slots = a.len();
    a.resize(slots + (n * elem).next_multiple_of(8), 0);
    for (i, v) in fixed.iter().enumerate() {
        a[slots + i * elem..slots + (i + 1) * elem].copy_from_slice(&v.to_le_bytes()[..elem]);
    }
    for (i, p) in parts.iter().enumerate() {
        let s = append(&mut a, 0, p);
        a[slots + 8 * i..slots + 8 * i + 8].copy_from_slice(&s.to_le_bytes());
    }
    a
}

/// Nested rows and the number of leaf values (levels) they hold.
fn nested_rows() -> (Vec<u8>, Vec<i32>, usize) {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut data = Vec::new();
    let mut offsets = vec![0i32];
    let mut leaf_values = 0;
    for r in 0..ROWS {
        let lines = 1 + next() as usize % 20;
        let elements: Vec<Vec<u8>> = (0..lines)
            .map(|_| {
                // A struct of 7 fields: bitset, then slots (ints and compact decimals), about
                // 4.5% of them null as in store_sales.
                let mut e = vec![0u8; 8 + 7 * 8];
                for f in 0..7 {
                    let r = next();
                    if r % 22 == 0 {
                        e[0] |= 1 << f;
                        continue;
                    }
                    let v = (r >> 44) as i32 as i64;
                    e[8 + 8 * f..16 + 8 * f].copy_from_slice(&v.to_le_bytes());
                }
                e
            })
            .collect();
        leaf_values += 7 * lines + 2 * 3;
        let keys = array(
            &[],
            &[b"store".to_vec(), b"lines".to_vec(), b"hdemo".to_vec()],
            8,
        );
        let values = array(&[7, lines as u64, next() % 7200], &[], 4);
        let mut map = (keys.len() as u64).to_le_bytes().to_vec();
        map.extend_from_slice(&keys);
        map.extend_from_slice(&values);
        let mut row = vec![0u8; 8 + 3 * 8];
        row[8..16].copy_from_slice(&(r as u64 * 7919).to_le_bytes());
        let s1 = append(&mut row, 0, &array(&[], &elements, 8));
        let s2 = append(&mut row, 0, &map);
        row[16..24].copy_from_slice(&s1.to_le_bytes());
        row[24..32].copy_from_slice(&s2.to_le_bytes());
        data.extend_from_slice(&row);
        offsets.push(data.len() as i32);
    }
    (data, offsets, leaf_values)
}

fn bench_nested(c: &mut Criterion) {
    let schema = nested_schema();
    let (data, offsets, values) = nested_rows();
    let mut transposer = RowTransposer::for_schema(&schema).expect("a Spark layout");
    let batch = transposer.transpose(&data, &offsets).expect("valid rows");
    assert_eq!(batch.num_rows, ROWS);
    let mut g = c.benchmark_group("transpose");
    // Per leaf value (each level entry of every leaf column).
    g.throughput(Throughput::Elements(values as u64));
    g.bench_function("nested tickets 4096 rows", |b| {
        b.iter(|| {
            let batch = transposer.transpose(&data, &offsets).expect("valid rows");
            std::hint::black_box(batch.num_rows)
        })
    });
    // The same rows shredded and encoded (levels, dictionaries, snappy pages) into a file whose
    // bytes are discarded: the native share of the Spark benchmark's nested write.
    g.bench_function("nested tickets 4096 rows, written", |b| {
        let opts = WriterOptions {
            codec: Codec::Snappy,
            ..Default::default()
        };
        let mut writer = FileWriter::new(std::io::sink(), schema.clone(), opts).expect("writer");
        b.iter(|| {
            let batch = transposer.transpose(&data, &offsets).expect("valid rows");
            writer.write_batch(&batch).expect("written");
        });
        writer.close().expect("closed");
    });
    g.finish();
}

criterion_group!(benches, bench, bench_nested);
criterion_main!(benches);
