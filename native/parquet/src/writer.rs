//! The file writer: batches in, row groups out to any `Write`, footer on close.
//!
//! Page and row-group cuts follow parquet-java's schedule exactly: page sizes are checked at
//! record counts that `ColumnWriteStoreBase.sizeCheck` would pick, row-group sizes at those of
//! `InternalParquetRecordWriter.checkBlockSizeReached`. A batch is written in slices between
//! those check points, so each column is appended in bulk.

use crate::bloom_filter::Sbbf;
use crate::chunk::{new_chunk_writer, write_records, write_rows, ChunkWriter, FinishedChunk};
use crate::column::{validate, Batch, RecordStarts};
use crate::encoding::Encoding;
use crate::error::{Error, Result};
use crate::format::{self, ColumnChunkMeta, RowGroupMeta, Statistics, PAGE_DICTIONARY};
use crate::options::WriterOptions;
use crate::page_index::{ColumnIndex, PageLocation};
use crate::schema::{PhysicalType, Schema};
use crate::sink::Sink;
use crate::statistics::SortOrder;
use crate::summary::{ColumnChunkSummary, FooterSummary, RowGroupSummary};

const MAGIC: &[u8] = b"PAR1";
/// parquet-java drops binary statistics of writers whose created_by it cannot parse.
pub const CREATED_BY: &str = concat!(
    "vecruntime version ",
    env!("CARGO_PKG_VERSION"),
    " (build ",
    env!("VECRUNTIME_BUILD_ID"),
    ")"
);
/// Statistics whose min + max reach this many bytes are left out (parquet-java's MAX_STATS_SIZE).
const MAX_STATS_SIZE: usize = 4096;

struct Counting<W: Sink> {
    inner: W,
    pos: u64,
}

impl<W: Sink> Counting<W> {
    fn write_all(&mut self, b: &[u8]) -> Result<()> {
        self.inner.write_all(b)?;
        self.pos += b.len() as u64;
        Ok(())
    }

    fn write_segment(&mut self, segment: Vec<u8>) -> Result<()> {
        let n = segment.len() as u64;
        self.inner.write_segment(segment)?;
        self.pos += n;
        Ok(())
    }
}

/// Indexes kept until close, when they are written after the last row group.
struct ChunkIndexes {
    column_index: Option<ColumnIndex>,
    locations: Vec<PageLocation>,
    bloom: Option<Sbbf>,
}

#[derive(PartialEq, Eq)]
enum State {
    Open,
    Failed,
    Closed,
}

pub struct FileWriter<W: Sink> {
    sink: Counting<W>,
    schema: Schema,
    options: WriterOptions,
    columns: Vec<Box<dyn ChunkWriter>>,
    row_groups: Vec<RowGroupMeta>,
    indexes: Vec<Vec<ChunkIndexes>>,
    summaries: Vec<RowGroupSummary>,
    rows_in_group: usize,
    next_page_check: usize,
    next_group_check: usize,
    total_rows: i64,
    state: State,
}

impl<W: Sink> FileWriter<W> {
    /// Starts a file: validates schema and options and writes the leading magic.
    pub fn new(sink: W, schema: Schema, options: WriterOptions) -> Result<Self> {
        options.validate()?;
        for name in options
            .bloom_filters
            .keys()
            .chain(options.dictionary_columns.keys())
        {
            if !schema.columns().iter().any(|c| &c.name == name) {
                return Err(Error::Options(format!(
                    "option names column '{name}', which the schema lacks"
                )));
            }
        }
        let columns = schema
            .columns()
            .iter()
            .map(|f| new_chunk_writer(f, &options))
            .collect::<Result<Vec<_>>>()?;
        let mut w = FileWriter {
            sink: Counting {
                inner: sink,
                pos: 0,
            },
            next_page_check: options
                .min_row_count_for_size_check
                .min(options.page_row_limit),
            next_group_check: options.min_row_count_for_size_check,
            schema,
            options,
            columns,
            row_groups: Vec::new(),
            indexes: Vec::new(),
            summaries: Vec::new(),
            rows_in_group: 0,
            total_rows: 0,
            state: State::Open,
        };
        w.guard(|w| w.sink.write_all(MAGIC))?;
        Ok(w)
    }

    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// Bytes written to the sink so far.
    pub fn bytes_written(&self) -> u64 {
        self.sink.pos
    }

