//! Column chunk writers: one per physical type family. Each buffers the pages of the current
//! row group (compressed, with headers) and hands them over when the row group ends.
//!
//! The value side decides the encoding (dictionary first, parquet-java's fallback rules); the
//! shared [`ChunkCore`] owns everything else: definition levels, page headers and checksums,
//! compression, statistics, page index and bloom filter.

mod binary;
mod boolean;
mod dictionary_state;
mod fixed_binary;
mod fixed_width;
mod gather;

pub(crate) use binary::BinaryWriter;
pub(crate) use boolean::BooleanWriter;
pub(crate) use fixed_width::FixedWidthWriter;

use crate::bloom_filter::{BloomFilter, Sbbf};
use crate::column::{ColumnData, ColumnView};
use crate::compression::Compressor;
use crate::encoding::rle::RleEncoder;
use crate::encoding::Encoding;
use crate::error::{Error, Result};
use crate::format::{
    DataPageV1Header, DataPageV2Header, DictionaryPageHeader, PAGE_DATA, PAGE_DATA_V2,
    PAGE_DICTIONARY,
};
use crate::geospatial::GeoStats;
use crate::options::{WriterOptions, WriterVersion};
use crate::page_index::{ColumnIndex, ColumnIndexBuilder, PageLocation, Truncation};
use crate::schema::{ColumnDescriptor, LogicalType, PhysicalType};
use crate::statistics::{ChunkStats, PageStats, SortOrder};

/// What every chunk writer offers the file writer.
pub(crate) trait ChunkWriter: Send {
    /// Appends the values of slots `start..end` of `data` (already validated), those not null
    /// in `validity`, to the current page. Levels are the core's: see [`write_rows`].
    fn put_values(
        &mut self,
        data: &ColumnData,
        validity: Option<&[u8]>,
        start: usize,
        end: usize,
    ) -> Result<()>;
    /// Ends the current page (it holds at least one row).
    fn flush_page(&mut self) -> Result<()>;
    /// Ends the chunk: last page, dictionary page; resets for the next row group.
    fn finish(&mut self) -> Result<FinishedChunk>;
    /// parquet-java's `getCurrentPageBufferedSize`: levels plus the raw (or encoded) values.
    fn page_buffered_size(&self) -> usize;
    fn core(&self) -> &ChunkCore;
    fn core_mut(&mut self) -> &mut ChunkCore;
    /// Native bytes held by the chunk's dictionary and the current page's ids.
    fn dictionary_bytes(&self) -> usize {
        0
    }
}

/// Appends rows `start..end` of a flat column: levels from its validity, then its values.
pub(crate) fn write_rows(
    w: &mut dyn ChunkWriter,
    col: &ColumnView,
    start: usize,
    end: usize,
) -> Result<()> {
    w.core_mut().put_levels(col.validity, start, end);
    w.put_values(&col.data, col.validity, start, end)
}

/// Appends whole records of a nested column: level entries `levels`, holding the values
/// `values`, `rows` records in all.
pub(crate) fn write_records(
    w: &mut dyn ChunkWriter,
    col: &ColumnView,
    levels: std::ops::Range<usize>,
    values: std::ops::Range<usize>,
    rows: usize,
) -> Result<()> {
    let nested = col.nested.expect("a nested column");
    w.core_mut().put_nested_levels(
        &nested.def[levels.clone()],
        &nested.rep[levels],
        rows,
        values.len(),
    );
    w.put_values(&col.data, None, values.start, values.end)
}

/// A finished column chunk of one row group, offsets relative to its own first byte.
pub(crate) struct FinishedChunk {
    /// Dictionary page (header and body), empty without one; the data pages follow it.
    pub dictionary_page: Vec<u8>,
    /// The data pages, back to back, in segments (written in order).
    pub data_pages: Vec<Vec<u8>>,
    pub dictionary_page_len: Option<usize>,
    pub num_values: i64,
    pub total_uncompressed_size: i64,
    pub encodings: Vec<Encoding>,
    pub encoding_stats: Vec<(i32, Encoding, i32)>,
    pub stats: ChunkStats,
    /// A GEOMETRY chunk's geospatial statistics (statistics enabled).
    pub geo: Option<GeoStats>,
    pub column_index: Option<ColumnIndex>,
    pub locations: Vec<PageLocation>,
    pub bloom_filter: Option<Sbbf>,
}

