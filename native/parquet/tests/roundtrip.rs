//! Every type x nulls x codec x encoding path, written by us and read back by arrow-rs.

mod common;
use common::*;
use parquet::basic::Encoding as PE;
use vecruntime_parquet::*;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Path {
    Dictionary,
    FallbackMidChunk,
    DictionaryOff,
}

fn options(codec: Codec, path: Path) -> WriterOptions {
    let mut o = WriterOptions {
        codec,
        ..Default::default()
    };
    match path {
        Path::Dictionary => {}
        Path::FallbackMidChunk => {
            o.page_size = 2048;
            o.dictionary_page_size = 512;
            o.min_row_count_for_size_check = 10;
        }
        Path::DictionaryOff => o.dictionary_enabled = false,
    }
    o
}

fn fallback_encoding(p: PhysicalType) -> PE {
    match p {
        PhysicalType::Int32 | PhysicalType::Int64 => PE::DELTA_BINARY_PACKED,
        PhysicalType::ByteArray | PhysicalType::FixedLenByteArray(_) => PE::DELTA_BYTE_ARRAY,
        _ => PE::PLAIN,
    }
}

/// Every nulls x encoding path case with its columns of `n` rows, drawn from `seed`.
fn cases(fields: &[Field], n: usize, seed: u64) -> Vec<(Nulls, Path, Vec<OwnedColumn>)> {
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    for nulls in [Nulls::None, Nulls::Some, Nulls::All] {
        for path in [
            Path::Dictionary,
            Path::FallbackMidChunk,
            Path::DictionaryOff,
        ] {
            let card = match path {
                Path::Dictionary => Card::Low,
                Path::FallbackMidChunk => Card::LowThenUnique(1000),
                Path::DictionaryOff => Card::Unique,
            };
            let cols = fields
                .iter()
                .map(|f| generate(f, n, nulls, card, &mut rng))
                .collect();
            out.push((nulls, path, cols));
        }
    }
    out
}

