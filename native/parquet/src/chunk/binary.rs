//! Byte-string chunks: BYTE_ARRAY (strings, binary), FIXED_LEN_BYTE_ARRAY and INT96.
//! RLE_DICTIONARY first, then the fallback of [`super::fixed_binary::fallback_encoding`].

use super::fixed_binary::{fallback_encoding, fixed_value, Layout};
use super::{ChunkCore, ChunkWriter, FinishedChunk};
use crate::column::{bit, ColumnData, ColumnView};
use crate::encoding::byte_stream_split::ByteStreamSplitEncoder;
use crate::encoding::delta_byte_array::DeltaByteArrayEncoder;
use crate::encoding::dictionary::BytesDict;
use crate::encoding::rle::RleEncoder;
use crate::encoding::{bit_width, Encoding};
use crate::error::Result;
use crate::options::WriterOptions;
use crate::statistics::{BytesMinMax, PageStats, SortOrder};

// One per chunk writer: the size difference between variants does not matter.
#[allow(clippy::large_enum_variant)]
enum Fallback {
    Delta(DeltaByteArrayEncoder),
    Plain(Vec<u8>),
    Split(ByteStreamSplitEncoder),
}

pub(crate) struct BinaryWriter {
    core: ChunkCore,
    layout: Layout,
    fallback_encoding: Encoding,
    dictionary_enabled: bool,
    max_dictionary_bytes: usize,
    in_dictionary: bool,
    first_page: bool,
    dict: BytesDict,
    dict_bytes: usize,
    last_used_entries: usize,
    used_dictionary: bool,
    ids: Vec<u32>,
    raw_size: usize,
    fallback: Fallback,
    minmax: BytesMinMax,
    body: Vec<u8>,
}

impl BinaryWriter {
    pub fn new(
        core: ChunkCore,
        opts: &WriterOptions,
        dictionary: bool,
        width: Option<usize>,
        byte_stream_split: bool,
    ) -> Self {
        let layout = width.map_or(Layout::Variable, Layout::Fixed);
        let int96 = core.order == SortOrder::Undefined;
        let fallback_encoding = fallback_encoding(layout, int96, byte_stream_split);
        let fallback = match fallback_encoding {
            Encoding::Plain => Fallback::Plain(Vec::new()),
            Encoding::ByteStreamSplit => {
                Fallback::Split(ByteStreamSplitEncoder::new(width.unwrap_or(1)))
            }
            _ => Fallback::Delta(DeltaByteArrayEncoder::new()),
        };
        BinaryWriter {
            core,
            layout,
            fallback_encoding,
            dictionary_enabled: dictionary,
            max_dictionary_bytes: opts.dictionary_page_size,
            in_dictionary: dictionary,
            first_page: true,
            dict: BytesDict::new(),
            dict_bytes: 0,
            last_used_entries: 0,
            used_dictionary: false,
            ids: Vec::new(),
            raw_size: 0,
            fallback,
            minmax: BytesMinMax::default(),
            body: Vec::new(),
        }
    }

    fn put_fallback(fallback: &mut Fallback, v: &[u8]) {
        match fallback {
            Fallback::Delta(e) => e.put(v),
            Fallback::Plain(out) => out.extend_from_slice(v),
            Fallback::Split(e) => e.put(v),
        }
    }

    #[inline]
    fn put(&mut self, v: &[u8]) {
        self.raw_size += v.len() + 4;
        if self.core.order != SortOrder::Undefined {
            self.minmax.update(self.core.order, v);
        }
        if self.in_dictionary {
            let (id, new) = self.dict.insert(v);
            self.ids.push(id);
            if new {
                self.dict_bytes += self.layout.dictionary_entry_size(v.len());
                self.core.bloom_insert(v);
                if self.dict_bytes > self.max_dictionary_bytes {
                    self.fall_back();
                }
            }
        } else {
            self.core.bloom_insert(v);
            Self::put_fallback(&mut self.fallback, v);
        }
    }