pub(crate) struct ChunkCore {
    pub name: String,
    max_def: i16,
    max_rep: i16,
    /// Data page v1 (`parquet.writer.version=v1`).
    pub v1: bool,
    pub order: SortOrder,
    statistics_enabled: bool,
    compressor: Compressor,
    checksum: bool,
    pub truncation: Truncation,
    truncate_len: usize,
    // current page
    def_levels: RleEncoder,
    rep_levels: RleEncoder,
    pub page_rows: usize,
    /// Level entries (values and nulls at any level); equals rows for flat columns.
    page_values: usize,
    pub page_nulls: usize,
    // current chunk: full segments of pages, then the open one. Segments instead of one
    // growing buffer: a chunk grows without reallocating (copying) what it holds.
    pages: Vec<Vec<u8>>,
    pages_len: usize,
    current: Vec<u8>,
    locations: Vec<PageLocation>,
    pub rows_written: usize,
    uncompressed: i64,
    num_values: i64,
    data_encodings: Vec<(Encoding, i32)>,
    stats: ChunkStats,
    column_index: ColumnIndexBuilder,
    pub bloom: Option<BloomFilter>,
    /// GEOMETRY chunks: the geospatial statistics of the values so far.
    pub geo: Option<GeoStats>,
    bloom_opts: Option<(crate::options::BloomFilterOptions, usize)>,
    /// A file among many open on its thread: first pages' dictionaries are built in, and given
    /// up or finished ones go back to, the thread's spare memory instead of being kept for the
    /// next row group ([`crate::FileWriter::release_abandoned_dictionaries`]).
    pub release_abandoned_dictionary: bool,
}

/// Bits of the RLE/bit-packed levels up to `max` (parquet-java's `getWidthFromMaxInt`).
fn level_width(max: i16) -> u32 {
    16 - (max as u16).leading_zeros()
}

/// Parquet page sizes are i32.
const MAX_PAGE_BYTES: usize = i32::MAX as usize;

/// Bytes of a page segment (more when one page needs more).
const SEGMENT: usize = 1 << 20;

impl Drop for FinishedChunk {
    fn drop(&mut self) {
        for segment in self.data_pages.drain(..) {
            crate::buffers::give(segment);
        }
    }
}

impl Drop for ChunkCore {
    fn drop(&mut self) {
        for segment in self.pages.drain(..) {
            crate::buffers::give(segment);
        }
        crate::buffers::give(std::mem::take(&mut self.current));
    }
}

impl ChunkCore {
    pub fn new(field: &ColumnDescriptor, opts: &WriterOptions) -> Result<Self> {
        let order = sort_order(field);
        let truncation = match (field.physical, &field.logical) {
            // As parquet-java's BinaryTruncator.getTruncator: decimals are not cut.
            (PhysicalType::ByteArray, Some(LogicalType::String) | None)
            | (PhysicalType::FixedLenByteArray(_), None) => Truncation::Utf8,
            _ => Truncation::None,
        };
        // BOOLEAN chunks hash nothing, yet get their (empty) filter, as parquet-java's do.
        let bloom_opts = opts
            .bloom_filter_for(&field.name)
            .map(|b| (b, opts.bloom_filter_max_bytes));
        Ok(ChunkCore {
            name: field.name.clone(),
            max_def: field.max_def,
            max_rep: field.max_rep,
            v1: opts.writer_version == WriterVersion::V1,
            order,
            statistics_enabled: opts.statistics_for(&field.name),
            compressor: Compressor::new(opts.codec)?,
            checksum: opts.page_checksum,
            truncation,
            truncate_len: opts.column_index_truncate_length,
            def_levels: RleEncoder::new(level_width(field.max_def))
                .parquet_java_runs(opts.parquet_java_runs),
            rep_levels: RleEncoder::new(level_width(field.max_rep))
                .parquet_java_runs(opts.parquet_java_runs),
            page_rows: 0,
            page_values: 0,
            page_nulls: 0,
            pages: Vec::new(),
            pages_len: 0,
            current: Vec::new(),
            locations: Vec::new(),
            rows_written: 0,
            uncompressed: 0,
            num_values: 0,
            data_encodings: Vec::new(),
            stats: ChunkStats::default(),
            column_index: ColumnIndexBuilder::new(
                order,
                truncation,
                opts.column_index_truncate_length,
            ),
            bloom: bloom_opts
                .as_ref()
                .map(|(o, max)| BloomFilter::new(o, *max)),
            bloom_opts,
            geo: (opts.statistics_for(&field.name)
                && matches!(field.logical, Some(LogicalType::Geometry { .. })))
            .then(GeoStats::default),
            release_abandoned_dictionary: false,
        })
    }