    /// Bytes held for the current row group (pages buffered in memory): what a memory
    /// manager should account for this writer.
    pub fn buffered_bytes(&self) -> usize {
        self.columns
            .iter()
            .map(|c| c.core().pages_len() + c.page_buffered_size())
            .sum()
    }

    /// Native bytes held by the columns' dictionaries, their pages' ids and the first pages'
    /// values waiting for the dictionary.
    pub fn dictionary_bytes(&self) -> usize {
        self.columns.iter().map(|c| c.dictionary_bytes()).sum()
    }

    /// For a file among many open on its thread (a bucketed write's task fills 64 at once):
    /// the first pages' dictionaries are built in the thread's spare memory, and a dictionary
    /// given up for its fallback encoding, or done with at the end of a chunk, becomes that
    /// spare at once instead of being kept for the next row group. `VECRUNTIME_ROUNDS=3
    /// VECRUNTIME_OPEN_FILES=64 VECRUNTIME_FILE_ROWS=22500 profile_write store_sales 1 snappy`:
    /// 492 ms a round with 72,000 page faults. A single file keeps its dictionaries' memory:
    /// there it is what the next row group's dictionary grows into.
    pub fn release_abandoned_dictionaries(&mut self) {
        for c in &mut self.columns {
            c.core_mut().release_abandoned_dictionary = true;
        }
    }

    pub fn rows_written(&self) -> i64 {
        self.total_rows + self.rows_in_group as i64
    }

    fn check_open(&self) -> Result<()> {
        match self.state {
            State::Open => Ok(()),
            State::Failed => Err(Error::State(
                "the writer failed earlier and cannot be used".into(),
            )),
            State::Closed => Err(Error::State("the writer is closed".into())),
        }
    }

    /// Whether an error left the writer failed (as opposed to input rejected before writing).
    pub fn is_failed(&self) -> bool {
        matches!(self.state, State::Failed)
    }

