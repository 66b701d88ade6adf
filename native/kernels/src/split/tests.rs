use super::*;
use crate::spark_hash::{murmur3, BucketHash};
use crate::test_rows::RowBuilder;

fn row(fields: &[Option<&[u8]>], ints: &[Option<i32>]) -> Vec<u8> {
    // Field 0.. are the ints, then the byte strings.
    let row = RowBuilder::new(ints.len() + fields.len());
    let row = ints.iter().enumerate().fold(row, |row, (i, v)| match v {
        Some(v) => row.fixed(i, *v as u32 as u64),
        None => row.null(i),
    });
    let row = fields.iter().enumerate().fold(row, |row, (j, v)| match v {
        Some(bytes) => row.var(ints.len() + j, bytes),
        None => row.null(ints.len() + j),
    });
    row.buf
}

fn column(name: &str, position: usize, ty: SparkType) -> KeyColumn {
    KeyColumn {
        name: name.to_string(),
        position,
        ty,
        scale: 0,
    }
}

fn split_rows(s: &mut Splitter, rows: &[Vec<u8>]) -> (Vec<Group>, Vec<Vec<u8>>) {
    let mut data = Vec::new();
    let mut offsets = vec![0];
    for r in rows {
        data.extend_from_slice(r);
        offsets.push(data.len() as i32);
    }
    let mut out = vec![0u8; data.len()];
    let mut out_offsets = vec![0i32; offsets.len()];
    let groups = s
        .split(&data, &offsets, &mut out, &mut out_offsets)
        .unwrap()
        .to_vec();
    let copied = (0..rows.len())
        .map(|i| out[out_offsets[i] as usize..out_offsets[i + 1] as usize].to_vec())
        .collect();
    (groups, copied)
}

/// Rows go to groups by partition values (nulls apart from every value, strings by their
/// bytes) in the order groups first appear, each group's rows in input order.
#[test]
fn rows_are_grouped_by_partition_values_in_input_order() {
    let mut s = Splitter::new(
        2,
        vec![
            column("p", 0, SparkType::Int),
            column("s", 1, SparkType::String),
        ],
        None,
    )
    .unwrap();
    let rows = vec![
        row(&[Some(b"x")], &[Some(1)]),
        row(&[Some(b"x")], &[Some(2)]),
        row(&[Some(b"x")], &[Some(1)]),
        row(&[None], &[Some(1)]),
        row(&[Some(b"")], &[Some(1)]),
        row(&[Some(b"x")], &[None]),
        row(&[Some(b"x")], &[Some(2)]),
        row(&[Some(b"")], &[Some(1)]),
    ];
    let (groups, copied) = split_rows(&mut s, &rows);
    let firsts: Vec<usize> = groups.iter().map(|g| g.first).collect();
    assert_eq!(firsts, vec![0, 1, 3, 4, 5]);
    let lens: Vec<usize> = groups.iter().map(|g| g.len).collect();
    assert_eq!(lens, vec![2, 2, 1, 2, 1]);
    let order = [0, 2, 1, 6, 3, 4, 7, 5];
    for (i, &r) in order.iter().enumerate() {
        assert_eq!(copied[i], rows[r], "copied row {i}");
    }
    assert!(groups.iter().all(|g| g.bucket == -1));
    // A second batch starts afresh.
    let (groups, _) = split_rows(&mut s, &rows[5..6]);
    assert_eq!(
        groups,
        vec![Group {
            bucket: -1,
            first: 0,
            start: 0,
            len: 1
        }]
    );
}

