//! Page indexes and bloom filters, checked through what arrow-rs reads.

mod common;
use common::*;
use parquet::file::page_index::column_index::ColumnIndexMetaData;
use parquet::file::properties::ReaderProperties;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::serialized_reader::ReadOptionsBuilder;
use vecruntime_parquet::*;

#[test]
fn offset_index_locates_every_page_and_column_index_bounds_each_page() {
    let fields = vec![
        Field::new("id", PhysicalType::Int64, false),
        Field::new("s", PhysicalType::ByteArray, true).with_logical(LogicalType::String),
        Field::new("d", PhysicalType::Double, true),
    ];
    let schema = Schema::new(fields.clone()).unwrap();
    let n = 50_000;
    let ids: Vec<i64> = (0..n as i64).collect();
    let mut rng = Rng(3);
    let s = generate(&fields[1], n, Nulls::Some, Card::Unique, &mut rng);
    let d = generate(&fields[2], n, Nulls::Some, Card::Unique, &mut rng);
    let cols = vec![
        OwnedColumn {
            validity: None,
            data: Owned::I64(ids),
            levels: None,
        },
        s,
        d,
    ];
    let opts = WriterOptions {
        page_size: 16 * 1024,
        ..Default::default()
    };
    let (file, _) = write_file(&schema, &opts, std::slice::from_ref(&cols), &[n]);
    let md = metadata(&file);
    let pi = md.page_index_for_row_group(0);
    let locs = pi
        .offset_index(0)
        .expect("offset index read")
        .page_locations();
    assert!(locs.len() > 5, "several pages: {}", locs.len());
    // Pages are contiguous after the dictionary page and rows are numbered from 0.
    assert_eq!(locs[0].first_row_index, 0);
    for w in locs.windows(2) {
        assert_eq!(w[0].offset + w[0].compressed_page_size as i64, w[1].offset);
        assert!(w[1].first_row_index > w[0].first_row_index);
    }
    // Page row counts never exceed parquet-java's 20,000 limit.
    let mut bounds: Vec<i64> = locs.iter().map(|l| l.first_row_index).collect();
    bounds.push(n as i64);
    assert!(bounds.windows(2).all(|w| w[1] - w[0] <= 20_000));
    // The id column ascends, so its column index must be ASCENDING with exact page bounds.
    match pi.column_index(0).expect("column index") {
        ColumnIndexMetaData::INT64(idx) => {
            assert_eq!(
                pi.column_index(0).unwrap().get_boundary_order(),
                Some(parquet::basic::BoundaryOrder::ASCENDING)
            );
            for p in 0..locs.len() {
                assert_eq!(idx.min_value(p), Some(&bounds[p]));
                assert_eq!(idx.max_value(p), Some(&(bounds[p + 1] - 1)));
            }
        }
        other => panic!("unexpected index {other:?}"),
    }
    // String pages: bounds hold every value of their page; truncated to 64 bytes.
    let slocs = pi.offset_index(1).unwrap().page_locations();
    let mut sb: Vec<usize> = slocs.iter().map(|l| l.first_row_index as usize).collect();
    sb.push(n);
    match pi.column_index(1).expect("column index") {
        ColumnIndexMetaData::BYTE_ARRAY(idx) => {
            for p in 0..slocs.len() {
                let nulls = (sb[p]..sb[p + 1]).filter(|&i| !cols[1].is_valid(i)).count();
                assert_eq!(idx.null_count(p), Some(nulls as i64));
                let min = idx.min_value(p).unwrap();
                let max = idx.max_value(p).unwrap();
                assert!(min.len() <= 64 && max.len() <= 64);
                for i in sb[p]..sb[p + 1] {
                    if let Some(V::B(v)) = cols[1].expected(&fields[1], i) {
                        assert!(
                            min <= v.as_slice() && v.as_slice() <= max,
                            "page {p} row {i}"
                        );
                    }
                }
            }
        }
        other => panic!("unexpected index {other:?}"),
    }
}

