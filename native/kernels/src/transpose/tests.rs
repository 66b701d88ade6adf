use super::*;
use crate::rebase::Rebase;
use crate::test_rows::{batch, RowBuilder};
use vecruntime_parquet::{ColumnData, LogicalType, PhysicalType};

#[test]
fn every_type_transposed() {
    let types = vec![
        SparkType::Boolean,
        SparkType::Byte,
        SparkType::Short,
        SparkType::Int,
        SparkType::Long,
        SparkType::Float,
        SparkType::Double,
        SparkType::TimestampMillis,
        SparkType::Decimal { precision: 7 },
        SparkType::Decimal { precision: 15 },
        SparkType::Decimal { precision: 30 },
        SparkType::String,
        SparkType::TimestampInt96,
    ];
    let names = (0..types.len()).map(|i| format!("c{i}")).collect();
    let mut t = RowTransposer::new(names, types.clone());
    let r0 = RowBuilder::new(13)
        .fixed(0, 1)
        .fixed(1, (-5i8) as u8 as u64)
        .fixed(2, (-300i16) as u16 as u64)
        .fixed(3, (-7i32) as u32 as u64)
        .fixed(4, i64::MIN as u64)
        .fixed(5, (-0.0f32).to_bits() as u64)
        .fixed(6, f64::NAN.to_bits())
        .fixed(7, (-1501i64) as u64)
        .fixed(8, 12345)
        .fixed(9, (-99i64) as u64)
        .var(10, &[0xff, 0x01]) // -255
        .var(11, "héllo".as_bytes())
        .fixed(12, 0);
    let r1 = (0..13).fold(RowBuilder::new(13), |b, i| b.null(i));
    let r2 = RowBuilder::new(13).var(11, b"").var(10, &[0x7f]);
    let (data, offsets) = batch(&[r0.buf, r1.buf, r2.buf]);
    let b = t.transpose(&data, &offsets).unwrap();
    assert_eq!(b.num_rows, 3);
    match b.columns[0].data {
        ColumnData::Boolean(v) => assert_eq!(v[0] & 1, 1),
        _ => panic!(),
    }
    let ints = |c: usize| match b.columns[c].data {
        ColumnData::Int32(v) => v.to_vec(),
        _ => panic!(),
    };
    assert_eq!(ints(1)[0], -5);
    assert_eq!(ints(2)[0], -300);
    assert_eq!(ints(3)[0], -7);
    assert_eq!(ints(8)[0], 12345);
    match b.columns[7].data {
        ColumnData::Int64(v) => assert_eq!(v[0], -2), // floor(-1501 / 1000)
        _ => panic!(),
    }
    match b.columns[10].data {
        ColumnData::FixedBinary { width, data } => {
            assert_eq!(width, 13);
            let mut want = vec![0xff; 11];
            want.extend_from_slice(&[0xff, 0x01]);
            assert_eq!(&data[..13], &want[..]);
            assert_eq!(&data[26..39], &[&[0u8; 12][..], &[0x7f]].concat()[..]);
        }
        _ => panic!(),
    }
    match b.columns[11].data {
        ColumnData::Binary { offsets, data } => {
            assert_eq!(offsets, &[0, 6, 6, 6]);
            assert_eq!(data, "héllo".as_bytes());
        }
        _ => panic!(),
    }
    // Row 1 is null everywhere, row 0 nowhere.
    for c in &b.columns {
        let v = c.validity.expect("a null row");
        assert_eq!(v[0] & 0b111, 0b101);
    }
}

#[test]
fn bit_matrix_transposed() {
    let mut m = [0u64; 64];
    let mut x = 0x1234_5678_9abc_def0u64;
    for row in m.iter_mut() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *row = x;
    }
    let orig = m;
    transpose64(&mut m);
    for (r, row) in orig.iter().enumerate() {
        for (c, column) in m.iter().enumerate() {
            assert_eq!(column >> r & 1, row >> c & 1, "row {r} column {c}");
        }
    }
}