#[test]
fn bucket_ids_are_pmod_of_the_hash() {
    let b = Bucketing {
        columns: vec![column("k", 0, SparkType::Int)],
        hash: BucketHash::Murmur3,
        buckets: 7,
    };
    let mut s = Splitter::new(1, vec![], Some(b)).unwrap();
    let rows: Vec<Vec<u8>> = [Some(1), None, Some(1), Some(-3)]
        .iter()
        .map(|v| row(&[], &[*v]))
        .collect();
    let (groups, _) = split_rows(&mut s, &rows);
    // Spark's `pmod`, as written there.
    #[allow(clippy::manual_rem_euclid)]
    let pmod = |h: i32| ((h % 7) + 7) % 7;
    let buckets: Vec<i32> = groups.iter().map(|g| g.bucket).collect();
    assert_eq!(
        buckets,
        vec![
            pmod(murmur3::hash_int(1, 42)),
            pmod(42),
            pmod(murmur3::hash_int(-3, 42))
        ]
    );
    assert_eq!(groups[0].len, 2);
}

#[test]
fn malformed_rows_are_errors_naming_the_column() {
    let mut s = Splitter::new(1, vec![column("s", 0, SparkType::String)], None).unwrap();
    let mut bad = row(&[Some(b"abc")], &[]);
    bad[8..16].copy_from_slice(&(1000u64 << 32 | 3).to_le_bytes());
    let mut out = vec![0u8; bad.len()];
    let mut out_offsets = vec![0i32; 2];
    let err = s
        .split(&bad, &[0, bad.len() as i32], &mut out, &mut out_offsets)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("'s'") || err.contains("s:") || err.contains(" s "),
        "{err}"
    );
    assert!(err.contains("runs past"), "{err}");
    let short = vec![0u8; 8];
    assert!(s
        .split(&short, &[0, 8], &mut out, &mut out_offsets)
        .is_err());
    assert!(Splitter::new(1, vec![column("x", 3, SparkType::Int)], None).is_err());
}

/// A value as an UnsafeRow holds it: its slot's 8 bytes, or variable-length bytes.
enum V {
    Fixed(u64),
    Var(Vec<u8>),
}

/// Rows of `values` (one field each per column) as Spark's UnsafeRowWriter lays them out.
fn unsafe_row(values: &[Option<&V>]) -> Vec<u8> {
    let row = RowBuilder::new(values.len());
    let row = values.iter().enumerate().fold(row, |row, (i, v)| match v {
        None => row.null(i),
        Some(V::Fixed(bits)) => row.fixed(i, *bits),
        Some(V::Var(bytes)) => row.var(i, bytes),
    });
    row.buf
}

/// A value of a type, a decimal scale, and Spark's hashes of it: Murmur3, and Hive's where taken.
type HashCase = (SparkType, i32, Option<V>, i32, Option<i32>);

/// Values of every type Spark buckets by, with Spark's `Murmur3Hash(value, 42)` and
/// `HiveHash(value)` of each, as Spark 4.2 evaluates them (the row slots as its
/// UnsafeProjection writes them): nulls, -0.0 and NaN, strings and binaries of 0 to 7 bytes
/// and 69, decimals of 8 and up to 16 bytes with trailing zeros, timestamps before 1970
/// with a fraction. Hive's hash of TIMESTAMP_NTZ is not taken natively (`hashable`).
/// `tests/data/spark_hashes.py` writes the table with pyspark.
fn spark_hashes() -> Vec<HashCase> {
    let table = include_str!("../../tests/data/spark_hashes.tsv");
    let hex = |h: &str| -> Vec<u8> {
        (0..h.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
            .collect()
    };
    table
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let ty = match f[0] {
                "Boolean" => SparkType::Boolean,
                "Byte" => SparkType::Byte,
                "Short" => SparkType::Short,
                "Int" => SparkType::Int,
                "Long" => SparkType::Long,
                "Float" => SparkType::Float,
                "Double" => SparkType::Double,
                "Date" => SparkType::Date,
                "TimestampMicros" => SparkType::TimestampMicros,
                "TimestampNtz" => SparkType::TimestampNtz,
                "String" => SparkType::String,
                "Binary" => SparkType::Binary,
                d => SparkType::Decimal {
                    precision: d
                        .strip_prefix("Decimal(")
                        .and_then(|p| p.strip_suffix(')'))
                        .and_then(|p| p.parse().ok())
                        .unwrap_or_else(|| panic!("type {d}")),
                },
            };
            let value = match f[2].split_once(':') {
                None => None,
                Some(("slot", h)) => Some(V::Fixed(u64::from_str_radix(h, 16).unwrap())),
                Some(("bytes", h)) => Some(V::Var(hex(h))),
                _ => panic!("value {}", f[2]),
            };
            let hive = (f[4] != "-").then(|| f[4].parse().unwrap());
            (
                ty,
                f[1].parse().unwrap(),
                value,
                f[3].parse().unwrap(),
                hive,
            )
        })
        .collect()
}

