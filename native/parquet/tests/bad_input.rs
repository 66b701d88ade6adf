//! Malformed input gets a typed error naming the column, never a panic.

mod common;
use vecruntime_parquet::*;

fn writer(fields: Vec<Field>) -> FileWriter<Vec<u8>> {
    FileWriter::new(
        Vec::new(),
        Schema::new(fields).unwrap(),
        WriterOptions::default(),
    )
    .unwrap()
}

fn err_of(fields: Vec<Field>, n: usize, col: ColumnView) -> Error {
    let mut w = writer(fields);
    let e = w
        .write_batch(&Batch {
            num_rows: n,
            columns: vec![col],
        })
        .unwrap_err();
    // The writer stays usable after rejected input.
    w.close().unwrap();
    e
}

fn assert_input(e: Error, column: &str, needle: &str) {
    assert_eq!(e.column(), Some(column), "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains(column) && msg.contains(needle),
        "message '{msg}' lacks '{needle}'"
    );
}

#[test]
fn values_shorter_than_row_count() {
    let e = err_of(
        vec![Field::new("a", PhysicalType::Int64, false)],
        4,
        ColumnView::new(ColumnData::Int64(&[1, 2, 3])),
    );
    assert_input(e, "a", "3 entries but 4 are needed");
}

#[test]
fn validity_shorter_than_row_count() {
    let v = [0xffu8];
    let e = err_of(
        vec![Field::new("v", PhysicalType::Int32, true)],
        9,
        ColumnView::new(ColumnData::Int32(&[0; 9])).with_validity(Some(&v)),
    );
    assert_input(e, "v", "validity");
}

#[test]
fn offsets_not_monotone_or_past_data() {
    let f = || vec![Field::new("s", PhysicalType::ByteArray, true)];
    let e = err_of(
        f(),
        2,
        ColumnView::new(ColumnData::Binary {
            offsets: &[0, 3, 1],
            data: b"abc",
        }),
    );
    assert_input(e, "s", "not monotone");
    let e = err_of(
        f(),
        2,
        ColumnView::new(ColumnData::Binary {
            offsets: &[0, 3, 9],
            data: b"abc",
        }),
    );
    assert_input(e, "s", "past the 3 data bytes");
    let e = err_of(
        f(),
        1,
        ColumnView::new(ColumnData::Binary {
            offsets: &[-1, 2],
            data: b"abc",
        }),
    );
    assert_input(e, "s", "negative");
    let e = err_of(
        f(),
        2,
        ColumnView::new(ColumnData::Binary {
            offsets: &[0, 1],
            data: b"abc",
        }),
    );
    assert_input(e, "s", "offsets");
}

#[test]
fn wrong_fixed_length() {
    let e = err_of(
        vec![Field::decimal("d", 38, 2, false)],
        1,
        ColumnView::new(ColumnData::FixedBinary {
            width: 8,
            data: &[0; 8],
        }),
    );
    assert_input(e, "d", "width 8");
    let e = err_of(
        vec![Field::new("t", PhysicalType::Int96, false)],
        2,
        ColumnView::new(ColumnData::FixedBinary {
            width: 12,
            data: &[0; 13],
        }),
    );
    assert_input(e, "t", "13 entries but 24");
}

#[test]
fn batch_not_matching_schema() {
    let e = err_of(
        vec![Field::new("x", PhysicalType::Double, false)],
        1,
        ColumnView::new(ColumnData::Float(&[1.0])),
    );
    assert_input(e, "x", "DOUBLE column given float values");
    let mut w = writer(vec![
        Field::new("x", PhysicalType::Double, false),
        Field::new("y", PhysicalType::Int32, false),
    ]);
    let e = w
        .write_batch(&Batch {
            num_rows: 1,
            columns: vec![ColumnView::new(ColumnData::Double(&[1.0]))],
        })
        .unwrap_err();
    assert!(e.to_string().contains("1 columns, schema has 2"), "{e}");
}

#[test]
fn null_in_required_column() {
    let v = [0b1101u8];
    let e = err_of(
        vec![Field::new("r", PhysicalType::Int32, false)],
        4,
        ColumnView::new(ColumnData::Int32(&[1, 2, 3, 4])).with_validity(Some(&v)),
    );
    assert_input(e, "r", "null in a required");
}

#[test]
fn value_too_large_for_a_page() {
    // A 2 GiB - 1 string cannot be a page together with its 4-byte length prefix (Parquet page
    // sizes are i32). The buffer is allocated lazily by the OS, so this costs no real memory
    // until the writer would copy it, which it must not do.
    let len = i32::MAX as usize;
    let data = vec![0u8; len];
    let offsets = [0i32, len as i32];
    let e = err_of(
        vec![Field::new("big", PhysicalType::ByteArray, false)],
        1,
        ColumnView::new(ColumnData::Binary {
            offsets: &offsets,
            data: &data,
        }),
    );
    assert!(matches!(e, Error::TooLarge { .. }), "{e:?}");
    assert_input(e, "big", "2 GiB");
}

#[test]
fn bad_schema_and_options() {
    assert!(Schema::new(vec![Field::decimal("d", 0, 0, true)]).is_err());
    let e = Schema::new(vec![
        Field::new("a", PhysicalType::Int32, true),
        Field::new("a", PhysicalType::Int64, true),
    ])
    .unwrap_err();
    assert!(e.to_string().contains("'a' appears twice"));
    let e = Schema::new(vec![
        Field::new("s", PhysicalType::Int32, true).with_logical(LogicalType::String)
    ])
    .unwrap_err();
    assert!(e.to_string().contains("'s'"));
    let schema = Schema::new(vec![Field::new("a", PhysicalType::Int32, true)]).unwrap();
    let bad = WriterOptions {
        page_size: 0,
        ..Default::default()
    };
    assert!(FileWriter::new(Vec::new(), schema.clone(), bad).is_err());
    let mut bad = WriterOptions::default();
    bad.bloom_filters
        .insert("nope".into(), BloomFilterOptions::default());
    let e = FileWriter::new(Vec::new(), schema, bad).err().unwrap();
    assert!(e.to_string().contains("'nope'"));
}

struct FailingSink(usize);
impl vecruntime_parquet::Sink for FailingSink {}
impl std::io::Write for FailingSink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        if self.0 < b.len() {
            return Err(std::io::Error::other("disk full"));
        }
        self.0 -= b.len();
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn failing_sink_and_use_after_close() {
    let schema = Schema::new(vec![Field::new("a", PhysicalType::Int64, false)]).unwrap();
    let mut w =
        FileWriter::new(FailingSink(100), schema.clone(), WriterOptions::default()).unwrap();
    let vals: Vec<i64> = (0..1000).collect();
    w.write_batch(&Batch {
        num_rows: 1000,
        columns: vec![ColumnView::new(ColumnData::Int64(&vals))],
    })
    .unwrap();
    let e = w.close().unwrap_err();
    assert!(
        matches!(e, Error::Io(_)) && e.to_string().contains("disk full"),
        "{e}"
    );
    let e = w
        .write_batch(&Batch {
            num_rows: 0,
            columns: vec![ColumnView::new(ColumnData::Int64(&[]))],
        })
        .unwrap_err();
    assert!(e.to_string().contains("failed earlier"));
    let mut w = FileWriter::new(Vec::new(), schema, WriterOptions::default()).unwrap();
    w.close().unwrap();
    assert!(w.close().unwrap_err().to_string().contains("closed"));
}