#[test]
fn nulls_of_many_fields_and_rows() {
    // 70 long fields (two null-bitset words) over 150 rows (three chunks, the last short):
    // field f of row r is null when (r * 7 + f * 3) % 5 == 0, else holds r * 1000 + f.
    let nf = 70;
    let null = |r: usize, f: usize| (r * 7 + f * 3).is_multiple_of(5);
    let rows: Vec<Vec<u8>> = (0..150)
        .map(|r| {
            (0..nf)
                .fold(RowBuilder::new(nf), |b, f| {
                    if null(r, f) {
                        b.null(f)
                    } else {
                        b.fixed(f, (r * 1000 + f) as u64)
                    }
                })
                .buf
        })
        .collect();
    let (data, offsets) = batch(&rows);
    let names = (0..nf).map(|i| format!("c{i}")).collect();
    let mut t = RowTransposer::new(names, vec![SparkType::Long; nf]);
    let b = t.transpose(&data, &offsets).unwrap();
    for (f, c) in b.columns.iter().enumerate() {
        let v = c.validity.expect("nulls in every field");
        let ColumnData::Int64(vals) = c.data else {
            panic!()
        };
        for r in 0..150 {
            assert_eq!(
                v[r / 8] >> (r % 8) & 1 == 0,
                null(r, f),
                "field {f} row {r}"
            );
            if !null(r, f) {
                assert_eq!(vals[r], (r * 1000 + f) as i64);
            }
        }
    }
}

#[test]
fn every_type_keeps_its_own_nulls() {
    // Each field its own null pattern (field f of row r null when (r + 3f) % (5 + f) == 0),
    // in rows of mixed widths: a type reading a neighbour's null bit or slot shows.
    let types = vec![
        SparkType::Boolean,
        SparkType::Byte,
        SparkType::Short,
        SparkType::Int,
        SparkType::Date,
        SparkType::Long,
        SparkType::TimestampMicros,
        SparkType::TimestampNtz,
        SparkType::TimestampMillis,
        SparkType::Float,
        SparkType::Double,
        SparkType::Decimal { precision: 7 },
        SparkType::Decimal { precision: 15 },
        SparkType::Decimal { precision: 30 },
        SparkType::TimestampInt96,
        SparkType::String,
        SparkType::Binary,
    ];
    let nf = types.len();
    let null = |r: usize, f: usize| (r + 3 * f).is_multiple_of(5 + f);
    let value = |r: usize, f: usize| (r * 100 + f + 1) as u64;
    let rows: Vec<Vec<u8>> = (0..150)
        .map(|r| {
            (0..nf)
                .fold(RowBuilder::new(nf), |b, f| match types[f] {
                    _ if null(r, f) => b.null(f),
                    SparkType::Decimal { precision: 30 } => b.var(f, &[1, r as u8]),
                    SparkType::String | SparkType::Binary => b.var(f, &vec![b'x'; r % 20]),
                    _ => b.fixed(f, value(r, f)),
                })
                .buf
        })
        .collect();
    let (data, offsets) = batch(&rows);
    let names = (0..nf).map(|i| format!("c{i}")).collect();
    let mut t = RowTransposer::new(names, types.clone());
    let b = t.transpose(&data, &offsets).unwrap();
    for (f, c) in b.columns.iter().enumerate() {
        let v = c.validity.expect("nulls in every field");
        for r in 0..150 {
            let valid = v[r / 8] >> (r % 8) & 1 == 1;
            assert_eq!(valid, !null(r, f), "{:?} (field {f}) row {r}", types[f]);
        }
        if let ColumnData::Int64(vals) = c.data {
            for r in (0..150).filter(|&r| !null(r, f)) {
                let want = match types[f] {
                    SparkType::TimestampMillis => value(r, f) as i64 / 1000,
                    _ => value(r, f) as i64,
                };
                assert_eq!(vals[r], want, "{:?} (field {f}) row {r}", types[f]);
            }
        }
    }
}

#[test]
fn rows_of_one_size_and_of_many_sizes_agree() {
    // Chunk 1: strings of one length (rows of one size, read at a stride). Chunk 2: its
    // first and last strings take 16 bytes, the others 8 and 24 in turn: the chunk's bytes
    // are those of 64 rows of the first row's size, yet the rows are not at a stride.
    // Chunk 3 (short): every row different. Each value must come from its own row.
    let types = vec![
        SparkType::Int,
        SparkType::String,
        SparkType::Decimal { precision: 7 },
        SparkType::Long,
    ];
    let text = |r: usize| match r / 64 {
        0 => format!("{:05}", r),
        1 if r == 64 || r == 127 => format!("{:013}", r),
        1 if r % 2 == 1 => format!("{:03}", r % 1000),
        1 => format!("{:020}", r),
        _ => "x".repeat(r % 17),
    };
    let rows: Vec<Vec<u8>> = (0..150)
        .map(|r| {
            let b = RowBuilder::new(4)
                .fixed(0, (r as i32 * -3) as u32 as u64)
                .var(1, text(r).as_bytes());
            let b = if r % 9 == 4 {
                b.null(2)
            } else {
                b.fixed(2, (r as i64 * 101 - 7000) as u64)
            };
            b.fixed(3, (r as u64) << 40 | 5).buf
        })
        .collect();
    let (data, offsets) = batch(&rows);
    let names = ["i", "s", "d", "l"].map(String::from).to_vec();
    let mut t = RowTransposer::new(names, types);
    let b = t.transpose(&data, &offsets).unwrap();
    let (
        ColumnData::Int32(ints),
        ColumnData::Binary {
            offsets: so,
            data: sd,
        },
    ) = (&b.columns[0].data, &b.columns[1].data)
    else {
        panic!("int and string columns");
    };
    let (ColumnData::Int32(decs), ColumnData::Int64(longs)) =
        (&b.columns[2].data, &b.columns[3].data)
    else {
        panic!("decimal and long columns");
    };
    let dv = b.columns[2].validity.expect("decimal nulls");
    for r in 0..150 {
        assert_eq!(ints[r], r as i32 * -3, "row {r}");
        assert_eq!(
            &sd[so[r] as usize..so[r + 1] as usize],
            text(r).as_bytes(),
            "row {r}"
        );
        assert_eq!(dv[r / 8] >> (r % 8) & 1 == 0, r % 9 == 4, "row {r}");
        if r % 9 != 4 {
            assert_eq!(decs[r], r as i32 * 101 - 7000, "row {r}");
        }
        assert_eq!(longs[r], ((r as i64) << 40) | 5, "row {r}");
    }
}