#[test]
fn hashes_of_every_bucketable_type_are_sparks() {
    let table = spark_hashes();
    assert_eq!(table.len(), 73);
    for (i, (ty, scale, value, murmur3, hive)) in table.iter().enumerate() {
        let row = unsafe_row(&[value.as_ref()]);
        let column = KeyColumn {
            name: "v".to_string(),
            position: 0,
            ty: *ty,
            scale: *scale,
        };
        let spec = |hash| Bucketing {
            columns: vec![column.clone()],
            hash,
            buckets: 1,
        };
        let got = row_hash(&row, 1, &spec(BucketHash::Murmur3), 0).unwrap();
        assert_eq!(got, *murmur3, "case {i}: Murmur3 of {ty:?}");
        if let Some(hive) = hive {
            let got = row_hash(&row, 1, &spec(BucketHash::Hive), 0).unwrap();
            assert_eq!(got, *hive, "case {i}: HiveHash of {ty:?}");
        }
    }
}

/// Several columns: Murmur3 seeds each column's hash with the last (a null passes it on),
/// Hive's hash is `31 * h + column hash`; then `& Int.MaxValue` for Hive and `pmod`. Spark's
/// hashes of (-7, 'abc', 0.1d, -1000.5 as decimal(38,10), null, -1000001 micros).
#[test]
fn hashes_of_several_columns_chain_as_sparks() {
    let values = [
        Some(V::Fixed(0xffff_fff9)),
        Some(V::Var(b"abc".to_vec())),
        Some(V::Fixed(0.1f64.to_bits())),
        Some(V::Var(vec![246, 230, 135, 135, 110, 0])),
        None,
        Some(V::Fixed(-1000001i64 as u64)),
    ];
    let refs: Vec<Option<&V>> = values.iter().map(Option::as_ref).collect();
    let row = unsafe_row(&refs);
    let types = [
        SparkType::Int,
        SparkType::String,
        SparkType::Double,
        SparkType::Decimal { precision: 38 },
        SparkType::Long,
        SparkType::TimestampMicros,
    ];
    let columns: Vec<KeyColumn> = types
        .iter()
        .enumerate()
        .map(|(i, &ty)| KeyColumn {
            name: format!("c{i}"),
            position: i,
            ty,
            scale: if i == 3 { 10 } else { 0 },
        })
        .collect();
    let spec = |hash, buckets| Bucketing {
        columns: columns.clone(),
        hash,
        buckets,
    };
    assert_eq!(
        row_hash(&row, 6, &spec(BucketHash::Murmur3, 1), 0).unwrap(),
        1614546024
    );
    assert_eq!(
        row_hash(&row, 6, &spec(BucketHash::Hive, 1), 0).unwrap(),
        -1072305405
    );
    // pmod of a positive hash, and of a negative one (Hive's made non-negative first).
    assert_eq!(
        bucket_id(&row, 6, &spec(BucketHash::Murmur3, 1000), 0).unwrap(),
        24
    );
    assert_eq!(
        bucket_id(&row, 6, &spec(BucketHash::Hive, 1000), 0).unwrap(),
        (-1072305405i32 & i32::MAX) % 1000
    );
    let negative = unsafe_row(&[Some(&V::Fixed(0xffff_fff9))]);
    let one = |hash| Bucketing {
        columns: vec![columns[0].clone()],
        hash,
        buckets: 7,
    };
    // Murmur3 of -7 is -1618159745: pmod 7 is 1 where `%` gives -6.
    assert_eq!(
        bucket_id(&negative, 1, &one(BucketHash::Murmur3), 0).unwrap(),
        1
    );
    // Hive's hash of -7 is -7: & Int.MaxValue gives 2147483641, 2 mod 7 (-7 itself: 0).
    assert_eq!(
        bucket_id(&negative, 1, &one(BucketHash::Hive), 0).unwrap(),
        2
    );
}