    /// Definition levels (and the page's row and null counts) for rows `start..end` of a flat
    /// column.
    #[inline]
    pub fn put_levels(&mut self, validity: Option<&[u8]>, start: usize, end: usize) {
        let n = end - start;
        self.page_rows += n;
        self.page_values += n;
        if self.max_def == 0 {
            return;
        }
        match validity {
            None => self.def_levels.put_run(1, n),
            Some(v) => {
                let valid = crate::column::count_set_bits(v, start, end);
                if valid == n {
                    self.def_levels.put_run(1, n);
                } else if valid == 0 {
                    self.def_levels.put_run(0, n);
                    self.page_nulls += n;
                } else {
                    self.def_levels.put_bits(v, start, end);
                    self.page_nulls += n - valid;
                }
            }
        }
    }

    /// Levels of `rows` whole records of a nested column, `defined` of them defined at the
    /// leaf (as counted when the levels were checked). An entry not defined at the leaf is a
    /// null, whatever level it stops at (parquet-java's `writeNull`).
    pub fn put_nested_levels(&mut self, def: &[i16], rep: &[i16], rows: usize, defined: usize) {
        debug_assert_eq!(
            def.len() - defined,
            def.iter().filter(|&&d| d < self.max_def).count()
        );
        self.page_rows += rows;
        self.page_values += def.len();
        put_level_runs(&mut self.def_levels, def, self.max_def);
        put_level_runs(&mut self.rep_levels, rep, self.max_rep);
        self.page_nulls += def.len() - defined;
    }

    pub fn levels_buffered(&self) -> usize {
        let def = if self.max_def > 0 {
            self.def_levels.encoded_len()
        } else {
            0
        };
        let rep = if self.max_rep > 0 {
            self.rep_levels.encoded_len()
        } else {
            0
        };
        def + rep
    }

    #[inline]
    pub fn bloom_insert(&mut self, plain: &[u8]) {
        if let Some(b) = &mut self.bloom {
            b.insert_hash(crate::bloom_filter::hash_bytes(plain));
        }
    }

    fn too_large(&self, what: &str, n: usize) -> Error {
        Error::too_large(
            &self.name,
            format!("{what} of {n} bytes exceeds Parquet's 2 GiB page limit; lower the page size"),
        )
    }

    /// Writes a data page v2 whose values (uncompressed) are `values`.
    pub fn write_data_page(
        &mut self,
        encoding: Encoding,
        values: &[u8],
        stats: PageStats,
    ) -> Result<()> {
        self.write_data_page_parts(encoding, &[values], stats)
    }

