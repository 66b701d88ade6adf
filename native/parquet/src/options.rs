//! Writer options, with parquet-java's defaults and its configuration names in the docs.

use crate::error::{Error, Result};
use crate::schema::PhysicalType;
use std::collections::{HashMap, HashSet};

/// Compression codec of every column chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codec {
    Uncompressed,
    Snappy,
    /// gzip with the given level (1..=9; Hadoop's default is 6).
    Gzip(u32),
    /// zstd with the given level (`parquet.compression.codec.zstd.level`, default 3).
    Zstd(i32),
    /// LZ4 in Hadoop's block framing: what Spark's `lz4` writes.
    Lz4Hadoop,
    Lz4Raw,
}

impl Codec {
    pub(crate) fn thrift_id(self) -> i32 {
        match self {
            Codec::Uncompressed => 0,
            Codec::Snappy => 1,
            Codec::Gzip(_) => 2,
            Codec::Lz4Hadoop => 5,
            Codec::Zstd(_) => 6,
            Codec::Lz4Raw => 7,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Codec::Uncompressed => "UNCOMPRESSED",
            Codec::Snappy => "SNAPPY",
            Codec::Gzip(_) => "GZIP",
            Codec::Lz4Hadoop => "LZ4",
            Codec::Zstd(_) => "ZSTD",
            Codec::Lz4Raw => "LZ4_RAW",
        }
    }

    /// Parses Spark's / parquet-java's codec names (case-insensitive).
    pub fn parse(name: &str) -> Result<Codec> {
        Ok(match name.to_ascii_lowercase().as_str() {
            "none" | "uncompressed" => Codec::Uncompressed,
            "snappy" => Codec::Snappy,
            "gzip" => Codec::Gzip(6),
            "zstd" => Codec::Zstd(3),
            "lz4" => Codec::Lz4Hadoop,
            "lz4_raw" | "lz4raw" => Codec::Lz4Raw,
            other => return Err(Error::Options(format!("unsupported codec '{other}'"))),
        })
    }
}

/// `parquet.writer.version`: the data page format and parquet-java's encoding choices for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriterVersion {
    /// Data page v1: levels length-prefixed and compressed with the values; dictionary
    /// (PLAIN_DICTIONARY) or PLAIN values, no dictionary for FIXED_LEN_BYTE_ARRAY.
    V1,
    /// Data page v2 and the v2 encodings (RLE_DICTIONARY, DELTA_*).
    V2,
}

impl WriterVersion {
    /// parquet-java's `WriterVersion.fromString`: the short name or the enum name, exactly.
    pub fn parse(name: &str) -> Result<WriterVersion> {
        match name {
            "v1" | "PARQUET_1_0" => Ok(WriterVersion::V1),
            "v2" | "PARQUET_2_0" => Ok(WriterVersion::V2),
            other => Err(Error::Options(format!(
                "unknown writer version '{other}' (v1, v2, PARQUET_1_0 or PARQUET_2_0)"
            ))),
        }
    }
}

/// Bloom filter settings of one column (`parquet.bloom.filter.*`).
#[derive(Clone, Debug, PartialEq)]
pub struct BloomFilterOptions {
    /// `parquet.bloom.filter.expected.ndv#col`: sizes the filter from the expected distinct count.
    pub ndv: Option<u64>,
    /// `parquet.bloom.filter.fpp#col`, default 0.01.
    pub fpp: f64,
    /// `parquet.bloom.filter.adaptive.enabled`: keep several candidate sizes, write the smallest
    /// that holds the distinct values seen.
    pub adaptive: bool,
    /// `parquet.bloom.filter.candidates.number#col`, default 5.
    pub candidates: usize,
}

impl Default for BloomFilterOptions {
    fn default() -> Self {
        BloomFilterOptions {
            ndv: None,
            fpp: 0.01,
            adaptive: false,
            candidates: 5,
        }
    }
}

