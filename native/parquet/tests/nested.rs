//! Nested columns (explicit definition and repetition levels) read back by arrow-rs: values,
//! nulls at every level, empty lists, pages and row groups cut only between records, and
//! malformed levels rejected with the column's path.

mod common;

use arrow_array::{cast::AsArray, types::Int32Type, Array};
use bytes::Bytes;
use common::*;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::reader::{FileReader, SerializedFileReader};
use vecruntime_parquet::*;

/// `optional group a (LIST) { repeated group list { optional int32 element; } }`
fn list_schema() -> Schema {
    let element = Field::new("element", PhysicalType::Int32, true);
    let list = Group::new("list", Repetition::Repeated, vec![element.into()]);
    let a =
        Group::new("a", Repetition::Optional, vec![list.into()]).with_annotation(GroupType::List);
    Schema::from_nodes("spark_schema", vec![a.into()]).unwrap()
}

type Record = Option<Vec<Option<i32>>>;

/// Levels and values as Spark's writer shreds such a column (max def 3, max rep 1).
fn shred(records: &[Record]) -> (Vec<i16>, Vec<i16>, Vec<i32>) {
    let (mut def, mut rep, mut vals) = (Vec::new(), Vec::new(), Vec::new());
    for r in records {
        match r {
            None => {
                def.push(0);
                rep.push(0);
            }
            Some(l) if l.is_empty() => {
                def.push(1);
                rep.push(0);
            }
            Some(l) => {
                for (i, e) in l.iter().enumerate() {
                    rep.push(if i == 0 { 0 } else { 1 });
                    match e {
                        None => def.push(2),
                        Some(v) => {
                            def.push(3);
                            vals.push(*v);
                        }
                    }
                }
            }
        }
    }
    (def, rep, vals)
}

fn records(n: usize, rng: &mut Rng, huge_at: usize) -> Vec<Record> {
    (0..n)
        .map(|i| match rng.below(5) {
            0 => None,
            1 => Some(vec![]),
            _ => {
                let len = if i == huge_at {
                    10_000
                } else {
                    rng.below(6) as usize
                };
                Some(
                    (0..len)
                        .map(|_| (rng.below(4) != 0).then(|| rng.below(1000) as i32 - 500))
                        .collect(),
                )
            }
        })
        .collect()
}

fn write(schema: &Schema, opts: WriterOptions, batches: &[&[Record]]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = FileWriter::new(&mut out, schema.clone(), opts).unwrap();
    for b in batches {
        let (def, rep, vals) = shred(b);
        let col = ColumnView::new(ColumnData::Int32(&vals)).with_levels(&def, &rep);
        w.write_batch(&Batch {
            num_rows: b.len(),
            columns: vec![col],
        })
        .unwrap();
    }
    w.close().unwrap();
    out
}

fn read(file: Vec<u8>) -> Vec<Record> {
    let reader = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(file))
        .unwrap()
        .build()
        .unwrap();
    let mut out = Vec::new();
    for batch in reader {
        let batch = batch.unwrap();
        let lists = batch.column(0).as_list::<i32>();
        for i in 0..lists.len() {
            if lists.is_null(i) {
                out.push(None);
                continue;
            }
            let l = lists.value(i);
            let ints = l.as_primitive::<Int32Type>();
            out.push(Some(
                (0..ints.len())
                    .map(|j| (!ints.is_null(j)).then(|| ints.value(j)))
                    .collect(),
            ));
        }
    }
    out
}

#[test]
fn lists_with_nulls_at_every_level_read_back() {
    let mut rng = Rng(7);
    let recs = records(30_000, &mut rng, 12_345);
    let opts = WriterOptions {
        page_size: 4 * 1024,
        row_group_size: 64 * 1024,
        ..Default::default()
    };
    let batches: Vec<&[Record]> = recs.chunks(4096).collect();
    let file = write(&list_schema(), opts, &batches);
    let md = metadata(&file);
    assert!(
        md.num_row_groups() > 1,
        "row groups: {}",
        md.num_row_groups()
    );
    let col = md.row_group(0).column(0);
    assert_eq!(col.column_path().parts(), ["a", "list", "element"]);
    // Nulls at any level count as the leaf's nulls (parquet-java's writeNull).
    let (def, _, _) = shred(&recs[..md.row_group(0).num_rows() as usize]);
    let nulls = def.iter().filter(|&&d| d < 3).count() as u64;
    assert_eq!(col.statistics().unwrap().null_count_opt(), Some(nulls));
    assert_eq!(col.num_values(), def.len() as i64);
    assert_eq!(read(file), recs);
}

#[test]
fn pages_and_row_groups_start_on_records() {
    let mut rng = Rng(11);
    let recs = records(5_000, &mut rng, 2_500);
    let opts = WriterOptions {
        page_size: 1024,
        row_group_size: 16 * 1024,
        ..Default::default()
    };
    let file = write(&list_schema(), opts, &[&recs]);
    let reader = SerializedFileReader::new(Bytes::from(file.clone())).unwrap();
    let mut rows = 0;
    let mut pages = 0;
    for g in 0..reader.num_row_groups() {
        let rg = reader.get_row_group(g).unwrap();
        let mut page_reader = rg.get_column_page_reader(0).unwrap();
        let mut group_rows = 0;
        while let Some(page) = page_reader.get_next_page().unwrap() {
            if let parquet::column::page::Page::DataPageV2 {
                num_rows,
                num_values,
                rep_levels_byte_len,
                buf,
                ..
            } = page
            {
                pages += 1;
                group_rows += num_rows as i64;
                assert!(num_values >= num_rows);
                // The page's first repetition level is 0: it starts a record.
                let rep = &buf[..rep_levels_byte_len as usize];
                assert_eq!(first_rle_value(rep), 0, "page {pages}");
            }
        }
        assert_eq!(group_rows, rg.metadata().num_rows());
        rows += group_rows;
    }
    assert_eq!(rows, 5_000);
    assert!(pages > 20, "pages: {pages}");
    assert_eq!(read(file), recs);
}