    /// [`Self::write_data_page`] for values given in pieces (an encoder's streams as they
    /// lie): uncompressed pages copy each piece once into the page.
    pub fn write_data_page_parts(
        &mut self,
        encoding: Encoding,
        values: &[&[u8]],
        stats: PageStats,
    ) -> Result<()> {
        if self.v1 {
            return self.write_data_page_v1(encoding, values, stats);
        }
        // The page's transient buffers are the thread's (`buffers::scratch`): levels, values
        // given in pieces joined for the compressor, and the compressor's output.
        let mut def = crate::buffers::scratch();
        let mut rep = crate::buffers::scratch();
        def.clear();
        rep.clear();
        if self.max_def > 0 {
            self.def_levels.finish_swap(&mut def);
        }
        if self.max_rep > 0 {
            self.rep_levels.finish_swap(&mut rep);
        }
        let levels_len = rep.len() + def.len();
        let values_len: usize = values.iter().map(|v| v.len()).sum();
        let uncompressed = levels_len + values_len;
        if uncompressed > MAX_PAGE_BYTES {
            return Err(self.too_large("a page", uncompressed));
        }
        let mut scratch = crate::buffers::scratch();
        let mut joined = crate::buffers::scratch();
        let is_compressed = values_len > 0;
        let single;
        // Uncompressed pages are copied once, straight from `values`.
        let compressed: &[&[u8]] = if self.compressor.is_uncompressed() {
            values
        } else {
            let input = match values {
                [one] => one,
                _ => {
                    joined.clear();
                    values.iter().for_each(|v| joined.extend_from_slice(v));
                    &joined[..]
                }
            };
            let n = if is_compressed {
                self.compressor.compress_into(input, &mut scratch)?
            } else {
                0
            };
            single = [&scratch[..n]];
            &single
        };
        let compressed_len: usize = compressed.iter().map(|v| v.len()).sum();
        let compressed_size = levels_len + compressed_len;
        if compressed_size > MAX_PAGE_BYTES {
            return Err(self.too_large("a compressed page", compressed_size));
        }
        let crc = self.checksum.then(|| {
            let mut h = crc32fast::Hasher::new();
            h.update(&rep);
            h.update(&def);
            compressed.iter().for_each(|v| h.update(v));
            h.finalize()
        });
        let header = DataPageV2Header {
            uncompressed_size: uncompressed as i32,
            compressed_size: compressed_size as i32,
            crc,
            num_values: self.page_values as i32,
            num_nulls: self.page_nulls as i32,
            num_rows: self.page_rows as i32,
            encoding,
            def_levels_len: def.len() as i32,
            rep_levels_len: rep.len() as i32,
            is_compressed,
        };
        // The header is a few dozen bytes (no page statistics); 256 covers it.
        self.reserve_segment(256 + levels_len + compressed_len);
        let offset = self.pages_len();
        let start = self.current.len();
        header.write(&mut self.current);
        let header_len = self.current.len() - start;
        self.current.extend_from_slice(&rep);
        self.current.extend_from_slice(&def);
        compressed
            .iter()
            .for_each(|v| self.current.extend_from_slice(v));
        for b in [scratch, joined, def, rep] {
            crate::buffers::return_scratch(b);
        }
        self.page_written(
            encoding,
            stats,
            offset,
            header_len + compressed_size,
            header_len + uncompressed,
        );
        Ok(())
    }

    /// A data page v1 (parquet-java's `ColumnWriterV1`): repetition then definition levels,
    /// each RLE with a 4-byte length prefix (absent at max level 0), then the values, all
    /// compressed together.
    fn write_data_page_v1(
        &mut self,
        encoding: Encoding,
        values: &[&[u8]],
        stats: PageStats,
    ) -> Result<()> {
        let mut body = crate::buffers::scratch();
        let mut levels = crate::buffers::scratch();
        body.clear();
        for (max, enc) in [
            (self.max_rep, &mut self.rep_levels),
            (self.max_def, &mut self.def_levels),
        ] {
            if max > 0 {
                levels.clear();
                enc.finish_swap(&mut levels);
                body.extend_from_slice(&(levels.len() as u32).to_le_bytes());
                body.extend_from_slice(&levels);
            }
        }
        crate::buffers::return_scratch(levels);
        values.iter().for_each(|v| body.extend_from_slice(v));
        let uncompressed = body.len();
        if uncompressed > MAX_PAGE_BYTES {
            return Err(self.too_large("a page", uncompressed));
        }
        let mut scratch = crate::buffers::scratch();
        let compressed: &[u8] = if self.compressor.is_uncompressed() {
            &body
        } else {
            let n = self.compressor.compress_into(&body, &mut scratch)?;
            &scratch[..n]
        };
        let compressed_size = compressed.len();
        if compressed_size > MAX_PAGE_BYTES {
            return Err(self.too_large("a compressed page", compressed_size));
        }
        let level_encoding = |max: i16| {
            if max > 0 {
                Encoding::Rle
            } else {
                Encoding::BitPacked
            }
        };
        let header = DataPageV1Header {
            uncompressed_size: uncompressed as i32,
            compressed_size: compressed_size as i32,
            crc: self.checksum.then(|| crc32fast::hash(compressed)),
            num_values: self.page_values as i32,
            encoding: v1_encoding(encoding),
            def_encoding: level_encoding(self.max_def),
            rep_encoding: level_encoding(self.max_rep),
        };
        self.reserve_segment(64 + compressed_size);
        let offset = self.pages_len();
        let start = self.current.len();
        header.write(&mut self.current);
        let header_len = self.current.len() - start;
        self.current.extend_from_slice(compressed);
        crate::buffers::return_scratch(body);
        crate::buffers::return_scratch(scratch);
        self.page_written(
            encoding,
            stats,
            offset,
            header_len + compressed_size,
            header_len + uncompressed,
        );
        Ok(())
    }