#[test]
fn every_type_nulls_codec_and_encoding_path() {
    let fields = all_fields();
    let schema = Schema::new(fields.clone()).unwrap();
    let n = 3000;
    let codecs = [
        Codec::Uncompressed,
        Codec::Snappy,
        Codec::Gzip(6),
        Codec::Zstd(3),
        Codec::Lz4Hadoop,
        Codec::Lz4Raw,
    ];
    for (nulls, path, cols) in cases(&fields, n, 0x5eed) {
        for codec in codecs {
            let what = format!("{nulls:?}/{path:?}/{codec:?}");
            let (file, summary) = write_file(
                &schema,
                &options(codec, path),
                std::slice::from_ref(&cols),
                &[n],
            );
            assert_eq!(summary.num_rows, n as i64);
            assert_eq!(summary.file_size, file.len() as u64);
            check_file(&fields, &cols, n, &file, &what);
            let md = metadata(&file);
            assert_eq!(md.file_metadata().created_by().unwrap(), CREATED_BY);
            for rg in md.row_groups() {
                for (c, f) in fields.iter().enumerate() {
                    let cc = rg.column(c);
                    assert_eq!(
                        cc.compression()
                            .to_string()
                            .to_uppercase()
                            .split('(')
                            .next()
                            .unwrap(),
                        codec.name(),
                        "{what}"
                    );
                    let pages: Vec<(PE, usize)> = cc
                        .page_encoding_stats()
                        .unwrap()
                        .iter()
                        .filter(|s| s.page_type == parquet::basic::PageType::DATA_PAGE_V2)
                        .map(|s| (s.encoding, s.count as usize))
                        .collect();
                    assert!(!pages.is_empty(), "{what}: {} has v2 data pages", f.name);
                    let encs: Vec<PE> = pages.iter().map(|p| p.0).collect();
                    if f.physical == PhysicalType::Boolean {
                        assert_eq!(encs, vec![PE::PLAIN], "{what}");
                        continue;
                    }
                    let fb = fallback_encoding(f.physical);
                    match (path, nulls) {
                        // An all-null first page is not smaller as a dictionary: parquet-java
                        // falls back at once.
                        (_, Nulls::All) => assert_eq!(encs, vec![fb], "{what} {}", f.name),
                        (Path::Dictionary, _) => {
                            assert_eq!(encs, vec![PE::RLE_DICTIONARY], "{what} {}", f.name);
                            assert!(cc.dictionary_page_offset().is_some());
                        }
                        (Path::FallbackMidChunk, _) => {
                            assert!(
                                encs.contains(&PE::RLE_DICTIONARY) && encs.contains(&fb),
                                "{what} {}: {encs:?}",
                                f.name
                            );
                            assert!(cc.dictionary_page_offset().is_some());
                        }
                        (Path::DictionaryOff, _) => {
                            assert_eq!(encs, vec![fb], "{what} {}", f.name);
                            assert!(cc.dictionary_page_offset().is_none());
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn required_columns_and_many_batches_and_row_groups() {
    let fields: Vec<Field> = all_fields()
        .into_iter()
        .map(|mut f| {
            f.repetition = Repetition::Required;
            f
        })
        .collect();
    let schema = Schema::new(fields.clone()).unwrap();
    let mut rng = Rng(99);
    let sizes = [1usize, 7, 1000, 4096, 333, 20_000, 5];
    let batches: Vec<Vec<OwnedColumn>> = sizes
        .iter()
        .map(|&n| {
            fields
                .iter()
                .map(|f| generate(f, n, Nulls::None, Card::Unique, &mut rng))
                .collect()
        })
        .collect();
    let opts = WriterOptions {
        row_group_size: 256 * 1024,
        ..Default::default()
    };
    let (file, summary) = write_file(&schema, &opts, &batches, &sizes);
    let total: usize = sizes.iter().sum();
    assert!(
        summary.row_groups.len() > 1,
        "small row groups cut the file"
    );
    assert_eq!(
        summary.row_groups.iter().map(|g| g.num_rows).sum::<i64>(),
        total as i64
    );
    // Concatenate the batches to compare.
    let read = read_back(&file);
    for (c, f) in fields.iter().enumerate() {
        let mut i = 0;
        for (b, &n) in batches.iter().zip(&sizes) {
            for r in 0..n {
                assert_eq!(read[c][i], b[c].expected(f, r), "{} row {i}", f.name);
                i += 1;
            }
        }
    }
}

#[test]
fn empty_file_has_schema_and_no_row_groups() {
    let fields = all_fields();
    let schema = Schema::new(fields.clone()).unwrap();
    let (file, summary) = write_file(&schema, &WriterOptions::default(), &[], &[]);
    assert_eq!(summary.num_rows, 0);
    let md = metadata(&file);
    assert_eq!(md.num_row_groups(), 0);
    assert_eq!(
        md.file_metadata().schema_descr().num_columns(),
        fields.len()
    );
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
        bytes::Bytes::from(file),
    )
    .unwrap();
    assert_eq!(reader.schema().fields().len(), fields.len());
}

/// `parquet.writer.version=v1`: data page v1, PLAIN_DICTIONARY or PLAIN values (no dictionary
/// for FIXED_LEN_BYTE_ARRAY), read back by arrow-rs on every codec and encoding path.
#[test]
fn v1_pages_every_type_codec_and_encoding_path() {
    let fields = all_fields();
    let schema = Schema::new(fields.clone()).unwrap();
    let n = 3000;
    for (nulls, path, cols) in cases(&fields, n, 0x5eed1) {
        for codec in [Codec::Uncompressed, Codec::Snappy, Codec::Gzip(6)] {
            let what = format!("v1 {nulls:?}/{path:?}/{codec:?}");
            let mut opts = options(codec, path);
            opts.writer_version = WriterVersion::V1;
            let (file, _) = write_file(&schema, &opts, std::slice::from_ref(&cols), &[n]);
            check_file(&fields, &cols, n, &file, &what);
            let md = metadata(&file);
            for rg in md.row_groups() {
                for (c, f) in fields.iter().enumerate() {
                    let stats = rg.column(c).page_encoding_stats().unwrap();
                    let mut encs: Vec<PE> = stats
                        .iter()
                        .map(|s| {
                            assert_ne!(s.page_type, parquet::basic::PageType::DATA_PAGE_V2);
                            s.encoding
                        })
                        .collect();
                    encs.dedup();
                    let dictionary = !matches!(
                        f.physical,
                        PhysicalType::Boolean | PhysicalType::FixedLenByteArray(_)
                    ) && path != Path::DictionaryOff
                        && nulls != Nulls::All;
                    let name = &f.name;
                    if dictionary {
                        assert_eq!(encs[0], PE::PLAIN_DICTIONARY, "{what} {name}: {encs:?}");
                    } else {
                        assert_eq!(encs, vec![PE::PLAIN], "{what} {name}");
                    }
                }
            }
        }
    }
}

/// `delta_binary_packed: false`: INT32/INT64 values without a dictionary go PLAIN in v2 pages
/// (the other types keep their encodings), and read back right with and without nulls.
#[test]
fn integers_plain_when_delta_binary_packed_is_off() {
    let fields = all_fields();
    let schema = Schema::new(fields.clone()).unwrap();
    let n = 3000;
    for (nulls, path, cols) in cases(&fields, n, 0xde17a) {
        if path == Path::Dictionary && nulls != Nulls::All {
            continue;
        }
        let what = format!("{nulls:?}/{path:?}");
        let mut o = options(Codec::Snappy, path);
        o.delta_binary_packed = false;
        let (file, _) = write_file(&schema, &o, std::slice::from_ref(&cols), &[n]);
        check_file(&fields, &cols, n, &file, &what);
        let md = metadata(&file);
        for rg in md.row_groups() {
            for (c, f) in fields.iter().enumerate() {
                let encs: Vec<PE> = rg
                    .column(c)
                    .page_encoding_stats()
                    .unwrap()
                    .iter()
                    .filter(|s| s.page_type == parquet::basic::PageType::DATA_PAGE_V2)
                    .map(|s| s.encoding)
                    .filter(|e| *e != PE::RLE_DICTIONARY)
                    .collect();
                let want = match f.physical {
                    PhysicalType::Int32 | PhysicalType::Int64 => PE::PLAIN,
                    p => fallback_encoding(p),
                };
                assert_eq!(encs, vec![want], "{what} {}", f.name);
            }
        }
    }
}

/// Null runs of every length from 8 to 63 (one at the start of each 100 rows) and one of 6,000
/// rows, in every type, across page and row-group cuts, with both level run encodings: arrow-rs
/// reads back every value, null count and bound.
#[test]
fn long_null_runs_across_page_and_row_group_cuts() {
    let fields = all_fields();
    let schema = Schema::new(fields.clone()).unwrap();
    let n: usize = 20_000;
    let valid = |i: usize| !((i % 100) < 8 + (i / 100) % 56 || (9_000..15_000).contains(&i));
    let mut validity = vec![0u8; n.div_ceil(8)];
    (0..n)
        .filter(|&i| valid(i))
        .for_each(|i| validity[i / 8] |= 1 << (i % 8));
    let mut rng = Rng(0x0bad_5eed);
    for card in [Card::Low, Card::Unique] {
        let cols: Vec<OwnedColumn> = fields
            .iter()
            .map(|f| {
                let mut c = generate(f, n, Nulls::None, card, &mut rng);
                c.validity = Some(validity.clone());
                c
            })
            .collect();
        for parquet_java_runs in [false, true] {
            let what = format!("{card:?} parquet_java_runs={parquet_java_runs}");
            let o = WriterOptions {
                page_size: 512,
                page_row_limit: 700,
                row_group_size: 32 * 1024,
                parquet_java_runs,
                ..Default::default()
            };
            let (file, _) = write_file(&schema, &o, std::slice::from_ref(&cols), &[n]);
            check_file(&fields, &cols, n, &file, &what);
            let md = metadata(&file);
            assert!(md.num_row_groups() > 2, "{what}: row groups");
            let pages = |rg: usize, c: usize| -> i32 {
                let stats = md.row_group(rg).column(c).page_encoding_stats().unwrap();
                stats.iter().map(|p| p.count).sum()
            };
            let most = (0..md.num_row_groups())
                .flat_map(|rg| (0..fields.len()).map(move |c| (rg, c)))
                .map(|(rg, c)| pages(rg, c))
                .max();
            assert!(most > Some(3), "{what}: pages a chunk {most:?}");
        }
    }
}

/// A file among many open frees a dictionary its first page gave up at once; the bytes are
/// those of a file that keeps it.
#[test]
fn abandoned_dictionaries_freed_among_many_files_same_bytes() {
    // 30,000 distinct values: the first page (20,000 rows) is not smaller with its dictionary,
    // so the column falls back when it is cut.
    let ints: Vec<i32> = (0..30_000).map(|i| i * 7919).collect();
    let mut offsets = vec![0i32];
    let mut data = Vec::new();
    for i in 0..30_000 {
        data.extend_from_slice(format!("value {i:09}").as_bytes());
        offsets.push(data.len() as i32);
    }
    let write = |field: Field, column: ColumnData, among_many: bool| {
        let schema = Schema::new(vec![field]).unwrap();
        let mut w = FileWriter::new(Vec::new(), schema, WriterOptions::default()).unwrap();
        if among_many {
            w.release_abandoned_dictionaries();
        }
        let batch = Batch {
            num_rows: 30_000,
            columns: vec![ColumnView::new(column)],
        };
        w.write_batch(&batch).unwrap();
        let held = w.dictionary_bytes();
        w.close().unwrap();
        let bytes = w.into_inner();
        let meta = metadata(&bytes);
        assert_eq!(meta.file_metadata().num_rows(), 30_000);
        assert!(meta
            .row_group(0)
            .column(0)
            .dictionary_page_offset()
            .is_none());
        (held, bytes)
    };
    let int = || {
        (
            Field::new("i", PhysicalType::Int32, false),
            ColumnData::Int32(&ints),
        )
    };
    let string = || {
        (
            Field::new("s", PhysicalType::ByteArray, false),
            ColumnData::Binary {
                offsets: &offsets,
                data: &data,
            },
        )
    };
    // Kept: a 65,536-slot table (512 KiB), the values and the page's ids, about 670 KB: the
    // dictionary is given up at 13,913 values, when it can no longer win (786 KB at 20,000).
    let ((f, c), (g, d)) = (int(), int());
    let (kept, kept_bytes) = write(f, c, false);
    let (freed, freed_bytes) = write(g, d, true);
    assert!((600_000..700_000).contains(&kept), "int kept {kept}");
    assert_eq!(freed, 0, "int freed");
    assert!(kept_bytes == freed_bytes, "the int files differ");
    // A string dictionary is always freed (1.2 MB of entries and table); here the page's
    // ids go too, leaving the new dictionary's empty table and recent-value slots.
    let ((f, c), (g, d)) = (string(), string());
    let (kept, kept_bytes) = write(f, c, false);
    let (freed, freed_bytes) = write(g, d, true);
    assert!(freed > 1000 && freed < 20_000, "string freed {freed}");
    assert!(
        kept >= freed + 4 * 20_000,
        "string kept {kept}, freed {freed}"
    );
    assert!(kept_bytes == freed_bytes, "the string files differ");
}

/// Whether the single column chunk of `n` rows of `column` written with `opts` has a
/// dictionary page.
fn keeps_dictionary(column: ColumnData, n: usize, opts: WriterOptions, among_many: bool) -> bool {
    let physical = match column {
        ColumnData::Int32(_) => PhysicalType::Int32,
        _ => PhysicalType::Int64,
    };
    let schema = Schema::new(vec![Field::new("v", physical, false)]).unwrap();
    let mut w = FileWriter::new(Vec::new(), schema, opts).unwrap();
    if among_many {
        w.release_abandoned_dictionaries();
    }
    let batch = Batch {
        num_rows: n,
        columns: vec![ColumnView::new(column)],
    };
    w.write_batch(&batch).unwrap();
    w.close().unwrap();
    let meta = metadata(&w.into_inner());
    assert_eq!(meta.row_group(0).num_rows(), n as i64);
    meta.row_group(0)
        .column(0)
        .dictionary_page_offset()
        .is_some()
}

/// First pages of `s` distinct values and then zeros that keep their dictionary by a few bytes
/// or lose it by a few; at 1,000 values, parquet-java's choices (`ChunkParitySuite` compares
/// them with Spark's writer). The writer may give a dictionary up before the cut only where the
/// whole page could not keep it.
#[test]
fn first_page_dictionary_kept_or_given_up_by_a_few_bytes() {
    // `n` values: 1 to `s`, then zeros.
    let keeps = |physical: PhysicalType, n: i64, s: i64, among_many: bool| -> bool {
        let longs: Vec<i64> = (0..n).map(|i| if i < s { i + 1 } else { 0 }).collect();
        let ints: Vec<i32> = longs.iter().map(|&v| v as i32).collect();
        let column = match physical {
            PhysicalType::Int32 => ColumnData::Int32(&ints),
            _ => ColumnData::Int64(&longs),
        };
        let opts = WriterOptions {
            parquet_java_runs: true,
            ..Default::default()
        };
        keeps_dictionary(column, n as usize, opts, among_many)
    };
    use PhysicalType::{Int32, Int64};
    for among_many in [false, true] {
        // INT32: 3,997 bytes with the dictionary against 4,000 plain, then 4,001.
        assert!(keeps(Int32, 1000, 759, among_many));
        assert!(!keeps(Int32, 1000, 760, among_many));
        // INT64: 7,999 against 8,000, then 8,007.
        assert!(keeps(Int64, 1000, 863, among_many));
        assert!(!keeps(Int64, 1000, 864, among_many));
        // 1,024 distinct values take 10 bits an id, not 11: 5,383 bytes against 5,440.
        assert!(keeps(Int32, 1360, 1023, among_many));
    }
}

/// A dictionary of exactly the dictionary page size is kept, one more entry falls back
/// (parquet-java's `dictionaryByteSize > maxDictionaryByteSize`), in the first page too.
#[test]
fn dictionary_of_exactly_its_page_size_is_kept() {
    let keeps = |distinct: i32| {
        let ints: Vec<i32> = (0..5000).map(|i| i % distinct).collect();
        let opts = WriterOptions {
            dictionary_page_size: 4000,
            ..Default::default()
        };
        keeps_dictionary(ColumnData::Int32(&ints), 5000, opts, false)
    };
    assert!(keeps(1000), "4,000 bytes of entries");
    assert!(!keeps(1001), "4,004 bytes of entries");
}

/// Files among many on one thread build their first pages' dictionaries in the memory of the
/// last one given up. One that is kept moves into memory of its own size, and every file reads
/// back as written, whatever the dictionary built before it on the thread held.
#[test]
fn first_page_dictionaries_among_many_files_reuse_memory_and_read_back() {
    std::thread::spawn(|| {
        // 30,000 distinct values (given up at the first page), then 100 distinct values far
        // apart (hashed, kept; the second page meets them in the opposite order), then the
        // distinct values again.
        let spread: Vec<i32> = (0..30_000).map(|i| i * 7919).collect();
        let few: Vec<i32> = (0..30_000)
            .map(|i| if i < 20_000 { i % 100 } else { 99 - i % 100 } * 7919 + 3)
            .collect();
        let write = |values: &[i32]| {
            let schema = Schema::new(vec![Field::new("i", PhysicalType::Int32, false)]).unwrap();
            let mut w = FileWriter::new(Vec::new(), schema, WriterOptions::default()).unwrap();
            w.release_abandoned_dictionaries();
            // Two batches, as rows come to an open file; the first page ends in the second.
            for (b, part) in values.chunks(15_000).enumerate() {
                let batch = Batch {
                    num_rows: part.len(),
                    columns: vec![ColumnView::new(ColumnData::Int32(part))],
                };
                w.write_batch(&batch).unwrap();
                if b == 0 {
                    // The first page's values wait for its cut, in segments growing from 64
                    // values to 4,096: 16,384 values' room, and no dictionary yet.
                    assert_eq!(w.dictionary_bytes(), 4 * 16_384, "first batch held");
                }
            }
            let held = w.dictionary_bytes();
            w.close().unwrap();
            let bytes = w.into_inner();
            let want: Vec<Option<V>> = values.iter().map(|&v| Some(V::I(v as i128))).collect();
            assert!(read_back(&bytes)[0] == want, "values read back differ");
            let dictionary = metadata(&bytes)
                .row_group(0)
                .column(0)
                .dictionary_page_offset()
                .is_some();
            (held, dictionary)
        };
        assert_eq!(write(&spread), (0, false));
        // The 100 entries' own table and values, and the ids of the page being filled
        // (20,000 reserved): about 84 KB. In the given-up dictionary's memory it held a
        // 512 KiB table and 128 KiB of values more.
        let (held, dictionary) = write(&few);
        assert!(dictionary);
        assert!(
            (80_000..100_000).contains(&held),
            "kept dictionary holds {held}"
        );
        assert_eq!(write(&spread), (0, false));
    })
    .join()
    .unwrap();
}

#[test]
fn uuid_and_fixed_width_binaries_read_back_with_their_types() {
    use parquet::basic::LogicalType as ArrowLogical;
    let fields = vec![
        Field::new("u", PhysicalType::FixedLenByteArray(16), true).with_logical(LogicalType::Uuid),
        Field::new("f", PhysicalType::FixedLenByteArray(3), false),
    ];
    let schema = Schema::new(fields).unwrap();
    let n: usize = 300;
    let uuids: Vec<u8> = (0..n * 16).map(|i| (i * 7 % 251) as u8).collect();
    let fixed: Vec<u8> = (0..n * 3).map(|i| (i % 256) as u8).collect();
    // Every third UUID null (its room zeroed and skipped).
    let validity = (0..n.div_ceil(8))
        .map(|b| (0..8).fold(0u8, |m, k| m | (((b * 8 + k) % 3 != 0) as u8) << k))
        .collect();
    let cols = vec![
        OwnedColumn {
            validity: Some(validity),
            data: Owned::Fixed(16, uuids.clone()),
            levels: None,
        },
        OwnedColumn {
            validity: None,
            data: Owned::Fixed(3, fixed.clone()),
            levels: None,
        },
    ];
    for codec in [Codec::Uncompressed, Codec::Zstd(3)] {
        let (file, _) = write_file(
            &schema,
            &options(codec, Path::Dictionary),
            std::slice::from_ref(&cols),
            &[n],
        );
        let md = metadata(&file);
        let descr = md.file_metadata().schema_descr();
        assert_eq!(
            descr.column(0).logical_type_ref(),
            Some(&ArrowLogical::Uuid)
        );
        assert_eq!(descr.column(0).type_length(), 16);
        assert_eq!(descr.column(1).logical_type_ref(), None);
        assert_eq!(descr.column(1).type_length(), 3);
        let rows = read_back(&file);
        for r in 0..n {
            let u = (r % 3 != 0).then(|| V::B(uuids[r * 16..r * 16 + 16].to_vec()));
            assert_eq!(rows[0][r], u, "uuid of row {r}");
            assert_eq!(
                rows[1][r],
                Some(V::B(fixed[r * 3..r * 3 + 3].to_vec())),
                "row {r}"
            );
        }
    }
}