#[test]
fn long_strings_truncate_in_column_index_and_drop_chunk_min_max() {
    let f = Field::new("s", PhysicalType::ByteArray, false).with_logical(LogicalType::String);
    let schema = Schema::new(vec![f]).unwrap();
    let vals = ["é".repeat(1500), "z".repeat(2500)]; // min + max = 5500 bytes >= 4096
    let mut offsets = vec![0i32];
    let mut data = Vec::new();
    for v in &vals {
        data.extend_from_slice(v.as_bytes());
        offsets.push(data.len() as i32);
    }
    let cols = vec![OwnedColumn {
        validity: None,
        data: Owned::Bin(offsets, data),
        levels: None,
    }];
    let (file, summary) = write_file(
        &schema,
        &WriterOptions::default(),
        std::slice::from_ref(&cols),
        &[2],
    );
    let md = metadata(&file);
    let st = md.row_group(0).column(0).statistics().unwrap();
    assert_eq!(st.min_bytes_opt(), None, "min+max over 4 KiB are left out");
    assert_eq!(st.null_count_opt(), Some(0));
    // The summary still has the chunk's bounds, whole (Delta's statistics are taken from them).
    let chunk = &summary.row_groups[0].columns[0];
    assert_eq!(chunk.min, None);
    assert_eq!(
        chunk.whole_bounds,
        Some((vals[1].as_bytes().to_vec(), vals[0].as_bytes().to_vec()))
    );

    // Cut by parquet.statistics.truncate.length: the footer's are cut, the summary's whole.
    let cut = WriterOptions {
        statistics_truncate_length: 8,
        ..Default::default()
    };
    let (file, summary) = write_file(&schema, &cut, std::slice::from_ref(&cols), &[2]);
    let st = metadata(&file)
        .row_group(0)
        .column(0)
        .statistics()
        .unwrap()
        .clone();
    assert_eq!(st.min_bytes_opt(), Some("zzzzzzzz".as_bytes()));
    let chunk = &summary.row_groups[0].columns[0];
    assert_eq!(chunk.min.as_deref(), Some("zzzzzzzz".as_bytes()));
    assert_eq!(
        chunk.whole_bounds,
        Some((vals[1].as_bytes().to_vec(), vals[0].as_bytes().to_vec()))
    );
    match md
        .page_index_for_row_group(0)
        .column_index(0)
        .expect("column index")
    {
        ColumnIndexMetaData::BYTE_ARRAY(idx) => {
            let min = idx.min_value(0).unwrap();
            let max = idx.max_value(0).unwrap();
            // "z..." < "é..." in unsigned byte order.
            assert_eq!(min, "z".repeat(64).as_bytes());
            let mut m = "é".repeat(31);
            m.push('ê');
            assert_eq!(max, m.as_bytes());
        }
        other => panic!("unexpected {other:?}"),
    }
}

fn bloom_reader(file: &[u8]) -> SerializedFileReader<bytes::Bytes> {
    let props = ReaderProperties::builder()
        .set_read_bloom_filter(true)
        .build();
    let opts = ReadOptionsBuilder::new()
        .with_reader_properties(props)
        .build();
    SerializedFileReader::new_with_options(bytes::Bytes::from(file.to_vec()), opts).unwrap()
}