    fn fall_back(&mut self) {
        self.in_dictionary = false;
        for &id in &self.ids {
            Self::put_fallback(&mut self.fallback, self.dict.get(id));
        }
        self.ids.clear();
        if self.last_used_entries == 0 {
            self.dict.clear();
            self.dict_bytes = 0;
        }
    }

    fn fallback_len(&self) -> usize {
        match &self.fallback {
            Fallback::Delta(e) => e.encoded_len(),
            Fallback::Plain(v) => v.len(),
            Fallback::Split(e) => e.encoded_len(),
        }
    }
}

impl ChunkWriter for BinaryWriter {
    fn write(&mut self, col: &ColumnView, start: usize, end: usize) -> Result<()> {
        self.core.put_levels(col.validity, start, end);
        match col.data {
            ColumnData::Binary { offsets, data } => {
                for i in start..end {
                    if col.validity.is_none_or(|v| bit(v, i)) {
                        self.put(&data[offsets[i] as usize..offsets[i + 1] as usize]);
                    }
                }
            }
            ColumnData::FixedBinary { width, data } => {
                for i in start..end {
                    if col.validity.is_none_or(|v| bit(v, i)) {
                        self.put(fixed_value(data, width, i));
                    }
                }
            }
            _ => unreachable!("validated before writing"),
        }
        Ok(())
    }

    fn flush_page(&mut self) -> Result<()> {
        let mut body = std::mem::take(&mut self.body);
        body.clear();
        let mut encoding = self.fallback_encoding;
        if self.in_dictionary {
            let max_id = self.dict.len() as i64 - 1;
            let width = if max_id < 0 {
                32
            } else {
                bit_width(max_id as u64)
            };
            body.push(width as u8);
            let mut rle = RleEncoder::new(width);
            for &id in &self.ids {
                rle.put(id);
            }
            body.extend_from_slice(&rle.finish());
            if self.first_page && body.len() + self.dict_bytes >= self.raw_size {
                body.clear();
                self.fall_back();
            } else {
                encoding = Encoding::RleDictionary;
                self.last_used_entries = self.dict.len();
                self.used_dictionary = true;
            }
        }
        if !self.in_dictionary {
            match &mut self.fallback {
                Fallback::Delta(e) => e.finish_into(&mut body),
                Fallback::Plain(v) => {
                    body.extend_from_slice(v);
                    v.clear();
                }
                Fallback::Split(e) => e.finish_into(&mut body),
            }
        }
        self.ids.clear();
        self.raw_size = 0;
        self.first_page = false;
        let stats = PageStats {
            null_count: self.core.page_nulls as u64,
            min_max: self.minmax.take(),
            unordered_values: false,
        };
        let r = self.core.write_data_page(encoding, &body, stats);
        self.body = body;
        r
    }

    fn finish(&mut self) -> Result<FinishedChunk> {
        if self.core.page_rows > 0 {
            self.flush_page()?;
        }
        let dictionary = self.used_dictionary.then(|| {
            let mut page = Vec::new();
            for id in 0..self.last_used_entries {
                self.layout.put_plain(&mut page, self.dict.get(id as u32));
            }
            page
        });
        let chunk = self
            .core
            .finish(dictionary.as_deref().map(|p| (p, self.last_used_entries)))?;
        self.dict.clear();
        self.dict_bytes = 0;
        self.last_used_entries = 0;
        self.used_dictionary = false;
        self.in_dictionary = self.dictionary_enabled;
        self.first_page = true;
        Ok(chunk)
    }

    fn page_buffered_size(&self) -> usize {
        let values = if self.dictionary_enabled {
            self.raw_size
        } else {
            self.fallback_len()
        };
        self.core.levels_buffered() + values
    }

    fn core(&self) -> &ChunkCore {
        &self.core
    }
}
