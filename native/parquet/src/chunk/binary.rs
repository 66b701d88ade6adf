//! Byte-string chunks: BYTE_ARRAY (strings, binary), FIXED_LEN_BYTE_ARRAY and INT96.
//! RLE_DICTIONARY first, then the fallback of [`super::fixed_binary::fallback_encoding`].

use super::dictionary_state::DictionaryState;
use super::fixed_binary::{dictionary_allowed, fallback_encoding, fixed_value, Layout};
use super::{ChunkCore, ChunkWriter, FinishedChunk};
use crate::column::{bit, ColumnData};
use crate::encoding::byte_stream_split::ByteStreamSplitEncoder;
use crate::encoding::delta_byte_array::DeltaByteArrayEncoder;
use crate::encoding::dictionary::BytesDict;
use crate::encoding::Encoding;
use crate::error::Result;
use crate::options::WriterOptions;
use crate::statistics::{BytesMinMax, PageStats, SortOrder};
use std::ops::Range;

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
    state: DictionaryState,
    dict: BytesDict,
    fallback: Fallback,
    minmax: BytesMinMax,
    /// Dictionary ids in the current page (bitset and list), for its min/max.
    page_seen: Vec<u64>,
    page_ids: Vec<u32>,
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
        let v1 = core.v1;
        let fallback_encoding = fallback_encoding(layout, int96, byte_stream_split, v1);
        let dictionary = dictionary && dictionary_allowed(layout, int96, v1);
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
            state: DictionaryState::new(
                dictionary,
                opts.dictionary_page_size,
                opts.parquet_java_runs,
            ),
            dict: BytesDict::new(),
            fallback,
            minmax: BytesMinMax::default(),
            page_seen: Vec::new(),
            page_ids: Vec::new(),
        }
    }

    fn put_fallback(fallback: &mut Fallback, layout: Layout, v: &[u8]) {
        match fallback {
            Fallback::Delta(e) => e.put(v),
            Fallback::Plain(out) => layout.put_plain(out, v),
            Fallback::Split(e) => e.put(v),
        }
    }

    #[inline]
    fn put(&mut self, v: &[u8]) {
        self.state.add_raw(v.len() + 4);
        let ordered = self.core.order != SortOrder::Undefined;
        if self.state.active {
            let (id, new) = self.dict.insert(v);
            self.state.ids.push(id);
            if ordered {
                self.mark_seen(id);
            }
            if new {
                self.core.bloom_insert(v);
                if self
                    .state
                    .add_entry(self.layout.dictionary_entry_size(v.len()), self.dict.len())
                {
                    self.fall_back();
                }
            }
        } else {
            if ordered {
                self.minmax.update(self.core.order, v);
            }
            self.core.bloom_insert(v);
            Self::put_fallback(&mut self.fallback, self.layout, v);
        }
    }

    /// [`Self::put`] for the values `data[r]` that all go to the fallback encoding:
    /// DELTA_BYTE_ARRAY codes each against the previous one in `data`, so values are not copied
    /// one by one.
    fn put_fallback_run(&mut self, data: &[u8], ranges: impl Iterator<Item = Range<usize>>) {
        let Fallback::Delta(enc) = &mut self.fallback else {
            for r in ranges {
                self.put(&data[r]);
            }
            return;
        };
        let ordered = self.core.order != SortOrder::Undefined;
        let (core, minmax) = (&mut self.core, &mut self.minmax);
        let mut raw = 0;
        enc.put_run(
            data,
            ranges.inspect(|r| {
                let v = &data[r.clone()];
                raw += v.len() + 4;
                if ordered {
                    minmax.update(core.order, v);
                }
                core.bloom_insert(v);
            }),
        );
        self.state.add_raw(raw);
    }

    /// Remembers that the page holds dictionary entry `id`: a bit test instead of comparing
    /// every value with the page's min and max.
    #[inline]
    fn mark_seen(&mut self, id: u32) {
        let (word, bit) = (id as usize / 64, 1u64 << (id % 64));
        if word >= self.page_seen.len() {
            self.page_seen.resize(word + 1, 0);
        }
        if self.page_seen[word] & bit == 0 {
            self.page_seen[word] |= bit;
            self.page_ids.push(id);
        }
    }

    /// Folds the page's distinct dictionary entries into its min/max.
    fn fold_seen(&mut self) {
        for &id in &self.page_ids {
            self.minmax.update(self.core.order, self.dict.get(id));
            self.page_seen[id as usize / 64] = 0;
        }
        self.page_ids.clear();
    }

    fn fall_back(&mut self) {
        self.fold_seen();
        match &mut self.fallback {
            // Prefix-coded against the previous dictionary entry in place, without copies.
            Fallback::Delta(enc) => enc.put_run(
                self.dict.data(),
                self.state.ids.iter().map(|&id| self.dict.range(id)),
            ),
            other => {
                for &id in &self.state.ids {
                    Self::put_fallback(other, self.layout, self.dict.get(id));
                }
            }
        }
        if self.state.fell_back() {
            self.dict.clear();
            if self.core.release_abandoned_dictionary {
                self.state.ids = Vec::new();
            }
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
    fn put_values(
        &mut self,
        data: &ColumnData,
        validity: Option<&[u8]>,
        start: usize,
        end: usize,
    ) -> Result<()> {
        if let (Some(geo), ColumnData::Binary { offsets, data }) = (&mut self.core.geo, data) {
            for i in start..end {
                if validity.is_none_or(|v| bit(v, i)) {
                    geo.update(&data[offsets[i] as usize..offsets[i + 1] as usize]);
                }
            }
        }
        match *data {
            ColumnData::Binary { offsets, data } if !self.state.active => {
                self.put_fallback_run(
                    data,
                    (start..end)
                        .filter(|&i| validity.is_none_or(|v| bit(v, i)))
                        .map(|i| offsets[i] as usize..offsets[i + 1] as usize),
                );
            }
            ColumnData::Binary { offsets, data } => {
                for i in start..end {
                    if validity.is_none_or(|v| bit(v, i)) {
                        self.put(&data[offsets[i] as usize..offsets[i + 1] as usize]);
                    }
                }
            }
            ColumnData::FixedBinary { width, data } => {
                for i in start..end {
                    if validity.is_none_or(|v| bit(v, i)) {
                        self.put(fixed_value(data, width, i));
                    }
                }
            }
            _ => unreachable!("validated before writing"),
        }
        Ok(())
    }

    fn flush_page(&mut self) -> Result<()> {
        let mut body = crate::buffers::scratch();
        body.clear();
        let mut encoding = self.fallback_encoding;
        if self.state.active {
            if self.state.encode_page(self.dict.len(), &mut body) {
                encoding = Encoding::RleDictionary;
            } else {
                self.fall_back();
            }
        }
        self.state.end_page();
        self.fold_seen();
        let stats = PageStats {
            null_count: self.core.page_nulls as u64,
            min_max: self.minmax.take(),
            unordered_values: false,
        };
        // The fallback's bytes go to the page as they lie (PLAIN values, DELTA_BYTE_ARRAY
        // suffixes): one copy instead of two for an uncompressed page.
        let r = match (&mut self.fallback, self.state.active) {
            (_, true) => self.core.write_data_page(encoding, &body, stats),
            (Fallback::Delta(e), false) => {
                let suffixes = e.finish_lengths_into(&mut body);
                let r = self
                    .core
                    .write_data_page_parts(encoding, &[&body, suffixes], stats);
                e.clear();
                r
            }
            (Fallback::Plain(v), false) => {
                let r = self.core.write_data_page(encoding, v, stats);
                v.clear();
                r
            }
            (Fallback::Split(e), false) => {
                e.finish_into(&mut body);
                self.core.write_data_page(encoding, &body, stats)
            }
        };
        crate::buffers::return_scratch(body);
        r
    }

    fn finish(&mut self) -> Result<FinishedChunk> {
        if self.core.page_rows > 0 {
            self.flush_page()?;
        }
        let dictionary = self.state.dictionary_page_entries().map(|n| {
            let mut page = Vec::new();
            for id in 0..n {
                self.layout.put_plain(&mut page, self.dict.get(id as u32));
            }
            (page, n)
        });
        let chunk = self
            .core
            .finish(dictionary.as_ref().map(|(p, n)| (p.as_slice(), *n)))?;
        self.dict.clear();
        self.state.reset_chunk();
        if let Fallback::Delta(e) = &mut self.fallback {
            e.reset_chunk();
        }
        Ok(chunk)
    }

    fn page_buffered_size(&self) -> usize {
        self.core.levels_buffered() + self.state.buffered_size(self.fallback_len())
    }

    fn core(&self) -> &ChunkCore {
        &self.core
    }

    fn core_mut(&mut self) -> &mut ChunkCore {
        &mut self.core
    }

    fn dictionary_bytes(&self) -> usize {
        self.dict.capacity_bytes() + 4 * self.state.ids.capacity()
    }
}
