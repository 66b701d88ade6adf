//! Property test: random schemas, options, batch sizes and data, every file read back by
//! arrow-rs with equal values and statistics. The seed is printed on failure.

mod common;
use common::*;
use vecruntime_parquet::*;

#[test]
fn random_files_read_back_equal() {
    let cases = std::env::var("VECRUNTIME_RANDOM_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60u64);
    for seed in 1..=cases {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut fields = Vec::new();
        for mut f in all_fields() {
            if rng.below(3) != 0 {
                f.repetition = if rng.below(4) != 0 {
                    Repetition::Optional
                } else {
                    Repetition::Required
                };
                fields.push(f);
            }
        }
        if fields.is_empty() {
            fields.push(Field::new("only", PhysicalType::Int64, true));
        }
        let codecs = [
            Codec::Uncompressed,
            Codec::Snappy,
            Codec::Gzip(1),
            Codec::Zstd(1),
            Codec::Lz4Hadoop,
            Codec::Lz4Raw,
        ];
        let opts = WriterOptions {
            codec: codecs[rng.below(6) as usize],
            page_size: 256 << rng.below(12),
            dictionary_page_size: 128 << rng.below(12),
            row_group_size: 4096 << rng.below(10),
            page_row_limit: 50 + rng.below(20_000) as usize,
            dictionary_enabled: rng.below(5) != 0,
            min_row_count_for_size_check: 1 + rng.below(200) as usize,
            ..Default::default()
        };
        let schema = Schema::new(fields.clone()).unwrap();
        let nbatches = 1 + rng.below(4) as usize;
        let sizes: Vec<usize> = (0..nbatches).map(|_| rng.below(6000) as usize).collect();
        let total: usize = sizes.iter().sum();
        let nulls = [Nulls::None, Nulls::Some, Nulls::All][rng.below(3) as usize];
        let card = [
            Card::Low,
            Card::Unique,
            Card::LowThenUnique(rng.below(3000) as usize),
        ][rng.below(3) as usize];
        // One big column set, written in slices, so expectations index one buffer.
        let cols: Vec<OwnedColumn> = fields
            .iter()
            .map(|f| {
                generate(
                    f,
                    total,
                    if f.nullable() { nulls } else { Nulls::None },
                    card,
                    &mut rng,
                )
            })
            .collect();
        let mut out = Vec::new();
        let mut w = FileWriter::new(&mut out, schema.clone(), opts.clone()).unwrap();
        let mut start = 0;
        for &n in &sizes {
            let views = cols
                .iter()
                .map(|c| slice_view(c, start, n))
                .collect::<Vec<_>>();
            let batch = Batch {
                num_rows: n,
                columns: views.iter().map(|v| v.view()).collect(),
            };
            w.write_batch(&batch).unwrap();
            start += n;
        }
        w.close().unwrap();
        let what = format!("seed {seed} opts {opts:?} sizes {sizes:?} {nulls:?} {card:?}");
        check_file(&fields, &cols, total, &out, &what);
    }
}

/// Rows `start..start + n` of a column as a new owned column (validity realigned).
fn slice_view(c: &OwnedColumn, start: usize, n: usize) -> OwnedColumn {
    let validity = c.validity.as_ref().map(|v| {
        let mut out = vec![0u8; n.div_ceil(8)];
        for i in 0..n {
            if v[(start + i) / 8] >> ((start + i) % 8) & 1 == 1 {
                out[i / 8] |= 1 << (i % 8);
            }
        }
        out
    });
    let data = match &c.data {
        Owned::Bool(b) => {
            let mut out = vec![0u8; n.div_ceil(8)];
            for i in 0..n {
                if b[(start + i) / 8] >> ((start + i) % 8) & 1 == 1 {
                    out[i / 8] |= 1 << (i % 8);
                }
            }
            Owned::Bool(out)
        }
        Owned::I32(v) => Owned::I32(v[start..start + n].to_vec()),
        Owned::I64(v) => Owned::I64(v[start..start + n].to_vec()),
        Owned::F32(v) => Owned::F32(v[start..start + n].to_vec()),
        Owned::F64(v) => Owned::F64(v[start..start + n].to_vec()),
        // Offsets stay absolute into the shared data: a first offset above 0 is valid input.
        Owned::Bin(o, d) => Owned::Bin(o[start..=start + n].to_vec(), d.clone()),
        Owned::Fixed(w, d) => Owned::Fixed(*w, d[start * w..(start + n) * w].to_vec()),
    };
    OwnedColumn {
        validity,
        data,
        levels: None,
    }
}
