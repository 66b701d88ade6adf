//! parquet-java's configuration names (`ParquetOutputFormat`) applied to [`WriterOptions`]: the
//! one reader of them.
//!
//! The JVM side hands options over as these key/value pairs, as a Hadoop configuration holds
//! them (the Spark plugin passes each pair whose key is in [`KEYS`], which it asks for through
//! JNI), so a configuration or a Spark write option maps onto the writer without a second
//! vocabulary. Per-column keys take the column after `#`, as parquet-java's
//! `ColumnConfigParser` reads them (`parquet.bloom.filter.enabled#ss_item_sk`); a key for all
//! columns is the default of each column without its own.

use crate::error::{Error, Result};
use crate::options::{BloomFilterOptions, Codec, WriterOptions, WriterVersion};
use std::collections::HashMap;

/// Where a key applies: to the file, to one column (`key#column`), or both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyScope {
    File,
    Column,
    Both,
}

/// The keys of a Hadoop configuration the writer reads, where parquet-java's
/// `ParquetOutputFormat` reads them: for the file, or per column (its `ColumnConfigParser`'s
/// keys). Bloom filter sizes (`expected.ndv`, `fpp`, `candidates.number`) are per column only,
/// so a write setting `parquet.bloom.filter.fpp` changes nothing there; byte stream split and
/// adaptive bloom filters are for the file only. Options built in code (the Java module's
/// `WriterOptions`) may also set those two per column: `#column` after them is read too.
pub const KEYS: &[(&str, KeyScope)] = &[
    ("parquet.compression", KeyScope::File),
    ("parquet.compression.codec.zstd.level", KeyScope::File),
    ("zlib.compress.level", KeyScope::File),
    ("parquet.writer.version", KeyScope::File),
    ("parquet.page.size", KeyScope::File),
    ("parquet.dictionary.page.size", KeyScope::File),
    ("parquet.block.size", KeyScope::File),
    ("parquet.page.row.count.limit", KeyScope::File),
    ("parquet.block.row.count.limit", KeyScope::File),
    ("parquet.enable.dictionary", KeyScope::Both),
    ("parquet.column.statistics.enabled", KeyScope::Both),
    ("parquet.enable.bytestreamsplit", KeyScope::File),
    ("parquet.bloom.filter.enabled", KeyScope::Both),
    ("parquet.bloom.filter.adaptive.enabled", KeyScope::File),
    ("parquet.bloom.filter.expected.ndv", KeyScope::Column),
    ("parquet.bloom.filter.fpp", KeyScope::Column),
    ("parquet.bloom.filter.candidates.number", KeyScope::Column),
    ("parquet.bloom.filter.max.bytes", KeyScope::File),
    ("parquet.columnindex.truncate.length", KeyScope::File),
    ("parquet.statistics.truncate.length", KeyScope::File),
    ("parquet.page.write-checksum.enabled", KeyScope::File),
    ("parquet.page.size.row.check.min", KeyScope::File),
    ("parquet.page.size.row.check.max", KeyScope::File),
    ("parquet.page.size.check.estimate", KeyScope::File),
    ("vecruntime.delta-binary-packed", KeyScope::File),
    ("vecruntime.rle.parquet-java-runs", KeyScope::File),
];

/// Whether a Hadoop configuration's `key` is one the writer reads as parquet-java does (for the
/// file, or with `#column` for a column).
pub fn takes(key: &str) -> bool {
    let (name, column) = match key.split_once('#') {
        Some((n, _)) => (n, true),
        None => (key, false),
    };
    KEYS.iter().any(|&(k, scope)| {
        k == name
            && match scope {
                KeyScope::File => !column,
                KeyScope::Column => column,
                KeyScope::Both => true,
            }
    })
}

/// A column's bloom filter keys, resolved once every pair is read (a column's settings may come
/// before its `enabled` key, as a sorted configuration lists them).
#[derive(Default)]
struct BloomKeys {
    enabled: Option<bool>,
    adaptive: Option<bool>,
    ndv: Option<u64>,
    fpp: Option<f64>,
}