/// `array<int>` (3-level, elements optional) and `map<string,int>`, as Spark's converter
/// writes them.
fn nested_schema() -> Schema {
    use vecruntime_parquet::{Field, Group, Repetition};
    let element = Field::new("element", PhysicalType::Int32, true);
    let a = Group::list("a", Repetition::Optional, element.into());
    let key = Field::new("key", PhysicalType::ByteArray, false).with_logical(LogicalType::String);
    let value = Field::new("value", PhysicalType::Int32, true);
    let m = Group::map("m", Repetition::Optional, key.into(), value.into());
    Schema::from_nodes("spark_schema", vec![a.into(), m.into()]).unwrap()
}

/// UnsafeArrayData of 4-byte ints, `None` a null element.
fn int_array(vals: &[Option<i32>]) -> Vec<u8> {
    let n = vals.len();
    let mut a = (n as u64).to_le_bytes().to_vec();
    a.resize(8 + n.div_ceil(64) * 8 + (4 * n).next_multiple_of(8), 0);
    for (i, v) in vals.iter().enumerate() {
        match v {
            Some(v) => {
                let at = 8 + n.div_ceil(64) * 8 + 4 * i;
                a[at..at + 4].copy_from_slice(&v.to_le_bytes());
            }
            None => a[8 + i / 8] |= 1 << (i % 8),
        }
    }
    a
}