    /// Books a written page: its location, sizes, encoding and statistics.
    fn page_written(
        &mut self,
        encoding: Encoding,
        stats: PageStats,
        offset: usize,
        page_size: usize,
        uncompressed_page_size: usize,
    ) {
        self.locations.push(PageLocation {
            offset: offset as i64,
            compressed_page_size: page_size as i32,
            first_row_index: self.rows_written as i64,
        });
        self.uncompressed += uncompressed_page_size as i64;
        self.num_values += self.page_values as i64;
        match self.data_encodings.iter_mut().find(|(e, _)| *e == encoding) {
            Some((_, c)) => *c += 1,
            None => self.data_encodings.push((encoding, 1)),
        }
        let stats = if self.statistics_enabled {
            stats
        } else {
            PageStats {
                null_count: stats.null_count,
                min_max: None,
                unordered_values: true,
            }
        };
        self.stats.merge(self.order, &stats);
        self.column_index.add_page(&stats);
        self.rows_written += self.page_rows;
        self.page_rows = 0;
        self.page_values = 0;
        self.page_nulls = 0;
    }

    /// Bytes of the pages written in this chunk so far (parquet-java's `pageWriter.getMemSize`).
    pub fn pages_len(&self) -> usize {
        self.pages_len + self.current.len()
    }

    /// Makes room for `n` more bytes in the open segment, starting a new one when it is full.
    fn reserve_segment(&mut self, n: usize) {
        if self.current.capacity() - self.current.len() >= n {
            return;
        }
        let full = std::mem::replace(&mut self.current, crate::buffers::take(n.max(SEGMENT)));
        if !full.is_empty() {
            self.pages_len += full.len();
            self.pages.push(full);
        } else {
            crate::buffers::give(full);
        }
    }