impl WriterOptions {
    /// Options from `key = value` pairs over the defaults. Unknown keys and unparsable numbers
    /// are errors naming the key, so a misspelt option is never silently ignored. Values
    /// parquet-java takes without complaint are taken as it takes them: a boolean other than
    /// true/false is the key's default (Hadoop's `getBoolean`), a row-group size of 0 or less
    /// cuts a row group at every size check, a zstd level is clamped to zstd's range, a column's
    /// bloom filter fpp or candidate count without a filter is checked and otherwise unused. A
    /// codec level applies to its codec whichever comes first, as in a Hadoop configuration, and
    /// only to it.
    pub fn from_properties<K: AsRef<str>, V: AsRef<str>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Result<WriterOptions> {
        let mut o = WriterOptions::default();
        // Codec levels are read for the codec the pairs choose only: a level of another codec
        // (a gzip level in a configuration that writes snappy) is never read, as parquet-java's
        // codecs read only their own.
        let mut zstd_level = None;
        let mut gzip_level = None;
        let mut blooms: HashMap<String, BloomKeys> = HashMap::new();
        for (k, v) in pairs {
            let (key, value) = (k.as_ref(), v.as_ref().trim());
            match key {
                "parquet.compression.codec.zstd.level" => zstd_level = Some(value.to_string()),
                "zlib.compress.level" => gzip_level = Some(value.to_string()),
                _ => o.apply_property(key, value, &mut blooms)?,
            }
        }
        match o.codec {
            // libzstd clamps the level to its range; parquet-java's codec passes it as is.
            Codec::Zstd(_) => {
                let level = match zstd_level {
                    Some(v) => parse::<i32>("parquet.compression.codec.zstd.level", &v)?,
                    None => 3,
                };
                o.codec = Codec::Zstd(level.clamp(-131072, 22))
            }
            Codec::Gzip(_) => {
                let level = match gzip_level {
                    Some(v) => zlib_level("zlib.compress.level", &v)?,
                    None => 6,
                };
                o.codec = Codec::Gzip(level)
            }
            _ => {}
        }
        o.resolve_bloom_filters(blooms);
        Ok(o)
    }

    /// Each column's bloom filter from its keys, as parquet-java's builder takes them: a
    /// column's expected NDV turns its filter on (`withBloomFilterNDV`), else its own `enabled`
    /// key, else the key for all columns. A column's candidate count is every column's
    /// (`withBloomFilterCandidatesNumber` sets the default: the last one read stands).
    fn resolve_bloom_filters(&mut self, blooms: HashMap<String, BloomKeys>) {
        let d = BloomFilterOptions::default();
        for (column, b) in blooms {
            let enabled = if b.ndv.is_some() {
                Some(true)
            } else {
                b.enabled.or(self.bloom_filter_all.then_some(true))
            };
            match enabled {
                Some(true) => {
                    let filter = BloomFilterOptions {
                        ndv: b.ndv,
                        fpp: b.fpp.unwrap_or(d.fpp),
                        adaptive: b.adaptive.unwrap_or(self.bloom_filter_adaptive_all),
                        candidates: self.bloom_filter_candidates,
                    };
                    self.bloom_filters.insert(column, filter);
                }
                Some(false) => {
                    self.bloom_filters_off.insert(column);
                }
                None => {}
            }
        }
    }

