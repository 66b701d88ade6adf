//! parquet-java's configuration names (`ParquetOutputFormat`) applied to [`WriterOptions`].
//!
//! The JVM side hands options over as these key/value pairs, so a Hadoop configuration or a
//! Spark write option maps onto the writer without a second vocabulary. Per-column keys take
//! the column after `#`, as parquet-java's `ColumnConfigParser` does
//! (`parquet.bloom.filter.enabled#ss_item_sk`).

use crate::error::{Error, Result};
use crate::options::{BloomFilterOptions, Codec, WriterOptions, WriterVersion};

impl WriterOptions {
    /// Options from `key = value` pairs over the defaults. Unknown keys and unparsable numbers
    /// are errors naming the key, so a misspelt option is never silently ignored. Values
    /// parquet-java takes without complaint are taken as it takes them: a boolean other than
    /// true/false is the key's default (Hadoop's `getBoolean`), a row-group size of 0 or less
    /// cuts a row group at every size check, a zstd level is clamped to zstd's range. A codec
    /// level applies to its codec whichever comes first, as in a Hadoop configuration.
    pub fn from_properties<K: AsRef<str>, V: AsRef<str>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Result<WriterOptions> {
        let mut o = WriterOptions::default();
        let mut zstd_level = None;
        let mut gzip_level = None;
        for (k, v) in pairs {
            let (key, value) = (k.as_ref(), v.as_ref().trim());
            match key {
                // libzstd clamps the level to its range; parquet-java's codec passes it as is.
                "parquet.compression.codec.zstd.level" => {
                    zstd_level = Some(parse::<i32>(key, value)?.clamp(-131072, 22))
                }
                "zlib.compress.level" => gzip_level = Some(parse(key, value)?),
                _ => o.apply_property(key, value)?,
            }
        }
        match o.codec {
            Codec::Zstd(_) => o.codec = Codec::Zstd(zstd_level.unwrap_or(3)),
            Codec::Gzip(_) => o.codec = Codec::Gzip(gzip_level.unwrap_or(6)),
            _ => {}
        }
        Ok(o)
    }

    fn apply_property(&mut self, key: &str, value: &str) -> Result<()> {
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
            ("parquet.enable.bytestreamsplit", Some(c)) => {
                self.byte_stream_split_columns.retain(|x| x != c);
                if boolean(value, false) {
                    self.byte_stream_split_columns.push(c.to_string());
                }
            }
            ("parquet.bloom.filter.enabled", Some(c)) => {
                if boolean(value, false) {
                    self.bloom_filters.entry(c.to_string()).or_default();
                } else {
                    self.bloom_filters.remove(c);
                }
            }
            ("parquet.bloom.filter.expected.ndv", Some(c)) => {
                let ndv = parse::<u64>(key, value)?;
                self.bloom_for(key, value, c)?.ndv = Some(ndv);
            }
            ("parquet.bloom.filter.fpp", Some(c)) => {
                let fpp = parse::<f64>(key, value)?;
                self.bloom_for(key, value, c)?.fpp = fpp;
            }
            ("parquet.bloom.filter.adaptive.enabled", Some(c)) => {
                let on = boolean(value, false);
                self.bloom_for(key, value, c)?.adaptive = on;
            }
            ("parquet.bloom.filter.candidates.number", Some(c)) => {
                let n = parse::<usize>(key, value)?;
                self.bloom_for(key, value, c)?.candidates = n;
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

    /// The bloom filter settings of `column`, which must have been enabled first
    /// (`parquet.bloom.filter.enabled#col`), as parquet-java ignores settings otherwise.
    fn bloom_for(
        &mut self,
        key: &str,
        value: &str,
        column: &str,
    ) -> Result<&mut BloomFilterOptions> {
        self.bloom_filters.get_mut(column).ok_or_else(|| {
            bad(
                key,
                value,
                &format!("bloom filter of column '{column}' is not enabled (set parquet.bloom.filter.enabled#{column}=true first)"),
            )
        })
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
        assert_eq!(o.byte_stream_split_columns, vec!["c".to_string()]);
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
        let e = apply(&[("parquet.bloom.filter.fpp#x", "0.1")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("not enabled"), "{e}");
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