#[derive(Clone, Debug)]
pub struct WriterOptions {
    pub codec: Codec,
    /// `parquet.writer.version`, v2 by default.
    pub writer_version: WriterVersion,
    /// `parquet.page.size`: a page ends once its raw (plain) size reaches this.
    pub page_size: usize,
    /// `parquet.dictionary.page.size`: the dictionary falls back once it outgrows this.
    pub dictionary_page_size: usize,
    /// `parquet.block.size`.
    pub row_group_size: usize,
    /// `parquet.page.row.count.limit`.
    pub page_row_limit: usize,
    /// `parquet.block.row.count.limit`.
    pub row_group_row_limit: usize,
    /// `parquet.enable.dictionary`.
    pub dictionary_enabled: bool,
    /// Per-column overrides of `dictionary_enabled` (`parquet.enable.dictionary#col`).
    pub dictionary_columns: HashMap<String, bool>,
    /// `parquet.column.statistics.enabled`: chunk and page statistics (off: none, not even the
    /// null count, as parquet-java's `NoopStatistics`).
    pub statistics_enabled: bool,
    /// Per-column overrides of `statistics_enabled` (`parquet.column.statistics.enabled#col`).
    pub statistics_columns: HashMap<String, bool>,
    /// `parquet.enable.bytestreamsplit`: BYTE_STREAM_SPLIT as the fallback encoding of the
    /// FLOAT and DOUBLE columns without their own key, as parquet-java's global switch.
    pub byte_stream_split_floating: bool,
    /// `parquet.enable.bytestreamsplit#col`: BYTE_STREAM_SPLIT on or off for a column
    /// (FLOAT/DOUBLE/INT32/INT64/FLBA).
    pub byte_stream_split_columns: HashMap<String, bool>,
    /// `parquet.bloom.filter.enabled#col` (or the key for all columns) and its settings.
    pub bloom_filters: HashMap<String, BloomFilterOptions>,
    /// `parquet.bloom.filter.enabled` and `parquet.bloom.filter.adaptive.enabled`: a filter for
    /// every column without its own key, adaptive or not.
    pub bloom_filter_all: bool,
    pub bloom_filter_adaptive_all: bool,
    /// The candidate count of every column's adaptive filter
    /// (`parquet.bloom.filter.candidates.number` of any column, as parquet-java reads it).
    pub bloom_filter_candidates: usize,
    /// Columns whose own key turns the filter for all columns off.
    pub bloom_filters_off: HashSet<String>,
    /// `parquet.bloom.filter.max.bytes`.
    pub bloom_filter_max_bytes: usize,
    /// `parquet.columnindex.truncate.length`.
    pub column_index_truncate_length: usize,
    /// `parquet.statistics.truncate.length`: binary chunk statistics cut to this many bytes
    /// (parquet-java's default, `Integer.MAX_VALUE`, cuts nothing).
    pub statistics_truncate_length: usize,
    /// `vecruntime.delta-binary-packed`, default true: in v2 pages, INT32/INT64 values without
    /// a dictionary (off, or fallen back) are DELTA_BINARY_PACKED, parquet-java's choice; false
    /// writes them PLAIN (Spark 4.2's vectorized reader misreads DELTA_BINARY_PACKED pages
    /// when it skips pages by the column index).
    pub delta_binary_packed: bool,
    /// `parquet.page.write-checksum.enabled`.
    pub page_checksum: bool,
    /// Written in the footer in this order.
    pub key_value_metadata: Vec<(String, String)>,
    /// `parquet.page.size.row.check.min` / `.max` and `parquet.page.size.check.estimate`.
    pub min_row_count_for_size_check: usize,
    pub max_row_count_for_size_check: usize,
    pub estimate_next_size_check: bool,
    /// `vecruntime.rle.parquet-java-runs`: RLE runs of 1-bit values (definition levels, ids of
    /// dictionaries of up to 2 entries) start at 8 repeats, as parquet-java's; the bytes are
    /// then parquet-java's. Off by default: those runs then start at 24 repeats,
    /// which makes typical definition levels about 15% smaller (see `encoding::rle`).
    pub parquet_java_runs: bool,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            codec: Codec::Snappy,
            writer_version: WriterVersion::V2,
            page_size: 1024 * 1024,
            dictionary_page_size: 1024 * 1024,
            row_group_size: 128 * 1024 * 1024,
            page_row_limit: 20_000,
            row_group_row_limit: i32::MAX as usize,
            dictionary_enabled: true,
            dictionary_columns: HashMap::new(),
            statistics_enabled: true,
            statistics_columns: HashMap::new(),
            byte_stream_split_floating: false,
            byte_stream_split_columns: HashMap::new(),
            bloom_filters: HashMap::new(),
            bloom_filter_all: false,
            bloom_filter_adaptive_all: false,
            bloom_filter_candidates: 5,
            bloom_filters_off: HashSet::new(),
            bloom_filter_max_bytes: 1024 * 1024,
            column_index_truncate_length: 64,
            statistics_truncate_length: i32::MAX as usize,
            delta_binary_packed: true,
            page_checksum: true,
            key_value_metadata: Vec::new(),
            min_row_count_for_size_check: 100,
            max_row_count_for_size_check: 10_000,
            estimate_next_size_check: true,
            parquet_java_runs: false,
        }
    }
}