#[test]
fn bloom_filters_hold_every_value_and_are_sized_like_parquet_java() {
    let fields = vec![
        Field::new("i", PhysicalType::Int32, true),
        Field::new("l", PhysicalType::Int64, true),
        Field::new("s", PhysicalType::ByteArray, true).with_logical(LogicalType::String),
        Field::new("d", PhysicalType::Double, true),
        Field::decimal("x", 30, 2, true),
    ];
    let schema = Schema::new(fields.clone()).unwrap();
    let n = 20_000;
    let mut rng = Rng(11);
    let cols: Vec<OwnedColumn> = fields
        .iter()
        .map(|f| generate(f, n, Nulls::Some, Card::Unique, &mut rng))
        .collect();
    let mut opts = WriterOptions {
        dictionary_page_size: 4096,
        ..Default::default()
    };
    opts.bloom_filters
        .insert("i".into(), BloomFilterOptions::default());
    opts.bloom_filters.insert(
        "l".into(),
        BloomFilterOptions {
            ndv: Some(20_000),
            ..Default::default()
        },
    );
    opts.bloom_filters.insert(
        "s".into(),
        BloomFilterOptions {
            adaptive: true,
            ..Default::default()
        },
    );
    opts.bloom_filters.insert(
        "d".into(),
        BloomFilterOptions {
            fpp: 0.05,
            ndv: Some(15_000),
            ..Default::default()
        },
    );
    opts.bloom_filters
        .insert("x".into(), BloomFilterOptions::default());
    let (file, summary) = write_file(&schema, &opts, std::slice::from_ref(&cols), &[n]);
    let reader = bloom_reader(&file);
    let rg = reader.get_row_group(0).unwrap();
    let sizes: Vec<Option<usize>> = summary.row_groups[0]
        .columns
        .iter()
        .map(|c| c.bloom_filter_bytes)
        .collect();
    assert_eq!(
        sizes[0],
        Some(1024 * 1024),
        "default: parquet.bloom.filter.max.bytes"
    );
    // parquet-java 1.17's sizes: BlockSplitBloomFilter.optimalNumOfBits(20000, 0.01) is 193,629
    // bits, a 32 KiB bitset; (15000, 0.05) is 103,122 bits, 16 KiB (with fpp 0.01, 32 KiB).
    assert_eq!(sizes[1], Some(32 * 1024), "ndv 20,000, fpp 0.01");
    assert_eq!(sizes[3], Some(16 * 1024), "ndv 15,000, fpp 0.05");
    // Adaptive: ~18,000 distinct strings fit a candidate below the 1 MiB maximum.
    assert!(
        sizes[2].unwrap() < 1024 * 1024,
        "adaptive picked a smaller candidate: {sizes:?}"
    );
    for (c, f) in fields.iter().enumerate() {
        let sbbf = rg
            .get_column_bloom_filter(c)
            .unwrap_or_else(|| panic!("bloom filter of {}", f.name));
        let mut misses = 0;
        for i in 0..n {
            let hit = match (&cols[c].data, cols[c].expected(f, i)) {
                (_, None) => continue,
                (Owned::I32(v), _) => sbbf.check(&v[i]),
                (Owned::I64(v), _) => sbbf.check(&v[i]),
                (Owned::F64(v), _) => sbbf.check(&v[i]),
                (Owned::Bin(o, d), _) => sbbf.check(&d[o[i] as usize..o[i + 1] as usize]),
                (Owned::Fixed(w, d), _) => sbbf.check(&d[i * w..(i + 1) * w]),
                _ => unreachable!(),
            };
            if !hit {
                misses += 1;
            }
        }
        assert_eq!(
            misses, 0,
            "every written value of {} is in its filter",
            f.name
        );
        // Values never written are mostly absent.
        let absent = (0..2000)
            .filter(|k| match &cols[c].data {
                Owned::I32(_) => sbbf.check(&(i32::MIN + 7 * k)),
                Owned::I64(_) => sbbf.check(&(i64::MIN + 7 * *k as i64)),
                Owned::F64(_) => sbbf.check(&(1e300 + *k as f64 * 1e290)),
                _ => sbbf.check(format!("never-{k}").as_bytes()),
            })
            .count();
        assert!(absent < 200, "{}: {absent} false positives of 2000", f.name);
    }
}

#[test]
fn no_bloom_filter_for_all_dictionary_chunks() {
    let f = Field::new("k", PhysicalType::Int32, false);
    let schema = Schema::new(vec![f]).unwrap();
    let vals: Vec<i32> = (0..10_000).map(|i| i % 10).collect();
    let cols = vec![OwnedColumn {
        validity: None,
        data: Owned::I32(vals),
        levels: None,
    }];
    let mut opts = WriterOptions::default();
    opts.bloom_filters
        .insert("k".into(), BloomFilterOptions::default());
    let (file, summary) = write_file(&schema, &opts, std::slice::from_ref(&cols), &[10_000]);
    assert_eq!(summary.row_groups[0].columns[0].bloom_filter_bytes, None);
    let reader = bloom_reader(&file);
    assert!(reader
        .get_row_group(0)
        .unwrap()
        .get_column_bloom_filter(0)
        .is_none());
}

/// A NaN in a chunk leaves its min/max out and its column index unwritten (as parquet-java
/// 1.17, whose readers drop min/max holding NaN): a filter like `d > 100` must never prune a
/// row group or page that holds NaN, which Spark orders above every number.
#[test]
fn nan_removes_chunk_min_max_and_column_index() {
    let fields = vec![
        Field::new("d", PhysicalType::Double, true),
        Field::new("f", PhysicalType::Float, false),
    ];
    let schema = Schema::new(fields.clone()).unwrap();
    let n = 30_000;
    // Row group 0 (rows 0..10,000) has no NaN; row group 1 has a NaN on one page.
    let d: Vec<f64> = (0..n)
        .map(|i| if i == 20_000 { f64::NAN } else { i as f64 })
        .collect();
    let f: Vec<f32> = (0..n)
        .map(|i| if i == 25_000 { f32::NAN } else { -(i as f32) })
        .collect();
    let cols = vec![
        OwnedColumn {
            validity: None,
            data: Owned::F64(d),
            levels: None,
        },
        OwnedColumn {
            validity: None,
            data: Owned::F32(f),
            levels: None,
        },
    ];
    let opts = WriterOptions {
        page_size: 8 * 1024,
        row_group_row_limit: 10_000,
        ..Default::default()
    };
    let (file, _) = write_file(&schema, &opts, std::slice::from_ref(&cols), &[n]);
    let md = metadata(&file);
    assert_eq!(md.num_row_groups(), 3);
    for (g, nan) in [(0, false), (1, false), (2, true)] {
        for c in 0..2 {
            let nan = nan && (c == 0 || g == 2);
            let stats = md.row_group(g).column(c).statistics().expect("statistics");
            assert_eq!(stats.null_count_opt(), Some(0));
            assert_eq!(
                stats.min_bytes_opt().is_some(),
                !nan,
                "row group {g} column {c} min"
            );
            assert_eq!(
                stats.max_bytes_opt().is_some(),
                !nan,
                "row group {g} column {c} max"
            );
            assert_eq!(
                md.row_group(g).column(c).column_index_offset().is_some(),
                !nan,
                "row group {g} column {c} column index"
            );
        }
    }
    // Values survive unchanged, NaN included.
    check_file(&fields, &cols, n, &file, "nan");
}