/// UnsafeMapData of string keys and int values.
fn map(keys: &[&str], vals: &[Option<i32>]) -> Vec<u8> {
    let n = keys.len();
    let mut k = (n as u64).to_le_bytes().to_vec();
    k.resize(8 + n.div_ceil(64) * 8 + 8 * n, 0);
    for (i, key) in keys.iter().enumerate() {
        let at = k.len() as u64;
        k.extend_from_slice(key.as_bytes());
        k.resize(k.len().next_multiple_of(8), 0);
        let slot = 8 + n.div_ceil(64) * 8 + 8 * i;
        k[slot..slot + 8].copy_from_slice(&(at << 32 | key.len() as u64).to_le_bytes());
    }
    let mut out = (k.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(&k);
    out.extend_from_slice(&int_array(vals));
    out
}

#[test]
fn nested_values_become_levels_and_values() {
    let mut t = RowTransposer::for_schema(&nested_schema()).unwrap();
    let rows = [
        RowBuilder::new(2)
            .var(0, &int_array(&[Some(7), None, Some(-1)]))
            .var(1, &map(&["x", "y"], &[Some(1), None])),
        RowBuilder::new(2).null(0).var(1, &map(&[], &[])),
        RowBuilder::new(2).var(0, &int_array(&[])).null(1),
    ];
    let (data, offsets) = batch(&rows.map(|r| r.buf));
    let b = t.transpose(&data, &offsets).unwrap();
    let levels = |c: usize| {
        let n = b.columns[c].nested.unwrap();
        (n.def.to_vec(), n.rep.to_vec())
    };
    // a: [7, null, -1], null, []: definition 3 present, 2 null element, 0 null list, 1 empty.
    assert_eq!(levels(0), (vec![3, 2, 3, 0, 1], vec![0, 1, 1, 0, 0]));
    let ColumnData::Int32(v) = b.columns[0].data else {
        panic!("ints")
    };
    assert_eq!(v, &[7, -1]);
    // m.key: {x, y}, {}, null; m.value: {1, null}.
    assert_eq!(levels(1), (vec![2, 2, 1, 0], vec![0, 1, 0, 0]));
    assert_eq!(levels(2), (vec![3, 2, 1, 0], vec![0, 1, 0, 0]));
}

#[test]
fn fields_read_at_their_positions_in_wider_rows() {
    use vecruntime_parquet::{Field, Group, Repetition};
    // Written: s (string), a (array<int>), n (long); the rows also hold two partition
    // fields (an int before s, a string between a and n) that are not written.
    let s = Field::new("s", PhysicalType::ByteArray, true).with_logical(LogicalType::String);
    let element = Field::new("element", PhysicalType::Int32, true);
    let a = Group::list("a", Repetition::Optional, element.into());
    let n = Field::new("n", PhysicalType::Int64, true);
    let schema = Schema::from_nodes("spark_schema", vec![s.into(), a.into(), n.into()]).unwrap();
    let rows = [
        RowBuilder::new(5)
            .fixed(0, 2024)
            .var(1, b"first")
            .var(2, &int_array(&[Some(4), None]))
            .var(3, b"day=1")
            .fixed(4, 10),
        RowBuilder::new(5)
            .null(0)
            .null(1)
            .null(2)
            .var(3, b"a partition value")
            .null(4),
    ];
    let (data, offsets) = batch(&rows.map(|r| r.buf));
    let mut t = RowTransposer::for_schema(&schema)
        .unwrap()
        .reading_positions(5, &[1, 2, 4])
        .unwrap();
    let b = t.transpose(&data, &offsets).unwrap();
    let ColumnData::Binary { offsets, data } = b.columns[0].data else {
        panic!("strings")
    };
    assert_eq!((offsets, data), (&[0, 5, 5][..], &b"first"[..]));
    assert_eq!(b.columns[0].validity.unwrap()[0] & 3, 1);
    let ColumnData::Int32(elements) = b.columns[1].data else {
        panic!("ints")
    };
    assert_eq!(elements, &[4]);
    let levels = b.columns[1].nested.unwrap();
    assert_eq!((levels.def, levels.rep), (&[3, 2, 0][..], &[0, 1, 0][..]));
    let ColumnData::Int64(longs) = b.columns[2].data else {
        panic!("longs")
    };
    assert_eq!(longs[0], 10);
    assert_eq!(b.columns[2].validity.unwrap()[0] & 3, 1);

    let refused = |row_fields, positions: &[usize]| {
        RowTransposer::for_schema(&schema)
            .unwrap()
            .reading_positions(row_fields, positions)
            .err()
            .unwrap()
    };
    assert!(refused(5, &[1, 2]).contains("2 field positions for a schema of 3"));
    assert!(refused(5, &[1, 2, 5]).contains("position 5 outside rows of 5 fields"));
    assert!(refused(5, &[1, 1, 4]).contains("read for two columns"));
}

#[test]
fn released_buffers_serve_the_next_transposer_of_the_thread() {
    let rows: Vec<Vec<u8>> = (0..1000)
        .map(|r| RowBuilder::new(2).fixed(0, r).var(1, b"abc").buf)
        .collect();
    let (data, offsets) = batch(&rows);
    let types = vec![SparkType::Long, SparkType::String];
    let names = || vec!["n".to_string(), "s".to_string()];
    let mut first = RowTransposer::new(names(), types.clone());
    first.transpose(&data, &offsets).unwrap();
    let held = first.buffered_bytes();
    assert!(held >= 1000 * 8 + 3000, "{held}");
    first.release_buffers();
    assert_eq!(first.buffered_bytes(), 0);
    // Another file's transposer on this thread takes them: no new allocation for one row.
    let mut second = RowTransposer::new(names(), types);
    let (one, one_offsets) = batch(&rows[7..8]);
    let b = second.transpose(&one, &one_offsets).unwrap();
    let ColumnData::Int64(longs) = b.columns[0].data else {
        panic!("longs")
    };
    assert_eq!(longs, &[7]);
    assert!(second.buffered_bytes() >= held, "buffers reused");
    // The first transposes again after releasing, from fresh or pooled buffers alike.
    let b = first.transpose(&data, &offsets).unwrap();
    let ColumnData::Binary { offsets, .. } = b.columns[1].data else {
        panic!("strings")
    };
    assert_eq!(offsets[1000], 3000);
}

#[test]
fn malformed_nested_values_are_errors_naming_the_column() {
    let mut t = RowTransposer::for_schema(&nested_schema()).unwrap();
    let good_map = map(&["x"], &[Some(1)]);
    let mut past = RowBuilder::new(2).var(1, &good_map);
    past = past.fixed(0, 4096 << 32 | 24);
    let mut count = int_array(&[Some(1)]);
    count[..8].copy_from_slice(&1000u64.to_le_bytes());
    let mut key_size = map(&["x"], &[Some(1)]);
    key_size[..8].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let uneven = map(&["x", "y"], &[Some(1)]);
    let mut count40 = int_array(&[Some(1)]);
    count40[..8].copy_from_slice(&40u64.to_le_bytes());
    let cases = [
        (past, "a.list.element", "runs past"),
        (
            RowBuilder::new(2).var(0, &count).var(1, &good_map),
            "a.list.element",
            "array element count 1000 is not valid",
        ),
        (
            // A count the bytes could hold the null bits of (at most 8 a byte), yet not
            // the values of.
            RowBuilder::new(2).var(0, &count40).var(1, &good_map),
            "a.list.element",
            "array of 40 elements needs 176 bytes, has 24",
        ),
        (
            RowBuilder::new(2).null(0).var(1, &key_size),
            "m.key_value.key",
            "map key array size",
        ),
        (
            RowBuilder::new(2).null(0).var(1, &uneven),
            "m.key_value.key",
            "map of 2 keys and 1 values",
        ),
    ];
    for (row, column, want) in cases {
        let (data, offsets) = batch(&[row.buf]);
        let e = t.transpose(&data, &offsets).unwrap_err().to_string();
        assert!(
            e.contains(&format!("column '{column}'")) && e.contains(want),
            "{e}"
        );
    }
    // A key array one byte longer than its map leaves room for.
    let mut over = map(&["x"], &[Some(1)]);
    let size = over.len() as u64 - 8 + 1;
    over[..8].copy_from_slice(&size.to_le_bytes());
    let row = RowBuilder::new(2).null(0).var(1, &over);
    let (data, offsets) = batch(&[row.buf]);
    let e = t.transpose(&data, &offsets).unwrap_err().to_string();
    assert!(e.contains(&format!("map key array size {size}")), "{e}");
    // A value array counting more values than the rest of its map holds (the row's other
    // field follows the map, so the bytes after it are in the row).
    let mut short_values = map(&["x"], &[Some(1)]);
    let keys_end = 8 + u64::from_le_bytes(short_values[..8].try_into().unwrap()) as usize;
    short_values[keys_end..keys_end + 8].copy_from_slice(&3u64.to_le_bytes());
    let row = RowBuilder::new(2)
        .var(1, &short_values)
        .var(0, &int_array(&[Some(1); 8]));
    let (data, offsets) = batch(&[row.buf]);
    let e = t.transpose(&data, &offsets).unwrap_err().to_string();
    assert!(
        e.contains("array of 3 elements needs 28 bytes, has 24"),
        "{e}"
    );
    // The second row's array starts right after that row: inside the batch, past its row.
    let good = RowBuilder::new(2)
        .var(0, &int_array(&[Some(1)]))
        .var(1, &good_map);
    let len = good.buf.len() as u64;
    let past = RowBuilder::new(2).var(1, &good_map);
    let past_len = past.buf.len() as u64;
    let past = past.fixed(0, past_len << 32 | 8);
    let (data, offsets) = batch(&[good.buf, past.buf]);
    let e = t.transpose(&data, &offsets).unwrap_err().to_string();
    assert!(
        e.contains("UnsafeRow 1 of the batch") && e.contains("runs past"),
        "{e} (rows of {len} and {past_len} bytes)"
    );
}

/// UnsafeArrayData of variable-length elements (offsets from the array's start).
fn var_array(vals: &[&[u8]]) -> Vec<u8> {
    let n = vals.len();
    let mut a = (n as u64).to_le_bytes().to_vec();
    a.resize(8 + n.div_ceil(64) * 8 + 8 * n, 0);
    for (i, v) in vals.iter().enumerate() {
        let at = a.len() as u64;
        a.extend_from_slice(v);
        a.resize(a.len().next_multiple_of(8), 0);
        let slot = 8 + n.div_ceil(64) * 8 + 8 * i;
        a[slot..slot + 8].copy_from_slice(&(at << 32 | v.len() as u64).to_le_bytes());
    }
    a
}

#[test]
fn malformed_structs_arrays_maps_and_decimals_are_errors() {
    use vecruntime_parquet::{Field, Group, Repetition};
    // struct<a:int, d:decimal(30,6)>, array<decimal(30,6)>, map<string,int>.
    let s = Group::new(
        "s",
        Repetition::Optional,
        vec![
            Field::new("a", PhysicalType::Int32, true).into(),
            Field::decimal("d", 30, 6, true).into(),
        ],
    );
    let a = Group::list(
        "a",
        Repetition::Optional,
        Field::decimal("element", 30, 6, true).into(),
    );
    let m = nested_schema().fields[1].clone();
    let schema = Schema::from_nodes("spark_schema", vec![s.into(), a.into(), m]).unwrap();
    let mut t = RowTransposer::for_schema(&schema).unwrap();
    let good = var_array(&[&[1], &[0xff; 13]]);
    let ok = RowBuilder::new(3).null(0).var(1, &good).null(2);
    let (data, offsets) = batch(&[ok.buf]);
    t.transpose(&data, &offsets).unwrap();
    // 2 slots of 8 bytes: 32 bytes (a sum instead of the product would allow 26).
    let mut short = good.clone();
    short.truncate(28);
    let cases = [
        (
            RowBuilder::new(3).var(0, &[0; 16]).null(1).null(2),
            "struct of 16 bytes, its 2 fields need at least 24",
        ),
        (
            RowBuilder::new(3).null(0).var(1, &short).null(2),
            "array of 2 elements needs 32 bytes, has 28",
        ),
        (
            RowBuilder::new(3)
                .null(0)
                .var(1, &var_array(&[&[]]))
                .null(2),
            "decimal of 0 bytes does not fit DECIMAL(30) in 13",
        ),
        (
            RowBuilder::new(3)
                .null(0)
                .var(1, &var_array(&[&[1; 14]]))
                .null(2),
            "decimal of 14 bytes does not fit DECIMAL(30) in 13",
        ),
        (
            RowBuilder::new(3).null(0).null(1).var(2, &[0; 4]),
            "map lacks its key array size",
        ),
        (
            RowBuilder::new(3).null(0).null(1).var(2, &[0; 8]),
            "array of 0 bytes lacks its element count",
        ),
    ];
    for (row, want) in cases {
        let (data, offsets) = batch(&[row.buf]);
        let e = t.transpose(&data, &offsets).unwrap_err().to_string();
        assert!(e.contains(want), "{e}");
    }
    // A flat decimal column.
    let mut t = RowTransposer::new(vec!["d".into()], vec![SparkType::Decimal { precision: 30 }]);
    for (bytes, want) in [
        (&[][..], "decimal of 0 bytes"),
        (&[1; 14], "decimal of 14 bytes"),
    ] {
        let (data, offsets) = batch(&[RowBuilder::new(1).var(0, bytes).buf]);
        let e = t.transpose(&data, &offsets).unwrap_err().to_string();
        assert!(e.contains(want) && e.contains("column 'd'"), "{e}");
    }
}

/// A big-endian POINT(1 2) after Spark's 4-byte SRID header, and its little-endian WKB.
fn geo_value() -> (Vec<u8>, Vec<u8>) {
    let mut v = 4326i32.to_le_bytes().to_vec();
    v.push(0);
    v.extend_from_slice(&1u32.to_be_bytes());
    v.extend_from_slice(&1f64.to_be_bytes());
    v.extend_from_slice(&2f64.to_be_bytes());
    let mut le = vec![1];
    le.extend_from_slice(&1u32.to_le_bytes());
    le.extend_from_slice(&1f64.to_le_bytes());
    le.extend_from_slice(&2f64.to_le_bytes());
    (v, le)
}

#[test]
fn geospatial_values_lose_their_srid_and_become_little_endian_wkb() {
    use vecruntime_parquet::{Field, Group, Repetition};
    let (value, wkb) = geo_value();
    let geo = LogicalType::Geometry { crs: None };
    let flat = Field::new("g", PhysicalType::ByteArray, true).with_logical(geo.clone());
    let element = Field::new("element", PhysicalType::ByteArray, true).with_logical(geo);
    let list = Group::list("a", Repetition::Optional, element.into());
    let schema = Schema::from_nodes("spark_schema", vec![flat.into(), list.into()]).unwrap();
    let mut t = RowTransposer::for_schema(&schema).unwrap();
    let row = RowBuilder::new(2)
        .var(0, &value)
        .var(1, &var_array(&[&value, &value]));
    let (data, offsets) = batch(&[row.buf]);
    let b = t.transpose(&data, &offsets).unwrap();
    let two: Vec<u8> = [wkb.clone(), wkb.clone()].concat();
    for (c, want) in b.columns.iter().zip([&wkb, &two]) {
        let ColumnData::Binary { data, .. } = c.data else {
            panic!("not binary")
        };
        assert_eq!(data, &want[..]);
    }
    // A value Spark's WKB reader refuses: an error naming the column, flat or nested.
    let mut bad = value.clone();
    bad[4] = 3;
    for (row, column) in [
        (RowBuilder::new(2).var(0, &bad).null(1), "column 'g'"),
        (
            RowBuilder::new(2)
                .null(0)
                .var(1, &var_array(&[&value, &bad])),
            "column 'a.list.element'",
        ),
        (RowBuilder::new(2).var(0, &[1, 0]).null(1), "column 'g'"),
    ] {
        let (data, offsets) = batch(&[row.buf]);
        let e = t.transpose(&data, &offsets).unwrap_err().to_string();
        assert!(
            e.contains(column) && (e.contains("WKB") || e.contains("SRID")),
            "{e}"
        );
    }
}

/// EXCEPTION mode refuses ancient values, and only values: a null INT96 slot (zero bytes,
/// Julian day 0) is not looked at.
#[test]
fn exception_mode_skips_null_slots() {
    let mut t = RowTransposer::new(
        vec!["t".into(), "d".into()],
        vec![SparkType::TimestampInt96, SparkType::Date],
    );
    t.set_rebases(Rebases {
        datetime: Some(Rebase::Exception {
            micros_threshold: -2_208_988_800_000_000,
        }),
        int96: Some(Rebase::Exception {
            micros_threshold: -2_208_988_800_000_000,
        }),
    });
    assert_eq!(t.num_fields(), 2);
    let modern = RowBuilder::new(2)
        .fixed(0, 1_700_000_000_000_000)
        .fixed(1, 19_000);
    let rows = [modern.buf.clone(), RowBuilder::new(2).null(0).null(1).buf];
    let (data, offsets) = batch(&rows);
    t.transpose(&data, &offsets).unwrap();
    let ancient = RowBuilder::new(2).fixed(0, (-3_000_000_000_000_000i64) as u64);
    let (data, offsets) = batch(&[modern.buf, ancient.fixed(1, 0).buf]);
    let e = t.transpose(&data, &offsets).unwrap_err().to_string();
    assert!(e.contains("column 't'") && e.contains("before 1900"), "{e}");
    let ancient_day = RowBuilder::new(2)
        .null(0)
        .fixed(1, (-141_428i32) as u32 as u64);
    let (data, offsets) = batch(&[ancient_day.buf]);
    let e = t.transpose(&data, &offsets).unwrap_err().to_string();
    assert!(e.contains("column 'd': a date before 1582-10-15"), "{e}");
}

#[test]
fn buffered_bytes_count_every_buffer_at_its_element_size() {
    use std::mem::size_of;
    let mut t = RowTransposer::for_schema(&nested_schema()).unwrap();
    t.cols.push(ColumnBuf {
        validity: Vec::with_capacity(3),
        has_null: false,
        values: Values {
            bytes: Vec::with_capacity(5),
            i32s: Vec::with_capacity(7),
            i64s: Vec::with_capacity(11),
            f32s: Vec::with_capacity(13),
            f64s: Vec::with_capacity(17),
            offsets: Vec::with_capacity(19),
        },
    });
    let leaves: usize = t.leaves.iter().map(LeafBuf::capacity_bytes).sum();
    let c = &t.cols[0];
    let v = &c.values;
    let held = c.validity.capacity()
        + v.bytes.capacity()
        + v.i32s.capacity() * size_of::<i32>()
        + v.i64s.capacity() * size_of::<i64>()
        + v.f32s.capacity() * size_of::<f32>()
        + v.f64s.capacity() * size_of::<f64>()
        + v.offsets.capacity() * size_of::<i32>();
    assert_eq!(held, 3 + 5 + 28 + 88 + 52 + 136 + 76);
    assert_eq!(t.buffered_bytes(), held + leaves);
    // The leaves' buffers count too, once they hold values.
    let row = RowBuilder::new(2)
        .var(0, &int_array(&[Some(1); 100]))
        .null(1);
    let (data, offsets) = batch(&[row.buf]);
    t.transpose(&data, &offsets).unwrap();
    assert!(t.buffered_bytes() >= held + 100 * (4 + 2 + 2));
    // And the shredder's entry lists.
    let leaves: usize = t.leaves.iter().map(LeafBuf::capacity_bytes).sum();
    assert!(t.scratch.capacity_bytes() >= 100 * 16);
    assert_eq!(
        t.buffered_bytes(),
        held + leaves + t.scratch.capacity_bytes()
    );
}

#[test]
fn row_bounds_are_checked_for_every_row() {
    let mut t = RowTransposer::new(
        vec!["a".into(), "b".into(), "c".into()],
        vec![SparkType::Int; 3],
    );
    let row = RowBuilder::new(3).fixed(0, 1).fixed(1, 2).fixed(2, 3).buf;
    let (data, offsets) = batch(&[row.clone(), row.clone()]);
    t.transpose(&data, &offsets).unwrap();
    for (offsets, want) in [
        (vec![-8, 32], "row bytes -8..32 outside the batch"),
        (vec![32, 0], "row bytes 32..0 outside the batch"),
        (
            vec![0, 32, 64, 65],
            "row bytes 64..65 outside the batch of 64",
        ),
        (
            vec![0, 32, 56],
            "row of 24 bytes, 3 fields need at least 32",
        ),
        (vec![0, 32, 32], "row of 0 bytes, 3 fields need at least 32"),
    ] {
        let e = t.transpose(&data, &offsets).unwrap_err().to_string();
        assert!(e.contains(want) && e.contains("column 'a'"), "{e}");
    }
}

#[test]
fn malformed_rows_are_errors_naming_the_column() {
    let mut t = RowTransposer::new(vec!["s".into()], vec![SparkType::String]);
    let mut bad = RowBuilder::new(1).var(0, b"abc");
    bad = bad.fixed(0, 64 << 32 | 3);
    let (data, offsets) = batch(&[bad.buf]);
    let e = t.transpose(&data, &offsets).unwrap_err().to_string();
    assert!(e.contains("column 's'") && e.contains("runs past"), "{e}");
    let e = t.transpose(&data, &[0, 4]).unwrap_err().to_string();
    assert!(e.contains("at least 16"), "{e}");
    let e = t.transpose(&data, &[0, 1000]).unwrap_err().to_string();
    assert!(e.contains("outside the batch"), "{e}");
}

#[test]
fn fixed_binaries_take_their_width_and_refuse_another() {
    use vecruntime_parquet::{Field, Group, Repetition};
    let mut t = RowTransposer::new(
        vec!["f".into(), "u".into()],
        vec![
            SparkType::FixedBinary { width: 3 },
            SparkType::FixedBinary { width: 16 },
        ],
    );
    let uuid: Vec<u8> = (0..16).collect();
    let rows = [
        RowBuilder::new(2).var(0, &[1, 2, 3]).var(1, &uuid).buf,
        RowBuilder::new(2).null(0).null(1).buf,
        RowBuilder::new(2).var(0, &[0xff; 3]).null(1).buf,
    ];
    let (data, offsets) = batch(&rows);
    let b = t.transpose(&data, &offsets).unwrap();
    let fixed = |c: usize| match b.columns[c].data {
        ColumnData::FixedBinary { width, data } => (width, data.to_vec()),
        _ => panic!("column {c} is not fixed-width"),
    };
    // Nulls keep zeroed room: values sit at row * width.
    assert_eq!(fixed(0), (3, vec![1, 2, 3, 0, 0, 0, 0xff, 0xff, 0xff]));
    assert_eq!(fixed(1).1[..16], uuid[..]);
    for bad in [&[1, 2][..], &[1, 2, 3, 4], &[]] {
        let (data, offsets) = batch(&[RowBuilder::new(2).var(0, bad).null(1).buf]);
        let e = t.transpose(&data, &offsets).unwrap_err().to_string();
        let want = format!(
            "a value of {} bytes in a FIXED_LEN_BYTE_ARRAY(3) column",
            bad.len()
        );
        assert!(e.contains(&want) && e.contains("column 'f'"), "{e}");
    }
    // In a list, as a nested leaf.
    let a = Group::list(
        "a",
        Repetition::Optional,
        Field::new("element", PhysicalType::FixedLenByteArray(2), true).into(),
    );
    let schema = Schema::from_nodes("spark_schema", vec![a.into()]).unwrap();
    let mut t = RowTransposer::for_schema(&schema).unwrap();
    let (data, offsets) = batch(&[RowBuilder::new(1)
        .var(0, &var_array(&[&[7, 8], &[9, 10]]))
        .buf]);
    let b = t.transpose(&data, &offsets).unwrap();
    let ColumnData::FixedBinary { width: 2, data } = b.columns[0].data else {
        panic!("not a FIXED_LEN_BYTE_ARRAY(2) leaf")
    };
    assert_eq!(data, &[7, 8, 9, 10]);
    let (data, offsets) = batch(&[RowBuilder::new(1).var(0, &var_array(&[&[7]])).buf]);
    let e = t.transpose(&data, &offsets).unwrap_err().to_string();
    assert!(
        e.contains("a value of 1 bytes in a FIXED_LEN_BYTE_ARRAY(2) column"),
        "{e}"
    );
}