impl WriterOptions {
    /// Checks the settings hold together and lie in range (every writer does, when it opens).
    pub fn validate(&self) -> Result<()> {
        let positive = [
            ("parquet.page.size", self.page_size),
            ("parquet.dictionary.page.size", self.dictionary_page_size),
            ("parquet.page.row.count.limit", self.page_row_limit),
            ("parquet.block.row.count.limit", self.row_group_row_limit),
            (
                "parquet.page.size.row.check.min",
                self.min_row_count_for_size_check,
            ),
            (
                "parquet.page.size.row.check.max",
                self.max_row_count_for_size_check,
            ),
        ];
        for (name, v) in positive {
            if v == 0 || v > i32::MAX as usize {
                return Err(Error::Options(format!(
                    "{name} must be in 1..={}, got {v}",
                    i32::MAX
                )));
            }
        }
        // A size threshold only (compared in i64), not a length written anywhere.
        if self.row_group_size == 0 || self.row_group_size > i64::MAX as usize {
            return Err(Error::Options(format!(
                "parquet.block.size must be in 1..={}, got {}",
                i64::MAX,
                self.row_group_size
            )));
        }
        match self.codec {
            Codec::Gzip(l) if l > 9 => {
                return Err(Error::Options(format!("gzip level must be 0..=9, got {l}")))
            }
            Codec::Zstd(l) if !(-131072..=22).contains(&l) => {
                return Err(Error::Options(format!(
                    "zstd level must be -131072..=22, got {l}"
                )))
            }
            _ => {}
        }
        for (col, b) in &self.bloom_filters {
            if !(b.fpp > 0.0 && b.fpp < 1.0) {
                return Err(Error::Options(format!(
                    "bloom filter fpp of column '{col}' must be in (0, 1), got {}",
                    b.fpp
                )));
            }
            if b.candidates == 0 {
                return Err(Error::Options(format!(
                    "bloom filter candidates of column '{col}' must be at least 1"
                )));
            }
        }
        if self.bloom_filter_max_bytes == 0 || self.bloom_filter_max_bytes > i32::MAX as usize {
            return Err(Error::Options(format!(
                "parquet.bloom.filter.max.bytes must be in 1..={}, got {}",
                i32::MAX,
                self.bloom_filter_max_bytes
            )));
        }
        Ok(())
    }

    /// The bloom filter of a column: its own settings, else the filter for all columns.
    pub(crate) fn bloom_filter_for(&self, column: &str) -> Option<BloomFilterOptions> {
        match self.bloom_filters.get(column) {
            Some(b) => Some(b.clone()),
            None if self.bloom_filter_all && !self.bloom_filters_off.contains(column) => {
                Some(BloomFilterOptions {
                    adaptive: self.bloom_filter_adaptive_all,
                    candidates: self.bloom_filter_candidates,
                    ..BloomFilterOptions::default()
                })
            }
            None => None,
        }
    }

    /// Whether a column's fallback encoding is BYTE_STREAM_SPLIT: its own key, else the switch
    /// for the floating-point columns.
    pub(crate) fn byte_stream_split_for(&self, column: &str, physical: PhysicalType) -> bool {
        match self.byte_stream_split_columns.get(column) {
            Some(&on) => on,
            None => {
                self.byte_stream_split_floating
                    && matches!(physical, PhysicalType::Float | PhysicalType::Double)
            }
        }
    }

    pub(crate) fn statistics_for(&self, column: &str) -> bool {
        *self
            .statistics_columns
            .get(column)
            .unwrap_or(&self.statistics_enabled)
    }

    pub(crate) fn dictionary_for(&self, column: &str) -> bool {
        *self
            .dictionary_columns
            .get(column)
            .unwrap_or(&self.dictionary_enabled)
    }
}