    /// Ends the chunk; `dictionary` is the plain-encoded dictionary page body and its size.
    pub fn finish(&mut self, dictionary: Option<(&[u8], usize)>) -> Result<FinishedChunk> {
        let mut bytes = Vec::new();
        let mut dictionary_page_len = None;
        let mut uncompressed = 0i64;
        let mut encodings = Vec::new();
        let mut encoding_stats = Vec::new();
        let dictionary_encoding = if self.v1 {
            Encoding::PlainDictionary
        } else {
            Encoding::Plain
        };
        if let Some((body, entries)) = dictionary {
            if body.len() > MAX_PAGE_BYTES {
                return Err(self.too_large("the dictionary page", body.len()));
            }
            let mut compressed = Vec::new();
            let n = self.compressor.compress_into(body, &mut compressed)?;
            compressed.truncate(n);
            let crc = self.checksum.then(|| crc32fast::hash(&compressed));
            DictionaryPageHeader {
                uncompressed_size: body.len() as i32,
                compressed_size: compressed.len() as i32,
                crc,
                num_values: entries as i32,
                encoding: dictionary_encoding,
            }
            .write(&mut bytes);
            uncompressed += (bytes.len() + body.len()) as i64;
            bytes.extend_from_slice(&compressed);
            dictionary_page_len = Some(bytes.len());
            encodings.push(dictionary_encoding);
            encoding_stats.push((PAGE_DICTIONARY, dictionary_encoding, 1));
        }
        // v1 headers name the level encodings, which parquet-java lists with the chunk's.
        if self.v1 && !self.data_encodings.is_empty() {
            for max in [self.max_rep, self.max_def] {
                let e = if max > 0 {
                    Encoding::Rle
                } else {
                    Encoding::BitPacked
                };
                if !encodings.contains(&e) {
                    encodings.push(e);
                }
            }
        }
        let base = bytes.len() as i64;
        // Handed over without a copy (the segments go back to the pool once written).
        let mut data_pages = std::mem::take(&mut self.pages);
        if !self.current.is_empty() {
            data_pages.push(std::mem::take(&mut self.current));
        }
        self.pages_len = 0;
        let mut locations = std::mem::take(&mut self.locations);
        for l in &mut locations {
            l.offset += base;
        }
        let page_type = if self.v1 { PAGE_DATA } else { PAGE_DATA_V2 };
        for (e, c) in &self.data_encodings {
            let e = if self.v1 { v1_encoding(*e) } else { *e };
            if !encodings.contains(&e) {
                encodings.push(e);
            }
            encoding_stats.push((page_type, e, *c));
        }
        // As parquet-java: no bloom filter when every data page is dictionary-encoded (the
        // dictionary already answers membership).
        let all_dict = self
            .data_encodings
            .iter()
            .all(|(e, _)| *e == Encoding::RleDictionary);
        let bloom = self
            .bloom
            .take()
            .filter(|_| !all_dict)
            .map(|b| b.result().clone());
        self.bloom = self
            .bloom_opts
            .as_ref()
            .map(|(o, max)| BloomFilter::new(o, *max));
        let index = std::mem::replace(
            &mut self.column_index,
            ColumnIndexBuilder::new(self.order, self.truncation, self.truncate_len),
        );
        let chunk = FinishedChunk {
            dictionary_page: bytes,
            data_pages,
            dictionary_page_len,
            num_values: self.num_values,
            total_uncompressed_size: uncompressed + self.uncompressed,
            encodings,
            encoding_stats,
            stats: std::mem::take(&mut self.stats),
            geo: self.geo.as_mut().map(std::mem::take),
            column_index: index.build(),
            locations,
            bloom_filter: bloom,
        };
        self.rows_written = 0;
        self.uncompressed = 0;
        self.num_values = 0;
        self.data_encodings.clear();
        Ok(chunk)
    }
}

/// Dictionary ids are PLAIN_DICTIONARY in v1 pages.
fn v1_encoding(e: Encoding) -> Encoding {
    match e {
        Encoding::RleDictionary => Encoding::PlainDictionary,
        other => other,
    }
}

pub(crate) fn sort_order(field: &ColumnDescriptor) -> SortOrder {
    match field.physical {
        PhysicalType::Boolean => SortOrder::Boolean,
        PhysicalType::Int32 => SortOrder::Int32,
        PhysicalType::Int64 => SortOrder::Int64,
        PhysicalType::Float => SortOrder::Float,
        PhysicalType::Double => SortOrder::Double,
        PhysicalType::Int96 => SortOrder::Undefined,
        PhysicalType::ByteArray | PhysicalType::FixedLenByteArray(_) => {
            if field.is_decimal() {
                SortOrder::SignedBytes
            } else {
                SortOrder::Unsigned
            }
        }
    }
}

/// One-bit levels packed at a time.
const LEVEL_BITS: usize = 4096;

/// Levels as runs: nested levels repeat (a run of present values, a run of empty lists).
fn put_level_runs(enc: &mut RleEncoder, levels: &[i16], max: i16) {
    if max == 0 {
        return;
    }
    if max == 1 {
        // One-bit levels (the repetition levels of a list) alternate in short runs: packed
        // into a bitmap, each byte of 8 is a bit-packed group or the start of a run at once.
        let mut bitmap = [0u8; LEVEL_BITS / 8];
        for chunk in levels.chunks(LEVEL_BITS) {
            for (byte, eight) in bitmap.iter_mut().zip(chunk.chunks(8)) {
                *byte = eight
                    .iter()
                    .enumerate()
                    .fold(0, |b, (j, &l)| b | (((l != 0) as u8) << j));
            }
            enc.put_bits(&bitmap, 0, chunk.len());
        }
        return;
    }
    let mut i = 0;
    while i < levels.len() {
        let v = levels[i];
        let n = run_len(&levels[i..], v);
        enc.put_run(v as u32, n);
        i += n;
    }
}