/// Spark compares and hashes a value by its own bytes: an int by 4 bytes of its slot, a
/// boolean by its first byte. The rest of a slot is not the value's (UnsafeRow's in-place
/// setters leave it), and Spark's projected partition row holds zeros there.
#[test]
fn only_a_values_own_bytes_of_its_slot_count() {
    let cases = [
        (SparkType::Boolean, 0x01u64, 0xdead_0001u64, 0x00u64),
        (SparkType::Byte, 0x05, 0xdead_0005, 0x06),
        (SparkType::Short, 0x0105, 0xdead_0105, 0x0205),
        (SparkType::Int, 0x0100_0105, 0xdead_0100_0105, 0x0200_0105),
        (SparkType::Float, 0x3fc0_0000, 0x7_3fc0_0000, 0x3fc1_0000),
        (SparkType::Date, 0x0100_0105, 0x1_0100_0105, 0x0200_0105),
    ];
    for (ty, clean, dirty, other) in cases {
        let mut s = Splitter::new(1, vec![column("p", 0, ty)], None).unwrap();
        let rows: Vec<Vec<u8>> = [clean, dirty, other]
            .iter()
            .map(|&v| unsafe_row(&[Some(&V::Fixed(v))]))
            .collect();
        let (groups, _) = split_rows(&mut s, &rows);
        let lens: Vec<usize> = groups.iter().map(|g| g.len).collect();
        assert_eq!(lens, vec![2, 1], "{ty:?}");
        let b = |hash| Bucketing {
            columns: vec![column("p", 0, ty)],
            hash,
            buckets: 1,
        };
        for hash in [BucketHash::Murmur3, BucketHash::Hive] {
            assert_eq!(
                row_hash(&rows[0], 1, &b(hash), 0).unwrap(),
                row_hash(&rows[1], 1, &b(hash), 1).unwrap(),
                "{ty:?} {hash:?}"
            );
        }
    }
    // A long's value is its whole slot; a large int is a value, not an offset.
    let mut s = Splitter::new(1, vec![column("p", 0, SparkType::Long)], None).unwrap();
    let rows: Vec<Vec<u8>> = [1u64 << 40, 2 << 40, 1 << 40, 100_000]
        .iter()
        .map(|&v| unsafe_row(&[Some(&V::Fixed(v))]))
        .collect();
    let (groups, _) = split_rows(&mut s, &rows);
    assert_eq!(
        groups.iter().map(|g| g.len).collect::<Vec<_>>(),
        vec![2, 1, 1]
    );
}