    /// Runs `f`; an error leaves the writer failed (a half-written file cannot be continued).
    fn guard<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let r = f(self);
        if r.is_err() {
            self.state = State::Failed;
        }
        r
    }

    /// Appends a batch. Invalid input is rejected before anything is written, and the writer
    /// stays usable; any later failure leaves it failed.
    pub fn write_batch(&mut self, batch: &Batch) -> Result<()> {
        self.check_open()?;
        let columns = self.schema.columns();
        if batch.columns.len() != columns.len() {
            return Err(Error::Schema(format!(
                "batch has {} columns, schema has {}",
                batch.columns.len(),
                columns.len()
            )));
        }
        let starts = columns
            .iter()
            .zip(&batch.columns)
            .map(|(f, c)| validate(f, c, batch.num_rows))
            .collect::<Result<Vec<_>>>()?;
        self.guard(|w| w.write_validated(batch, &starts))
    }

    /// Writes the batch in slices of rows between size checks: a nested column's slice is
    /// its whole records, so pages and row groups end on record boundaries.
    fn write_validated(&mut self, batch: &Batch, starts: &[Option<RecordStarts>]) -> Result<()> {
        let n = batch.num_rows;
        let mut pos = 0;
        while pos < n {
            let until = self
                .next_page_check
                .min(self.next_group_check)
                .min(self.options.row_group_row_limit)
                .saturating_sub(self.rows_in_group)
                .max(1);
            let k = until.min(n - pos);
            for ((c, col), s) in self.columns.iter_mut().zip(&batch.columns).zip(starts) {
                match s {
                    None => write_rows(c.as_mut(), col, pos, pos + k)?,
                    Some(s) => write_records(
                        c.as_mut(),
                        col,
                        s.levels[pos]..s.levels[pos + k],
                        s.values[pos]..s.values[pos + k],
                        k,
                    )?,
                }
            }
            pos += k;
            self.rows_in_group += k;
            if self.rows_in_group >= self.next_page_check {
                self.page_size_check()?;
            }
            self.row_group_size_check()?;
        }
        Ok(())
    }

    /// parquet-java's `ColumnWriteStoreBase.sizeCheck`.
    fn page_size_check(&mut self) -> Result<()> {
        let o = &self.options;
        let rows = self.rows_in_group as i64;
        let page_size = o.page_size as i64;
        let tolerance = (page_size as f64 * 0.1) as i64;
        let limit = o.page_row_limit as i64;
        let mut min_to_wait = i64::MAX;
        let mut next_row_count_check = rows + limit;
        for c in &mut self.columns {
            let used = c.page_buffered_size() as i64;
            let written = c.core().rows_written as i64;
            let page_rows = rows - written;
            let mut remaining = page_size - used;
            if remaining <= tolerance || page_rows >= limit {
                c.flush_page()?;
                remaining = page_size;
            } else {
                next_row_count_check = next_row_count_check.min(written + limit);
            }
            let to_fill = if used == 0 {
                o.max_row_count_for_size_check as i64
            } else {
                page_rows * remaining / used
            };
            min_to_wait = min_to_wait.min(to_fill);
        }
        if min_to_wait == i64::MAX {
            min_to_wait = o.min_row_count_for_size_check as i64;
        }
        let mut next = if o.estimate_next_size_check {
            rows + (min_to_wait / 2)
                .max(o.min_row_count_for_size_check as i64)
                .min(o.max_row_count_for_size_check as i64)
        } else {
            rows + o.min_row_count_for_size_check as i64
        };
        next = next.min(next_row_count_check);
        self.next_page_check = next as usize;
        Ok(())
    }

    /// parquet-java's `InternalParquetRecordWriter.checkBlockSizeReached`.
    fn row_group_size_check(&mut self) -> Result<()> {
        let o = &self.options;
        let rows = self.rows_in_group;
        let (min_check, max_check) = (
            o.min_row_count_for_size_check,
            o.max_row_count_for_size_check,
        );
        if rows >= o.row_group_row_limit {
            self.flush_row_group()?;
            self.next_group_check = min_check.min(max_check);
        } else if rows >= self.next_group_check {
            let mem: usize = self.buffered_bytes();
            let record_size = mem / rows;
            let target = self.options.row_group_size;
            if mem as i64 > target as i64 - 2 * record_size as i64 {
                self.flush_row_group()?;
                self.next_group_check = min_check.min(max_check);
            } else {
                let ahead = (target as f32 / record_size as f32) as i64;
                // Java long arithmetic: wraps when recordSize is 0 (ahead = Long.MAX_VALUE).
                let halfway = ((rows as i64).wrapping_add(ahead) / 2).max(min_check as i64);
                self.next_group_check = (halfway.min((rows + max_check) as i64)) as usize;
            }
        }
        Ok(())
    }

    fn flush_row_group(&mut self) -> Result<()> {
        if self.rows_in_group == 0 {
            return Ok(());
        }
        let start = self.sink.pos as i64;
        let mut columns = Vec::with_capacity(self.columns.len());
        let mut indexes = Vec::with_capacity(self.columns.len());
        let mut summaries = Vec::with_capacity(self.columns.len());
        let mut total_byte_size = 0;
        let mut total_compressed = 0;
        for i in 0..self.columns.len() {
            let mut chunk = self.columns[i].finish()?;
            let offset = self.sink.pos as i64;
            self.sink.write_all(&chunk.dictionary_page)?;
            // The segments go to the sink by value (one that holds output keeps them as is).
            let data_len = chunk.data_pages.iter().map(Vec::len).sum();
            for segment in std::mem::take(&mut chunk.data_pages) {
                self.sink.write_segment(segment)?;
            }
            let (meta, idx, summary) = self.chunk_meta(i, offset, data_len, chunk);
            total_byte_size += meta.total_uncompressed_size;
            total_compressed += meta.total_compressed_size;
            columns.push(meta);
            indexes.push(idx);
            summaries.push(summary);
        }
        let num_rows = self.rows_in_group as i64;
        self.row_groups.push(RowGroupMeta {
            columns,
            total_byte_size,
            num_rows,
            file_offset: start,
            total_compressed_size: total_compressed,
            ordinal: self.row_groups.len() as i16,
        });
        self.summaries.push(RowGroupSummary {
            num_rows,
            total_byte_size,
            compressed_size: total_compressed,
            columns: summaries,
        });
        self.indexes.push(indexes);
        self.total_rows += num_rows;
        self.rows_in_group = 0;
        self.next_page_check = self
            .options
            .min_row_count_for_size_check
            .min(self.options.page_row_limit);
        Ok(())
    }

    fn chunk_meta(
        &self,
        i: usize,
        offset: i64,
        data_len: usize,
        mut chunk: FinishedChunk,
    ) -> (ColumnChunkMeta, ChunkIndexes, ColumnChunkSummary) {
        let field = &self.schema.columns()[i];
        let order = self.columns[i].core().order;
        // Statistics off: parquet-java's NoopStatistics, an empty struct (no null count either).
        let mut stats = Statistics {
            null_count: self
                .options
                .statistics_for(&field.name)
                .then_some(chunk.stats.null_count as i64),
            legacy_min_max: !matches!(order, SortOrder::Unsigned | SortOrder::Undefined),
            ..Default::default()
        };
        // The chunk's own bounds where the footer's are left out or cut: a table format's
        // statistics (Delta's) are taken from them.
        let mut whole = None;
        if let Some((mut min, mut max)) = chunk.stats.min_max.take() {
            // As parquet-java's ParquetMetadataConverter.toParquetStatistics: binary values
            // are cut to parquet.statistics.truncate.length, and kept when cut they fit.
            let cut = self.options.statistics_truncate_length;
            let binary = matches!(
                field.physical,
                PhysicalType::ByteArray | PhysicalType::FixedLenByteArray(_) | PhysicalType::Int96
            );
            let fits = min.len() + max.len() < MAX_STATS_SIZE
                || (binary && min.len().min(cut) + max.len().min(cut) < MAX_STATS_SIZE);
            let cuts = binary && (min.len() > cut || max.len() > cut);
            if order != SortOrder::Undefined && (!fits || cuts) {
                whole = Some((min.clone(), max.clone()));
            }
            if binary && cut != i32::MAX as usize {
                let t = self.columns[i].core().truncation;
                min = crate::page_index::truncate_min(t, &min, cut);
                max = crate::page_index::truncate_max(t, &max, cut);
            }
            if fits && order != SortOrder::Undefined {
                if min == max {
                    stats.legacy_min_max = true;
                }
                stats.min = Some(min);
                stats.max = Some(max);
            }
        }
        for l in &mut chunk.locations {
            l.offset += offset;
        }
        let dictionary_fallback = chunk.dictionary_page_len.is_some()
            && chunk.encoding_stats.iter().any(|(page, e, _)| {
                *page != PAGE_DICTIONARY
                    && !matches!(e, Encoding::RleDictionary | Encoding::PlainDictionary)
            });
        let data_page_offset = offset + chunk.dictionary_page_len.unwrap_or(0) as i64;
        let compressed = (chunk.dictionary_page.len() + data_len) as i64;
        let meta = ColumnChunkMeta {
            physical_type: field.physical.thrift_id(),
            encodings: chunk.encodings.clone(),
            path: field.path.clone(),
            codec: self.options.codec.thrift_id(),
            num_values: chunk.num_values,
            total_uncompressed_size: chunk.total_uncompressed_size,
            total_compressed_size: compressed,
            data_page_offset,
            dictionary_page_offset: chunk.dictionary_page_len.map(|_| offset),
            statistics: stats.clone(),
            encoding_stats: std::mem::take(&mut chunk.encoding_stats),
            bloom_filter: None,
            offset_index: None,
            column_index: None,
            geospatial: chunk.geo.take(),
        };
        let summary = ColumnChunkSummary {
            path: field.path.clone(),
            encodings: std::mem::take(&mut chunk.encodings),
            compressed_size: compressed,
            uncompressed_size: chunk.total_uncompressed_size,
            num_values: chunk.num_values,
            null_count: chunk.stats.null_count as i64,
            min: stats.min,
            max: stats.max,
            whole_bounds: whole,
            dictionary_page: chunk.dictionary_page_len.is_some(),
            dictionary_fallback,
            bloom_filter_bytes: chunk.bloom_filter.as_ref().map(|b| b.num_bytes()),
            column_index: chunk.column_index.is_some(),
        };
        let idx = ChunkIndexes {
            column_index: chunk.column_index.take(),
            locations: std::mem::take(&mut chunk.locations),
            bloom: chunk.bloom_filter.take(),
        };
        (meta, idx, summary)
    }

    /// Ends the last row group, writes page indexes, bloom filters and the footer.
    /// Ends the open row group now (when memory is short): its pages go to the sink, and the
    /// size checks start over as after any row group. Nothing happens without buffered rows.
    pub fn end_row_group(&mut self) -> Result<()> {
        self.check_open()?;
        self.guard(|w| {
            w.flush_row_group()?;
            let o = &w.options;
            w.next_group_check = o
                .min_row_count_for_size_check
                .min(o.max_row_count_for_size_check);
            Ok(())
        })
    }

    pub fn close(&mut self) -> Result<FooterSummary> {
        self.check_open()?;
        let r = self.guard(|w| w.close_inner());
        if r.is_ok() {
            self.state = State::Closed;
        }
        r
    }

    fn close_inner(&mut self) -> Result<FooterSummary> {
        self.flush_row_group()?;
        for g in 0..self.row_groups.len() {
            for c in 0..self.columns.len() {
                if let Some(ci) = &self.indexes[g][c].column_index {
                    let bytes = format::write_column_index(ci);
                    self.row_groups[g].columns[c].column_index =
                        Some((self.sink.pos as i64, bytes.len() as i32));
                    self.sink.write_all(&bytes)?;
                }
            }
        }
        for g in 0..self.row_groups.len() {
            for c in 0..self.columns.len() {
                let bytes = format::write_offset_index(&self.indexes[g][c].locations);
                self.row_groups[g].columns[c].offset_index =
                    Some((self.sink.pos as i64, bytes.len() as i32));
                self.sink.write_all(&bytes)?;
            }
        }
        for g in 0..self.row_groups.len() {
            for c in 0..self.columns.len() {
                if let Some(b) = self.indexes[g][c].bloom.take() {
                    let start = self.sink.pos;
                    self.sink
                        .write_all(&format::write_bloom_filter_header(b.num_bytes()))?;
                    self.sink.write_all(&b.bitset())?;
                    let len = (self.sink.pos - start) as i32;
                    self.row_groups[g].columns[c].bloom_filter = Some((start as i64, len));
                }
            }
        }
        let footer = format::write_file_metadata(
            &self.schema,
            self.total_rows,
            &self.row_groups,
            &self.options.key_value_metadata,
            CREATED_BY,
        );
        self.sink.write_all(&footer)?;
        self.sink.write_all(&(footer.len() as u32).to_le_bytes())?;
        self.sink.write_all(MAGIC)?;
        self.sink.inner.flush()?;
        Ok(FooterSummary {
            num_rows: self.total_rows,
            file_size: self.sink.pos,
            footer_size: footer.len() as u64,
            row_groups: std::mem::take(&mut self.summaries),
        })
    }

    /// The sink, after close (or to discard a failed file).
    pub fn into_inner(self) -> W {
        self.sink.inner
    }

    pub fn sink_mut(&mut self) -> &mut W {
        &mut self.sink.inner
    }
}
