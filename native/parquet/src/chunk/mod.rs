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
use crate::column::ColumnView;
use crate::compression::Compressor;
use crate::encoding::rle::RleEncoder;
use crate::encoding::Encoding;
use crate::error::{Error, Result};
use crate::format::{DataPageV2Header, DictionaryPageHeader, PAGE_DATA_V2, PAGE_DICTIONARY};
use crate::options::WriterOptions;
use crate::page_index::{ColumnIndex, ColumnIndexBuilder, PageLocation, Truncation};
use crate::schema::{Field, LogicalType, PhysicalType};
use crate::statistics::{ChunkStats, PageStats, SortOrder};

/// What every chunk writer offers the file writer.
pub(crate) trait ChunkWriter: Send {
    /// Appends rows `start..end` of `col` (already validated) to the current page.
    fn write(&mut self, col: &ColumnView, start: usize, end: usize) -> Result<()>;
    /// Ends the current page (it holds at least one row).
    fn flush_page(&mut self) -> Result<()>;
    /// Ends the chunk: last page, dictionary page; resets for the next row group.
    fn finish(&mut self) -> Result<FinishedChunk>;
    /// parquet-java's `getCurrentPageBufferedSize`: levels plus the raw (or encoded) values.
    fn page_buffered_size(&self) -> usize;
    fn core(&self) -> &ChunkCore;
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
    pub column_index: Option<ColumnIndex>,
    pub locations: Vec<PageLocation>,
    pub bloom_filter: Option<Sbbf>,
}

pub(crate) struct ChunkCore {
    pub name: String,
    pub nullable: bool,
    pub order: SortOrder,
    statistics_enabled: bool,
    compressor: Compressor,
    checksum: bool,
    truncation: Truncation,
    truncate_len: usize,
    // current page
    pub levels: RleEncoder,
    pub page_rows: usize,
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
    bloom_opts: Option<(crate::options::BloomFilterOptions, usize)>,
    scratch: Vec<u8>,
    /// Values given in pieces, joined for the compressor.
    joined: Vec<u8>,
    /// The last page's definition levels: the buffer the level encoder swaps its bytes into.
    levels_bytes: Vec<u8>,
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
    pub fn new(field: &Field, opts: &WriterOptions) -> Result<Self> {
        let order = sort_order(field);
        let truncation = match (field.physical, field.logical) {
            (PhysicalType::ByteArray, Some(LogicalType::String)) => Truncation::Utf8,
            (PhysicalType::ByteArray, None) | (PhysicalType::FixedLenByteArray(_), None) => {
                Truncation::Bytes
            }
            _ => Truncation::None,
        };
        let bloom_opts = match field.physical {
            PhysicalType::Boolean => None,
            _ => opts
                .bloom_filters
                .get(&field.name)
                .map(|b| (b.clone(), opts.bloom_filter_max_bytes)),
        };
        Ok(ChunkCore {
            name: field.name.clone(),
            nullable: field.nullable,
            order,
            statistics_enabled: opts.statistics_enabled,
            compressor: Compressor::new(opts.codec)?,
            checksum: opts.page_checksum,
            truncation,
            truncate_len: opts.column_index_truncate_length,
            levels: RleEncoder::new(1).parquet_java_runs(opts.parquet_java_runs),
            page_rows: 0,
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
            scratch: Vec::new(),
            joined: Vec::new(),
            levels_bytes: Vec::new(),
        })
    }

    /// Definition levels (and the page's row and null counts) for rows `start..end`.
    #[inline]
    pub fn put_levels(&mut self, validity: Option<&[u8]>, start: usize, end: usize) {
        let n = end - start;
        self.page_rows += n;
        if !self.nullable {
            return;
        }
        match validity {
            None => self.levels.put_run(1, n),
            Some(v) => {
                let valid = crate::column::count_set_bits(v, start, end);
                if valid == n {
                    self.levels.put_run(1, n);
                } else if valid == 0 {
                    self.levels.put_run(0, n);
                    self.page_nulls += n;
                } else {
                    self.levels.put_bits(v, start, end);
                    self.page_nulls += n - valid;
                }
            }
        }
    }

    pub fn levels_buffered(&self) -> usize {
        if self.nullable {
            self.levels.encoded_len()
        } else {
            0
        }
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
        let mut levels = std::mem::take(&mut self.levels_bytes);
        levels.clear();
        if self.nullable {
            self.levels.finish_swap(&mut levels);
        }
        let values_len: usize = values.iter().map(|v| v.len()).sum();
        let uncompressed = levels.len() + values_len;
        if uncompressed > MAX_PAGE_BYTES {
            return Err(self.too_large("a page", uncompressed));
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut joined = std::mem::take(&mut self.joined);
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
        let compressed_size = levels.len() + compressed_len;
        if compressed_size > MAX_PAGE_BYTES {
            return Err(self.too_large("a compressed page", compressed_size));
        }
        let crc = self.checksum.then(|| {
            let mut h = crc32fast::Hasher::new();
            h.update(&levels);
            compressed.iter().for_each(|v| h.update(v));
            h.finalize()
        });
        let header = DataPageV2Header {
            uncompressed_size: uncompressed as i32,
            compressed_size: compressed_size as i32,
            crc,
            num_values: self.page_rows as i32,
            num_nulls: self.page_nulls as i32,
            num_rows: self.page_rows as i32,
            encoding,
            def_levels_len: levels.len() as i32,
            rep_levels_len: 0,
            is_compressed,
        };
        // The header is a few dozen bytes (no page statistics); 256 covers it.
        self.reserve_segment(256 + levels.len() + compressed_len);
        let offset = self.pages_len();
        let start = self.current.len();
        header.write(&mut self.current);
        let header_len = self.current.len() - start;
        self.current.extend_from_slice(&levels);
        compressed
            .iter()
            .for_each(|v| self.current.extend_from_slice(v));
        self.scratch = scratch;
        self.joined = joined;
        self.levels_bytes = levels;
        self.locations.push(PageLocation {
            offset: offset as i64,
            compressed_page_size: (header_len + compressed_size) as i32,
            first_row_index: self.rows_written as i64,
        });
        self.uncompressed += (header_len + uncompressed) as i64;
        self.num_values += self.page_rows as i64;
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
        self.page_nulls = 0;
        Ok(())
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
            }
            .write(&mut bytes);
            uncompressed += (bytes.len() + body.len()) as i64;
            bytes.extend_from_slice(&compressed);
            dictionary_page_len = Some(bytes.len());
            encodings.push(Encoding::Plain);
            encoding_stats.push((PAGE_DICTIONARY, Encoding::Plain, 1));
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
        for (e, c) in &self.data_encodings {
            if !encodings.contains(e) {
                encodings.push(*e);
            }
            encoding_stats.push((PAGE_DATA_V2, *e, *c));
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

pub(crate) fn sort_order(field: &Field) -> SortOrder {
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

/// Builds the chunk writer of a field.
pub(crate) fn new_chunk_writer(
    field: &Field,
    opts: &WriterOptions,
) -> Result<Box<dyn ChunkWriter>> {
    let core = ChunkCore::new(field, opts)?;
    let dict = opts.dictionary_for(&field.name);
    let bss = opts
        .byte_stream_split_columns
        .iter()
        .any(|c| c == &field.name);
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