    fn apply_property(
        &mut self,
        key: &str,
        value: &str,
        blooms: &mut HashMap<String, BloomKeys>,
    ) -> Result<()> {
        let (name, column) = match key.split_once('#') {
            Some((n, c)) if !c.is_empty() => (n, Some(c)),
            Some(_) => return Err(bad(key, value, "the column after '#' is empty")),
            None => (key, None),
        };
        match (name, column) {
            ("parquet.compression", None) => {
                self.codec = Codec::parse(value).map_err(|_| bad(key, value, "unknown codec"))?
            }
            ("parquet.writer.version", None) => {
                self.writer_version = WriterVersion::parse(value)
                    .map_err(|_| bad(key, value, "not v1, v2, PARQUET_1_0 or PARQUET_2_0"))?
            }
            ("parquet.page.size", None) => self.page_size = parse(key, value)?,
            ("parquet.dictionary.page.size", None) => {
                self.dictionary_page_size = parse(key, value)?
            }
            // parquet-java flushes when buffered bytes exceed the threshold less two records:
            // always, at every check, when it is 0 or less; a threshold of 1 does the same.
            ("parquet.block.size", None) => {
                self.row_group_size = parse::<i64>(key, value)?.max(1) as usize
            }
            ("parquet.page.row.count.limit", None) => self.page_row_limit = parse(key, value)?,
            ("parquet.block.row.count.limit", None) => {
                self.row_group_row_limit = parse(key, value)?
            }
            ("parquet.enable.dictionary", None) => self.dictionary_enabled = boolean(value, true),
            ("parquet.enable.dictionary", Some(c)) => {
                self.dictionary_columns
                    .insert(c.to_string(), boolean(value, false));
            }
            ("parquet.column.statistics.enabled", None) => {
                self.statistics_enabled = boolean(value, true)
            }
            ("parquet.column.statistics.enabled", Some(c)) => {
                self.statistics_columns
                    .insert(c.to_string(), boolean(value, true));
            }
            ("parquet.enable.bytestreamsplit", None) => {
                self.byte_stream_split_floating = boolean(value, false)
            }
            ("parquet.enable.bytestreamsplit", Some(c)) => {
                self.byte_stream_split_columns
                    .insert(c.to_string(), boolean(value, false));
            }
            ("parquet.bloom.filter.enabled", None) => self.bloom_filter_all = boolean(value, false),
            ("parquet.bloom.filter.enabled", Some(c)) => {
                bloom(blooms, c).enabled = Some(boolean(value, false))
            }
            ("parquet.bloom.filter.adaptive.enabled", None) => {
                self.bloom_filter_adaptive_all = boolean(value, false)
            }
            ("parquet.bloom.filter.adaptive.enabled", Some(c)) => {
                bloom(blooms, c).adaptive = Some(boolean(value, false))
            }
            // Each checked as parquet-java's builder checks it, whether the column has a filter
            // or not.
            ("parquet.bloom.filter.expected.ndv", Some(c)) => match parse::<i64>(key, value)? {
                n if n > 0 => bloom(blooms, c).ndv = Some(n as u64),
                _ => return Err(bad(key, value, "must be greater than 0")),
            },
            ("parquet.bloom.filter.fpp", Some(c)) => match parse::<f64>(key, value)? {
                f if f > 0.0 && f < 1.0 => bloom(blooms, c).fpp = Some(f),
                _ => return Err(bad(key, value, "must be between 0 and 1")),
            },
            ("parquet.bloom.filter.candidates.number", Some(c)) => {
                match parse::<i64>(key, value)? {
                    n if n > 0 => {
                        bloom(blooms, c);
                        self.bloom_filter_candidates = n as usize
                    }
                    _ => return Err(bad(key, value, "must be greater than 0")),
                }
            }
            ("parquet.bloom.filter.max.bytes", None) => {
                self.bloom_filter_max_bytes = parse(key, value)?
            }
            ("parquet.columnindex.truncate.length", None) => {
                self.column_index_truncate_length = parse(key, value)?
            }
            // parquet-java's ParquetMetadataConverter refuses 0 and less.
            ("parquet.statistics.truncate.length", None) => match parse::<i32>(key, value)? {
                n if n > 0 => self.statistics_truncate_length = n as usize,
                _ => return Err(bad(key, value, "must be greater than 0")),
            },
            ("parquet.page.write-checksum.enabled", None) => {
                self.page_checksum = boolean(value, true)
            }
            ("parquet.page.size.row.check.min", None) => {
                self.min_row_count_for_size_check = parse(key, value)?
            }
            ("parquet.page.size.row.check.max", None) => {
                self.max_row_count_for_size_check = parse(key, value)?
            }
            ("parquet.page.size.check.estimate", None) => {
                self.estimate_next_size_check = boolean(value, true)
            }
            ("vecruntime.delta-binary-packed", None) => {
                self.delta_binary_packed = boolean(value, true)
            }
            ("vecruntime.rle.parquet-java-runs", None) => {
                self.parquet_java_runs = boolean(value, false)
            }
            _ => {
                return Err(Error::Options(format!(
                    "unknown or unsupported option '{key}'"
                )))
            }
        }
        Ok(())
    }
}

/// The bloom filter keys read so far of a column.
fn bloom<'a>(blooms: &'a mut HashMap<String, BloomKeys>, column: &str) -> &'a mut BloomKeys {
    blooms.entry(column.to_string()).or_default()
}

