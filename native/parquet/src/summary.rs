//! What `close()` reports: per row group and column chunk, the encodings, sizes, counts and
//! statistics that went into the footer. The JVM side turns it into Spark's write statistics.

use crate::encoding::Encoding;

#[derive(Clone, Debug)]
pub struct ColumnChunkSummary {
    /// Names from the root's child down to the leaf.
    pub path: Vec<String>,
    pub encodings: Vec<Encoding>,
    pub compressed_size: i64,
    pub uncompressed_size: i64,
    pub num_values: i64,
    pub null_count: i64,
    /// Plain-encoded bounds, when the footer has them.
    pub min: Option<Vec<u8>>,
    pub max: Option<Vec<u8>>,
    /// The chunk's own min and max, whole, where the footer's are left out (too large) or cut
    /// (`parquet.statistics.truncate.length`); `None` where they equal the footer's.
    pub whole_bounds: Option<(Vec<u8>, Vec<u8>)>,
    pub dictionary_page: bool,
    /// A dictionary page, and data pages not dictionary-encoded after it (parquet-java's
    /// fallback when the dictionary outgrew its limit).
    pub dictionary_fallback: bool,
    pub bloom_filter_bytes: Option<usize>,
    pub column_index: bool,
}

#[derive(Clone, Debug)]
pub struct RowGroupSummary {
    pub num_rows: i64,
    pub total_byte_size: i64,
    pub compressed_size: i64,
    pub columns: Vec<ColumnChunkSummary>,
}

#[derive(Clone, Debug)]
pub struct FooterSummary {
    pub num_rows: i64,
    pub file_size: u64,
    pub footer_size: u64,
    pub row_groups: Vec<RowGroupSummary>,
}