/// Rows of more than 64 fields: two words of null bits before the slots.
#[test]
fn rows_of_many_fields() {
    let n = 70;
    let mut values: Vec<Option<V>> = (0..n).map(|i| Some(V::Fixed(i as u64))).collect();
    values[66] = Some(V::Var(b"abcde".to_vec()));
    values[3] = None;
    let refs: Vec<Option<&V>> = values.iter().map(Option::as_ref).collect();
    let row = unsafe_row(&refs);
    let b = |position, ty| Bucketing {
        columns: vec![column("c", position, ty)],
        hash: BucketHash::Murmur3,
        buckets: 1,
    };
    assert_eq!(
        row_hash(&row, n, &b(65, SparkType::Long), 0).unwrap(),
        murmur3::hash_long(65, 42)
    );
    assert_eq!(
        row_hash(&row, n, &b(66, SparkType::String), 0).unwrap(),
        murmur3::hash_bytes(b"abcde", 42)
    );
    assert_eq!(row_hash(&row, n, &b(3, SparkType::Int), 0).unwrap(), 42);
    let mut s = Splitter::new(n, vec![column("c", 66, SparkType::String)], None).unwrap();
    let (groups, copied) = split_rows(&mut s, &[row.clone(), row.clone()]);
    assert_eq!(groups.len(), 1);
    assert_eq!(copied[1], row);
    // A row one slot short of 70 fields' fixed part.
    let short = &row[..16 + 8 * (n - 1)];
    let mut out = vec![0u8; short.len()];
    let mut out_offsets = vec![0i32; 2];
    let err = s
        .split(short, &[0, short.len() as i32], &mut out, &mut out_offsets)
        .unwrap_err()
        .to_string();
    assert!(err.contains("need at least 576"), "{err}");
}

#[test]
fn bad_batches_and_buffers_are_errors() {
    let mut s = Splitter::new(1, vec![column("p", 0, SparkType::Int)], None).unwrap();
    let row = unsafe_row(&[Some(&V::Fixed(1))]);
    let two: Vec<u8> = [row.clone(), row.clone()].concat();
    let mut out = vec![0u8; two.len()];
    let mut out_offsets = vec![0i32; 3];
    for offsets in [[0, 16, 8], [0, 24, 32], [-8, 8, 16], [0, 8, 16]] {
        let mut o = out.clone();
        assert!(
            s.split(&two, &offsets, &mut o, &mut out_offsets).is_err(),
            "{offsets:?}"
        );
    }
    assert!(s
        .split(&two, &[0, 16, 32], &mut out, &mut out_offsets)
        .is_ok());
    assert!(s
        .split(&two, &[0, 16, 32], &mut out[..31], &mut out_offsets)
        .is_err());
    assert!(s
        .split(&two, &[0, 16, 32], &mut out, &mut out_offsets[..2])
        .is_err());
    // Decimal bytes of 0 or more than 16 bytes cannot be a Spark decimal.
    for bytes in [&[][..], &[1u8; 17][..]] {
        let row = unsafe_row(&[Some(&V::Var(bytes.to_vec()))]);
        let b = Bucketing {
            columns: vec![column("d", 0, SparkType::Decimal { precision: 38 })],
            hash: BucketHash::Hive,
            buckets: 1,
        };
        assert!(row_hash(&row, 1, &b, 0).is_err(), "{} bytes", bytes.len());
    }
}

/// Types whose hash Spark decides otherwise are not taken (the plugin leaves them to Spark).
#[test]
fn bucket_columns_of_types_not_hashed_here_are_refused() {
    let spec = |ty, hash| {
        Splitter::new(
            1,
            vec![],
            Some(Bucketing {
                columns: vec![column("c", 0, ty)],
                hash,
                buckets: 4,
            }),
        )
    };
    assert!(spec(SparkType::TimestampNtz, BucketHash::Murmur3).is_ok());
    assert!(spec(SparkType::TimestampNtz, BucketHash::Hive).is_err());
    for ty in [
        SparkType::Time,
        SparkType::Geo { geography: false },
        SparkType::LegacyDecimal { precision: 9 },
    ] {
        assert!(spec(ty, BucketHash::Murmur3).is_err(), "{ty:?}");
    }
    assert!(spec(SparkType::Int, BucketHash::Murmur3).is_ok());
    let zero = Splitter::new(
        1,
        vec![],
        Some(Bucketing {
            columns: vec![column("c", 0, SparkType::Int)],
            hash: BucketHash::Murmur3,
            buckets: 0,
        }),
    );
    assert!(zero.is_err());
}