/// The first value of 1-bit levels in the RLE/bit-packed hybrid: after the run header (a
/// ULEB128), an RLE run's value byte and a bit-packed run's first byte both start with it.
fn first_rle_value(bytes: &[u8]) -> u8 {
    let header_len = bytes.iter().position(|b| b & 0x80 == 0).unwrap() + 1;
    bytes[header_len] & 1
}

/// Definition levels, repetition levels, values, rows, the error expected.
type Case<'a> = (&'a [i16], &'a [i16], &'a [i32], usize, &'a str);

#[test]
fn malformed_levels_are_rejected_naming_the_column() {
    let schema = list_schema();
    let mut out = Vec::new();
    let mut w = FileWriter::new(&mut out, schema, WriterOptions::default()).unwrap();
    let vals = [1i32, 2];
    let cases: [Case; 7] = [
        (&[3, 4], &[0, 0], &vals, 2, "outside 0..=3"),
        (
            &[3, -1],
            &[0, 0],
            &vals,
            2,
            "(definition -1, repetition 0) at entry 1",
        ),
        (
            &[3, 3],
            &[1, 0],
            &vals,
            2,
            "first entry has repetition level 1",
        ),
        (&[3, 3], &[0, 1], &vals, 2, "1 records"),
        (
            &[3, 3],
            &[0, 0],
            &vals[..1],
            2,
            "holds 1 entries but 2 are needed",
        ),
        (
            &[3, 3],
            &[0],
            &vals,
            1,
            "2 definition levels but 1 repetition",
        ),
        (&[3, 3], &[0, 2], &vals, 1, "outside 0..=3 and 0..=1"),
    ];
    for (def, rep, v, rows, want) in cases {
        let col = ColumnView::new(ColumnData::Int32(v)).with_levels(def, rep);
        let e = w
            .write_batch(&Batch {
                num_rows: rows,
                columns: vec![col],
            })
            .unwrap_err()
            .to_string();
        assert!(e.contains("a.list.element") && e.contains(want), "{e}");
    }
    // Without levels, or with a validity bitmap besides them.
    let col = ColumnView::new(ColumnData::Int32(&vals));
    let e = w
        .write_batch(&Batch {
            num_rows: 2,
            columns: vec![col],
        })
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("without its definition and repetition levels"),
        "{e}"
    );
    let col = ColumnView::new(ColumnData::Int32(&vals))
        .with_validity(Some(&[3u8]))
        .with_levels(&[3, 3], &[0, 0]);
    let e = w
        .write_batch(&Batch {
            num_rows: 2,
            columns: vec![col],
        })
        .unwrap_err()
        .to_string();
    assert!(e.contains("validity bitmap"), "{e}");
    // Rejected input leaves the writer usable.
    w.write_batch(&Batch {
        num_rows: 1,
        columns: vec![ColumnView::new(ColumnData::Int32(&vals[..1])).with_levels(&[3], &[0])],
    })
    .unwrap();
    w.close().unwrap();
    assert_eq!(read(out), vec![Some(vec![Some(1)])]);
}

#[test]
fn schema_tree_checks_names_and_depth() {
    let leaf = || Field::new("x", PhysicalType::Int32, true);
    let dup = Group::new(
        "g",
        Repetition::Optional,
        vec![leaf().into(), leaf().into()],
    );
    let e = Schema::from_nodes("r", vec![dup.into()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("'g.x' appears twice"), "{e}");
    let empty = Group::new("g", Repetition::Optional, vec![]);
    let e = Schema::from_nodes("r", vec![empty.into()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("group 'g' has no fields"), "{e}");
    // Depth 6 of lists: levels grow with every optional and repeated field.
    let mut node: Node = leaf().into();
    for d in 0..6 {
        node = Group::list(format!("l{d}"), Repetition::Optional, node).into();
    }
    let s = Schema::from_nodes("r", vec![node]).unwrap();
    assert_eq!((s.columns()[0].max_def, s.columns()[0].max_rep), (13, 6));
    assert_eq!(s.columns()[0].path.len(), 13);
}

#[test]
fn variant_groups_carry_their_logical_type() {
    use parquet::basic::{ConvertedType, LogicalType};
    // Spark's unshredded Variant: `optional group v (VARIANT(1)) { value; metadata }`.
    let bin = |n: &str| Field::new(n, PhysicalType::ByteArray, false);
    let v = Group::new(
        "v",
        Repetition::Optional,
        vec![bin("value").into(), bin("metadata").into()],
    )
    .with_annotation(GroupType::Variant { spec_version: 1 });
    let schema = Schema::from_nodes("spark_schema", vec![v.into()]).unwrap();
    let mut out = Vec::new();
    FileWriter::new(&mut out, schema, WriterOptions::default())
        .unwrap()
        .close()
        .unwrap();
    let reader = SerializedFileReader::new(Bytes::from(out)).unwrap();
    let root = reader
        .metadata()
        .file_metadata()
        .schema_descr()
        .root_schema();
    let info = root.get_fields()[0].get_basic_info();
    assert_eq!(
        info.logical_type_ref(),
        Some(&LogicalType::variant(Some(1)))
    );
    assert_eq!(info.converted_type(), ConvertedType::NONE);
}