/// Hadoop's `zlib.compress.level` as the gzip level parquet-java's codec takes: a name of
/// Hadoop's `ZlibCompressor.CompressionLevel` (what its `getEnum` reads; its default,
/// DEFAULT_COMPRESSION, is zlib's level 6), or the level as a number.
fn zlib_level(key: &str, value: &str) -> Result<u32> {
    const NAMES: [&str; 10] = [
        "NO_COMPRESSION",
        "BEST_SPEED",
        "TWO",
        "THREE",
        "FOUR",
        "FIVE",
        "SIX",
        "SEVEN",
        "EIGHT",
        "BEST_COMPRESSION",
    ];
    if value == "DEFAULT_COMPRESSION" {
        return Ok(6);
    }
    match NAMES.iter().position(|n| *n == value) {
        Some(level) => Ok(level as u32),
        None => parse(key, value),
    }
}

fn bad(key: &str, value: &str, why: &str) -> Error {
    Error::Options(format!("option '{key}' = '{value}': {why}"))
}

fn parse<T: std::str::FromStr>(key: &str, value: &str) -> Result<T> {
    value
        .parse()
        .map_err(|_| bad(key, value, "not a valid number"))
}

/// Hadoop's `Configuration.getBoolean`: true or false in any case, else the default.
fn boolean(value: &str, default: bool) -> bool {
    match value.to_ascii_lowercase().as_str() {
        "true" => true,
        "false" => false,
        _ => default,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(pairs: &[(&str, &str)]) -> Result<WriterOptions> {
        WriterOptions::from_properties(pairs.iter().copied())
    }

    #[test]
    fn codec_and_level_in_either_order() {
        let o = apply(&[
            ("parquet.compression", "ZSTD"),
            ("parquet.compression.codec.zstd.level", "7"),
        ])
        .unwrap();
        assert_eq!(o.codec, Codec::Zstd(7));
        let o = apply(&[
            ("parquet.compression.codec.zstd.level", "9"),
            ("parquet.compression", "zstd"),
        ])
        .unwrap();
        assert_eq!(o.codec, Codec::Zstd(9));
        let o = apply(&[
            ("zlib.compress.level", "1"),
            ("parquet.compression", "GZIP"),
        ])
        .unwrap();
        assert_eq!(o.codec, Codec::Gzip(1));
        let o = apply(&[("parquet.compression", "LZ4_RAW")]).unwrap();
        assert_eq!(o.codec, Codec::Lz4Raw);
    }

    #[test]
    fn sizes_and_per_column_settings() {
        let o = apply(&[
            ("parquet.page.size", "4096"),
            ("parquet.block.size", "1000000"),
            ("parquet.enable.dictionary", "false"),
            ("parquet.enable.dictionary#a", "true"),
            ("parquet.bloom.filter.enabled#b", "true"),
            ("parquet.bloom.filter.expected.ndv#b", "1000"),
            ("parquet.bloom.filter.fpp#b", "0.05"),
            ("parquet.enable.bytestreamsplit#c", "true"),
        ])
        .unwrap();
        assert_eq!(o.page_size, 4096);
        assert_eq!(o.row_group_size, 1_000_000);
        assert!(!o.dictionary_enabled);
        assert!(o.dictionary_for("a"));
        assert!(!o.dictionary_for("b"));
        assert_eq!(o.bloom_filters["b"].ndv, Some(1000));
        assert_eq!(o.bloom_filters["b"].fpp, 0.05);
        assert!(o.byte_stream_split_for("c", crate::PhysicalType::Int32));
        assert!(!o.byte_stream_split_for("d", crate::PhysicalType::Double));
    }

    #[test]
    fn truncation_and_integer_encoding_settings() {
        let o = apply(&[
            ("parquet.statistics.truncate.length", "20"),
            ("vecruntime.delta-binary-packed", "false"),
        ])
        .unwrap();
        assert_eq!(o.statistics_truncate_length, 20);
        assert!(!o.delta_binary_packed);
        let d = WriterOptions::default();
        assert_eq!(d.statistics_truncate_length, i32::MAX as usize);
        assert!(d.delta_binary_packed);
        for bad in ["0", "-1", "x"] {
            let e = apply(&[("parquet.statistics.truncate.length", bad)]).unwrap_err();
            assert!(
                e.to_string().contains("parquet.statistics.truncate.length"),
                "{e}"
            );
        }
    }

    #[test]
    fn writer_version_names_as_parquet_java() {
        for (v, want) in [
            ("v1", WriterVersion::V1),
            ("PARQUET_1_0", WriterVersion::V1),
            ("v2", WriterVersion::V2),
            ("PARQUET_2_0", WriterVersion::V2),
        ] {
            let o = apply(&[("parquet.writer.version", v)]).unwrap();
            assert_eq!(o.writer_version, want, "{v}");
        }
        assert_eq!(apply(&[]).unwrap().writer_version, WriterVersion::V2);
        // WriterVersion.fromString is exact: "V1" is neither a short nor an enum name.
        let e = apply(&[("parquet.writer.version", "V1")])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("parquet.writer.version") && e.contains("V1"),
            "{e}"
        );
    }

    #[test]
    fn errors_name_the_key() {
        let e = apply(&[("parquet.page.size", "big")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("parquet.page.size") && e.contains("big"), "{e}");
        let e = apply(&[("parquet.compression", "BROTLI")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown codec"), "{e}");
        let e = apply(&[("parquet.pagesize", "1")]).unwrap_err().to_string();
        assert!(
            e.contains("unknown or unsupported option 'parquet.pagesize'"),
            "{e}"
        );
        let e = apply(&[
            ("parquet.compression", "gzip"),
            ("zlib.compress.level", "FAST"),
        ])
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("zlib.compress.level") && e.contains("FAST"),
            "{e}"
        );
        // Another codec's level is not read.
        let o = apply(&[
            ("zlib.compress.level", "FAST"),
            ("parquet.compression", "snappy"),
        ]);
        assert_eq!(o.unwrap().codec, Codec::Snappy);
        let o = apply(&[("parquet.compression.codec.zstd.level", "x")]).unwrap();
        assert_eq!(o.codec, Codec::Snappy);
        // A column's bloom filter sizes are checked whether it has a filter or not.
        for (k, v) in [
            ("parquet.bloom.filter.fpp#x", "2.0"),
            ("parquet.bloom.filter.expected.ndv#x", "0"),
            ("parquet.bloom.filter.candidates.number#x", "-1"),
        ] {
            let e = apply(&[(k, v)]).unwrap_err().to_string();
            assert!(e.contains(k) && e.contains(v), "{e}");
        }
    }

    /// A column's statistics key, as parquet-java 1.16+ reads it, over the file's.
    #[test]
    fn statistics_per_column() {
        let o = apply(&[
            ("parquet.column.statistics.enabled", "false"),
            ("parquet.column.statistics.enabled#a", "true"),
            ("parquet.column.statistics.enabled#b", "false"),
        ])
        .unwrap();
        assert!(o.statistics_for("a") && !o.statistics_for("b") && !o.statistics_for("c"));
        let o = apply(&[("parquet.column.statistics.enabled#b", "false")]).unwrap();
        assert!(o.statistics_for("a") && !o.statistics_for("b"));
    }

    /// An expected NDV turns a column's filter on, as parquet-java's `withBloomFilterNDV`
    /// does, even over the column's own `false`.
    #[test]
    fn an_expected_ndv_turns_a_columns_filter_on() {
        let o = apply(&[
            ("parquet.bloom.filter.enabled#a", "false"),
            ("parquet.bloom.filter.expected.ndv#a", "1000"),
            ("parquet.bloom.filter.expected.ndv#b", "50"),
        ])
        .unwrap();
        assert_eq!(o.bloom_filter_for("a").unwrap().ndv, Some(1000));
        assert_eq!(o.bloom_filter_for("b").unwrap().ndv, Some(50));
        assert_eq!(o.bloom_filter_for("c"), None);
    }

    /// Keys for all columns apply to each column without its own key, as parquet-java's
    /// `ColumnConfigParser` reads them; a column's bloom filter settings may come before its
    /// `enabled` key (a sorted configuration lists them so), and count only where it has one.
    #[test]
    fn keys_for_all_columns_and_a_columns_own() {
        use crate::PhysicalType as P;
        let o = apply(&[
            ("parquet.bloom.filter.adaptive.enabled#a", "false"),
            ("parquet.bloom.filter.candidates.number#a", "3"),
            ("parquet.bloom.filter.enabled", "true"),
            ("parquet.bloom.filter.adaptive.enabled", "true"),
            ("parquet.bloom.filter.enabled#b", "false"),
            ("parquet.bloom.filter.fpp#b", "0.2"),
            ("parquet.enable.bytestreamsplit", "true"),
            ("parquet.enable.bytestreamsplit#f", "false"),
            ("parquet.enable.bytestreamsplit#i", "true"),
        ])
        .unwrap();
        let a = o.bloom_filter_for("a").unwrap();
        assert_eq!((a.adaptive, a.candidates, a.fpp), (false, 3, 0.01));
        assert_eq!(o.bloom_filter_for("b"), None);
        // (`a`'s candidate count is every column's, as parquet-java's builder takes it.)
        let c = o.bloom_filter_for("c").unwrap();
        assert_eq!((c.adaptive, c.candidates), (true, 3));
        // The switch for all columns covers the floating-point ones.
        assert!(o.byte_stream_split_for("d", P::Double) && o.byte_stream_split_for("g", P::Float));
        assert!(!o.byte_stream_split_for("f", P::Float));
        assert!(!o.byte_stream_split_for("l", P::Int64));
        assert!(o.byte_stream_split_for("i", P::Int32));
        // Settings of a column without a filter are ignored, as parquet-java ignores them.
        let o = apply(&[
            ("parquet.bloom.filter.fpp#x", "0.1"),
            ("parquet.bloom.filter.adaptive.enabled", "true"),
        ])
        .unwrap();
        assert_eq!(o.bloom_filter_for("x"), None);
        assert!(o.bloom_filters.is_empty());
        let o = apply(&[
            ("parquet.bloom.filter.fpp#x", "0.1"),
            ("parquet.bloom.filter.enabled#x", "true"),
        ])
        .unwrap();
        assert_eq!(o.bloom_filter_for("x").unwrap().fpp, 0.1);
    }

    /// Hadoop's `zlib.compress.level` names (what Spark's writer reads), and levels.
    #[test]
    fn gzip_levels_by_hadoops_names() {
        for (name, level) in [
            ("NO_COMPRESSION", 0),
            ("BEST_SPEED", 1),
            ("FIVE", 5),
            ("BEST_COMPRESSION", 9),
            ("DEFAULT_COMPRESSION", 6),
            ("4", 4),
        ] {
            let o = apply(&[
                ("parquet.compression", "gzip"),
                ("zlib.compress.level", name),
            ]);
            assert_eq!(o.unwrap().codec, Codec::Gzip(level), "{name}");
        }
    }

    /// The keys the JVM passes on: a key of the file alone, of a column with `#`, or both.
    #[test]
    fn keys_taken() {
        assert!(takes("parquet.page.size"));
        assert!(!takes("parquet.page.size#c"));
        assert!(takes("parquet.enable.dictionary") && takes("parquet.enable.dictionary#c"));
        assert!(takes("parquet.bloom.filter.fpp#c"));
        assert!(!takes("parquet.bloom.filter.fpp"));
        assert!(!takes("parquet.write.support.class") && !takes("fs.defaultFS"));
        // Read per column from code only: parquet-java's configuration has them for the file.
        assert!(!takes("parquet.enable.bytestreamsplit#c"));
        assert!(!takes("parquet.bloom.filter.adaptive.enabled#c"));
        // Every key taken is read.
        for &(k, scope) in KEYS {
            let key = match scope {
                KeyScope::Column => format!("{k}#c"),
                _ => k.to_string(),
            };
            let value = if k == "parquet.compression" {
                "snappy"
            } else {
                "1"
            };
            let read = apply(&[(key.as_str(), value)]);
            assert!(
                !matches!(&read, Err(e) if e.to_string().contains("unknown or unsupported")),
                "{key}"
            );
        }
    }

    /// Values parquet-java (through Hadoop's getters) writes with instead of failing.
    #[test]
    fn values_parquet_java_accepts_are_taken_as_it_takes_them() {
        for v in ["-1", "0"] {
            assert_eq!(
                apply(&[("parquet.block.size", v)]).unwrap().row_group_size,
                1
            );
        }
        let big = apply(&[("parquet.block.size", "3221225472")]).unwrap();
        assert_eq!(big.row_group_size, 3 << 30);
        big.validate().unwrap();
        let zstd = apply(&[
            ("parquet.compression", "ZSTD"),
            ("parquet.compression.codec.zstd.level", "99"),
        ])
        .unwrap();
        assert!(matches!(zstd.codec, Codec::Zstd(22)));
        let maybe = apply(&[
            ("parquet.enable.dictionary", "maybe"),
            ("parquet.enable.dictionary#a", "maybe"),
            ("parquet.column.statistics.enabled", "yes"),
        ])
        .unwrap();
        assert!(maybe.dictionary_enabled && maybe.statistics_enabled);
        assert!(
            !maybe.dictionary_for("a"),
            "a column's key defaults to false"
        );
        assert!(maybe.dictionary_for("b"));
    }
}