#[test]
fn page_index_of_dictionary_chunks_locates_pages_absolutely_and_skips_pages() {
    // Dictionary chunks (low cardinality, and a dictionary that overflows mid-chunk) of many
    // pages: the offset index's locations are file offsets, its first page where the chunk's
    // data pages start (after the dictionary page), its last ending where the chunk ends.
    let fields = vec![
        Field::new("k", PhysicalType::Int32, true),
        Field::new("s", PhysicalType::ByteArray, true).with_logical(LogicalType::String),
        Field::new("l", PhysicalType::Int64, true),
    ];
    let schema = Schema::new(fields.clone()).unwrap();
    let n = 60_000;
    let mut rng = Rng(17);
    let cols = vec![
        generate(&fields[0], n, Nulls::Some, Card::Low, &mut rng),
        generate(&fields[1], n, Nulls::Some, Card::Low, &mut rng),
        generate(
            &fields[2],
            n,
            Nulls::Some,
            Card::LowThenUnique(20_000),
            &mut rng,
        ),
    ];
    let opts = WriterOptions {
        page_size: 2 * 1024,
        dictionary_page_size: 16 * 1024,
        ..Default::default()
    };
    let (file, _) = write_file(&schema, &opts, std::slice::from_ref(&cols), &[n]);
    let md = metadata(&file);
    let pi = md.page_index_for_row_group(0);
    for (c, field) in fields.iter().enumerate() {
        let chunk = md.row_group(0).column(c);
        let dict = chunk.dictionary_page_offset().expect("a dictionary page");
        let locs = pi.offset_index(c).unwrap().page_locations();
        assert!(locs.len() > 3, "{}: {} pages", field.name, locs.len());
        assert!(dict < chunk.data_page_offset());
        assert_eq!(locs[0].offset, chunk.data_page_offset(), "{}", field.name);
        let last = locs.last().unwrap();
        assert_eq!(
            last.offset + last.compressed_page_size as i64,
            dict + chunk.compressed_size(),
            "{}",
            field.name
        );
    }
    // arrow-rs reading a row selection through the page index skips pages by those offsets.
    use parquet::arrow::arrow_reader::{
        ArrowReaderOptions, ParquetRecordBatchReaderBuilder, RowSelection, RowSelector,
    };
    let selection = RowSelection::from(vec![
        RowSelector::skip(10_000),
        RowSelector::select(700),
        RowSelector::skip(25_000),
        RowSelector::select(1_300),
        RowSelector::skip(n - 37_000),
    ]);
    let selected: Vec<usize> = (10_000..10_700).chain(35_700..37_000).collect();
    let reader = ParquetRecordBatchReaderBuilder::try_new_with_options(
        bytes::Bytes::from(file.clone()),
        ArrowReaderOptions::new()
            .with_page_index_policy(parquet::file::metadata::PageIndexPolicy::Required),
    )
    .unwrap()
    .with_row_selection(selection)
    .build()
    .unwrap();
    let mut row = 0;
    for b in reader {
        let b = b.unwrap();
        for i in 0..b.num_rows() {
            for (c, f) in fields.iter().enumerate() {
                assert_eq!(
                    canon(b.column(c).as_ref(), i),
                    cols[c].expected(f, selected[row]),
                    "{} row {}",
                    f.name,
                    selected[row]
                );
            }
            row += 1;
        }
    }
    assert_eq!(row, selected.len());
}