/// How many of `levels` from the first equal `v`: 16 at a time (a test the compiler vectorizes)
/// while whole blocks do, which is most of the time for definition levels.
fn run_len(levels: &[i16], v: i16) -> usize {
    let mut blocks = levels.chunks_exact(16);
    let mut n = 0;
    for block in &mut blocks {
        if !block.iter().fold(true, |all, &l| all & (l == v)) {
            return n + block
                .iter()
                .position(|&l| l != v)
                .expect("a different level");
        }
        n += 16;
    }
    let rest = blocks.remainder();
    n + rest.iter().position(|&l| l != v).unwrap_or(rest.len())
}

/// Builds the chunk writer of a column.
pub(crate) fn new_chunk_writer(
    field: &ColumnDescriptor,
    opts: &WriterOptions,
) -> Result<Box<dyn ChunkWriter>> {
    let core = ChunkCore::new(field, opts)?;
    let dict = opts.dictionary_for(&field.name);
    let bss = opts.byte_stream_split_for(&field.name, field.physical);
    Ok(match field.physical {
        PhysicalType::Boolean => Box::new(BooleanWriter::new(core)),
        PhysicalType::Int32 => Box::new(FixedWidthWriter::<i32>::new(core, opts, dict, bss)),
        PhysicalType::Int64 => Box::new(FixedWidthWriter::<i64>::new(core, opts, dict, bss)),
        PhysicalType::Float => Box::new(FixedWidthWriter::<f32>::new(core, opts, dict, bss)),
        PhysicalType::Double => Box::new(FixedWidthWriter::<f64>::new(core, opts, dict, bss)),
        PhysicalType::ByteArray => Box::new(BinaryWriter::new(core, opts, dict, None, false)),
        PhysicalType::FixedLenByteArray(w) => {
            Box::new(BinaryWriter::new(core, opts, dict, Some(w), bss))
        }
        PhysicalType::Int96 => Box::new(BinaryWriter::new(core, opts, dict, Some(12), false)),
    })
}

#[cfg(test)]
mod tests {
    use super::{put_level_runs, run_len, LEVEL_BITS};
    use crate::encoding::rle::RleEncoder;

    #[test]
    fn level_runs_encode_as_value_by_value() {
        // Runs of every length around the bit-packed group size, over several bitmaps'
        // worth of levels, at width 1 (the bitmap path) and 2, split across calls.
        let mut seed = 7u64;
        for max in [1i16, 2] {
            for parquet_java_runs in [false, true] {
                let mut levels = Vec::new();
                while levels.len() < 3 * LEVEL_BITS + 77 {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let v = ((seed >> 40) % (max as u64 + 1)) as i16;
                    let n = 1 + ((seed >> 20) % 40) as usize;
                    levels.extend(std::iter::repeat_n(v, n));
                }
                let mut runs =
                    RleEncoder::new(1 + (max == 2) as u32).parquet_java_runs(parquet_java_runs);
                let mut each =
                    RleEncoder::new(1 + (max == 2) as u32).parquet_java_runs(parquet_java_runs);
                let cut = LEVEL_BITS + 5;
                put_level_runs(&mut runs, &levels[..cut], max);
                put_level_runs(&mut runs, &levels[cut..], max);
                levels.iter().for_each(|&l| each.put(l as u32));
                assert_eq!(runs.finish(), each.finish(), "max {max}");
            }
        }
    }

    #[test]
    fn runs_are_measured_across_and_within_blocks() {
        for len in [1, 15, 16, 17, 31, 32, 33, 40] {
            for run in 1..=len {
                let levels: Vec<i16> = (0..len).map(|i| if i < run { 2 } else { 1 }).collect();
                assert_eq!(run_len(&levels, 2), run, "run {run} of {len}");
            }
        }
        assert_eq!(run_len(&[], 0), 0);
    }
}
