//! INT32 / INT64 / FLOAT / DOUBLE chunks (and everything Spark stores in them: bytes, shorts,
//! dates, timestamps, narrow decimals). RLE_DICTIONARY first; DELTA_BINARY_PACKED (integers in
//! v2) or PLAIN / BYTE_STREAM_SPLIT after a fallback or with the dictionary off.

use std::cell::RefCell;
use std::thread::LocalKey;

use super::dictionary_state::{self, DictionaryState};
use super::gather::{self, BLOCK};
use super::{ChunkCore, ChunkWriter, FinishedChunk};
use crate::column::{validity_word, ColumnData};
use crate::encoding::byte_stream_split::ByteStreamSplitEncoder;
use crate::encoding::delta_binary_packed::DeltaBinaryPackedEncoder;
use crate::encoding::dictionary::{DictKey, FixedDict};
use crate::encoding::Encoding;
use crate::error::Result;
use crate::options::WriterOptions;
use crate::statistics::{NumMinMax, PageStats};

/// The native value types of fixed-width columns.
pub(crate) trait Native: Copy + PartialOrd + Send + 'static {
    const WIDTH: usize;
    const INTEGER: bool;
    /// Dictionary key: the bits in the value's own width.
    type Key: DictKey;
    fn key(self) -> Self::Key;
    fn from_key(k: Self::Key) -> Self;
    fn to_bits(self) -> u64;
    fn to_i64(self) -> i64;
    fn is_nan(self) -> bool;
    /// Plain encoding of a statistics bound; floats write -0.0 as min and +0.0 as max of zero.
    fn stat_bytes(self, is_max: bool) -> Vec<u8>;
    fn slice<'a>(data: &ColumnData<'a>) -> &'a [Self];
    fn put_plain(self, out: &mut Vec<u8>);
    fn zero() -> Self;
    /// Min and max of a non-empty block of integers (vectorised); unused for floats.
    fn int_min_max(vals: &[Self]) -> (Self, Self);
    /// This thread's spare segments of first-page values (`FixedWidthWriter::pending`).
    fn segments() -> &'static LocalKey<RefCell<Vec<Vec<Self>>>>;
    /// The values of the set bits of `bits`, packed to the front of `out` (see `gather`).
    #[inline]
    fn gather(vals: &[Self], bits: u64, out: &mut [Self; BLOCK]) -> usize {
        gather::gather_scalar(vals, bits, out)
    }
}

macro_rules! int_native {
    ($t:ty, $variant:ident, $u:ty $(, $gather:path)?) => {
        impl Native for $t {
            const WIDTH: usize = std::mem::size_of::<$t>();
            const INTEGER: bool = true;
            type Key = $u;
            #[inline]
            fn key(self) -> $u {
                self as $u
            }
            #[inline]
            fn from_key(k: $u) -> Self {
                k as $t
            }
            #[inline]
            fn to_bits(self) -> u64 {
                self as $u as u64
            }
            #[inline]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline]
            fn is_nan(self) -> bool {
                false
            }
            fn stat_bytes(self, _: bool) -> Vec<u8> {
                self.to_le_bytes().to_vec()
            }
            fn slice<'a>(data: &ColumnData<'a>) -> &'a [Self] {
                match data {
                    ColumnData::$variant(v) => v,
                    _ => unreachable!("validated before writing"),
                }
            }
            #[inline]
            fn put_plain(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn zero() -> Self {
                0
            }
            fn segments() -> &'static LocalKey<RefCell<Vec<Vec<Self>>>> {
                thread_local! {
                    static SEGMENTS: RefCell<Vec<Vec<$t>>> = const { RefCell::new(Vec::new()) };
                }
                &SEGMENTS
            }
            #[inline]
            fn int_min_max(vals: &[Self]) -> (Self, Self) {
                let lo = vals.iter().fold(<$t>::MAX, |a, &b| a.min(b));
                let hi = vals.iter().fold(<$t>::MIN, |a, &b| a.max(b));
                (lo, hi)
            }
            $(
                #[inline]
                fn gather(vals: &[Self], bits: u64, out: &mut [Self; BLOCK]) -> usize {
                    $gather(vals, bits, out)
                }
            )?
        }
    };
}

macro_rules! float_native {
    ($t:ty, $variant:ident, $u:ty) => {
        impl Native for $t {
            const WIDTH: usize = std::mem::size_of::<$t>();
            const INTEGER: bool = false;
            type Key = $u;
            #[inline]
            fn key(self) -> $u {
                <$t>::to_bits(self)
            }
            #[inline]
            fn from_key(k: $u) -> Self {
                <$t>::from_bits(k)
            }
            #[inline]
            fn to_bits(self) -> u64 {
                <$t>::to_bits(self) as u64
            }
            #[inline]
            fn to_i64(self) -> i64 {
                <$t>::to_bits(self) as i64
            }
            #[inline]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            fn stat_bytes(self, is_max: bool) -> Vec<u8> {
                let v = if self == 0.0 {
                    if is_max {
                        0.0
                    } else {
                        -0.0
                    }
                } else {
                    self
                };
                v.to_le_bytes().to_vec()
            }
            fn slice<'a>(data: &ColumnData<'a>) -> &'a [Self] {
                match data {
                    ColumnData::$variant(v) => v,
                    _ => unreachable!("validated before writing"),
                }
            }
            #[inline]
            fn put_plain(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn zero() -> Self {
                0.0
            }
            fn segments() -> &'static LocalKey<RefCell<Vec<Vec<Self>>>> {
                thread_local! {
                    static SEGMENTS: RefCell<Vec<Vec<$t>>> = const { RefCell::new(Vec::new()) };
                }
                &SEGMENTS
            }
            fn int_min_max(_: &[Self]) -> (Self, Self) {
                unreachable!("floats skip NaN value by value")
            }
        }
    };
}

int_native!(i32, Int32, u32, gather::gather_i32);
int_native!(i64, Int64, u64);
float_native!(f32, Float, u32);
float_native!(f64, Double, u64);

/// Values of a segment of a first page's values, at most: 16 or 32 KiB, which malloc hands out
/// from its free lists. (One growing buffer reached the sizes malloc maps and unmaps afresh:
/// page faults on every file's columns.)
const SEGMENT: usize = 4096;

/// Spare segments kept per thread and value type (at most 2 MiB): a column's are given back
/// when its first page is cut, to be taken by the next column's.
const SPARE_SEGMENTS: usize = 64;

// One per chunk writer: the size difference between variants does not matter.
#[allow(clippy::large_enum_variant)]
enum Fallback {
    Delta(DeltaBinaryPackedEncoder),
    Plain(Vec<u8>),
    Split(ByteStreamSplitEncoder),
}

impl Fallback {
    fn encoding(&self) -> Encoding {
        match self {
            Fallback::Delta(_) => Encoding::DeltaBinaryPacked,
            Fallback::Plain(_) => Encoding::Plain,
            Fallback::Split(_) => Encoding::ByteStreamSplit,
        }
    }

    fn encoded_len(&self) -> usize {
        match self {
            Fallback::Delta(e) => e.encoded_len(),
            Fallback::Plain(v) => v.len(),
            Fallback::Split(e) => e.encoded_len(),
        }
    }

    fn finish_into(&mut self, out: &mut Vec<u8>) {
        match self {
            Fallback::Delta(e) => e.finish_into(out),
            Fallback::Plain(v) => {
                out.extend_from_slice(v);
                v.clear();
            }
            Fallback::Split(e) => e.finish_into(out),
        }
    }
}

pub(crate) struct FixedWidthWriter<T: Native> {
    core: ChunkCore,
    state: DictionaryState,
    dict: FixedDict<T::Key>,
    /// The last value inserted in the dictionary and its id (valid while the page has ids).
    last_key: T::Key,
    last_id: u32,
    fallback: Fallback,
    minmax: NumMinMax<T>,
    nan_seen: bool,
    /// The first page's values, put in the dictionary when the page is cut (`put_block`), in
    /// segments of up to `SEGMENT` values.
    pending: Vec<Vec<T>>,
}

impl<T: Native> FixedWidthWriter<T> {
    pub fn new(
        core: ChunkCore,
        opts: &WriterOptions,
        dictionary: bool,
        byte_stream_split: bool,
    ) -> Self {
        let fallback = if byte_stream_split {
            Fallback::Split(ByteStreamSplitEncoder::new(T::WIDTH))
        } else if T::INTEGER && !core.v1 && opts.delta_binary_packed {
            Fallback::Delta(if T::WIDTH == 4 {
                DeltaBinaryPackedEncoder::new_i32()
            } else {
                DeltaBinaryPackedEncoder::new_i64()
            })
        } else {
            Fallback::Plain(Vec::new())
        };
        FixedWidthWriter {
            core,
            state: DictionaryState::new(
                dictionary,
                opts.dictionary_page_size,
                opts.parquet_java_runs,
            ),
            dict: FixedDict::new(),
            last_key: Default::default(),
            last_id: 0,
            fallback,
            minmax: NumMinMax::new(T::zero()),
            nan_seen: false,
            pending: Vec::new(),
        }
    }

    #[inline]
    fn put_fallback(&mut self, v: T) {
        match &mut self.fallback {
            Fallback::Delta(e) => e.put(v.to_i64()),
            Fallback::Plain(out) => v.put_plain(out),
            Fallback::Split(e) => {
                let mut b = [0u8; 8];
                b[..T::WIDTH].copy_from_slice(&v.to_bits().to_le_bytes()[..T::WIDTH]);
                e.put(&b[..T::WIDTH]);
            }
        }
    }

    /// Appends the non-null values of up to one block.
    #[inline]
    fn put_block(&mut self, vals: &[T]) {
        if vals.is_empty() {
            return;
        }
        self.state.add_raw(T::WIDTH * vals.len());
        if T::INTEGER {
            let (lo, hi) = T::int_min_max(vals);
            self.minmax.update(lo);
            self.minmax.update(hi);
        } else {
            for &v in vals {
                if v.is_nan() {
                    self.nan_seen = true;
                } else {
                    self.minmax.update(v);
                }
            }
        }
        if self.state.active && self.state.first_page() {
            // The first page decides whether the chunk keeps its dictionary. Its values are
            // put in the dictionary when the page is cut, one column after another, instead of
            // a batch at a time: a bucketed task fills the first pages of 64 files at once,
            // whose hash tables (up to 512 KiB a column) then missed the cache on every insert.
            // The outcome is the same: the same values in the same order, and the page's size
            // checks count raw bytes, whatever the dictionary holds (`buffered_size`).
            let mut vals = vals;
            while !vals.is_empty() {
                if self.pending.last().is_none_or(|s| s.len() == s.capacity()) {
                    // Segments grow with the page, as a buffer would (a partitioned write's
                    // thousands of open files hold few values each).
                    let held: usize = self.pending.iter().map(Vec::len).sum();
                    let spare = (held >= SEGMENT)
                        .then(|| T::segments().with(|p| p.borrow_mut().pop()))
                        .flatten();
                    self.pending.push(
                        spare.unwrap_or_else(|| Vec::with_capacity(held.clamp(BLOCK, SEGMENT))),
                    );
                }
                let Some(segment) = self.pending.last_mut() else {
                    unreachable!("a segment was just pushed");
                };
                let n = (segment.capacity() - segment.len()).min(vals.len());
                segment.extend_from_slice(&vals[..n]);
                vals = &vals[n..];
            }
            return;
        }
        self.encode_block(vals);
    }

    /// Puts the first page's values in the dictionary, as `encode_block` would have one block
    /// at a time, and frees them.
    fn put_pending(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let pending = std::mem::take(&mut self.pending);
        self.state.first_page_complete();
        if self.core.release_abandoned_dictionary {
            // Most of these are given up at once (`fall_back`): built in the memory of the
            // last one given up on this thread.
            self.dict = FixedDict::reused();
            if self.state.ids.capacity() == 0 {
                self.state.ids = dictionary_state::reused_ids();
            }
        }
        let values = pending.iter().map(Vec::len).sum::<usize>();
        self.state.ids.reserve(values);
        self.dict.expect(values);
        for segment in &pending {
            for block in segment.chunks(BLOCK) {
                self.encode_block(block);
            }
        }
        T::segments().with(|p| {
            let mut p = p.borrow_mut();
            for mut segment in pending {
                if segment.capacity() == SEGMENT && p.len() < SPARE_SEGMENTS {
                    segment.clear();
                    p.push(segment);
                }
            }
        });
    }

    /// Dictionary-encodes a block of values, or encodes it with the fallback encoding.
    #[inline]
    fn encode_block(&mut self, vals: &[T]) {
        let mut rest = vals;
        if self.state.active {
            if self.dict.is_large() {
                // Large dictionaries are miss-bound: see FixedDict::touch.
                self.dict.touch(vals.iter().map(|v| v.key()));
            }
            let mut ids = [0u32; BLOCK];
            let mut n = 0;
            let mut overflow_at = None;
            // Sorted or clustered data repeats values back to back: those skip the lookup.
            let mut last = (!self.state.ids.is_empty()).then_some((self.last_key, self.last_id));
            // Asked once a block, not per new entry (a call each: 1% of a bucketed write).
            let bloom = self.core.bloom.is_some();
            for (i, &v) in vals.iter().enumerate() {
                let key = v.key();
                // Direct-addressed dictionaries answer a known key with one load.
                // (`last` may stay older: any key/id pair it holds remains true.)
                if let Some(id) = self.dict.get_direct(key) {
                    ids[n] = id;
                    n += 1;
                    continue;
                }
                if let Some((k, id)) = last {
                    if k == key {
                        ids[n] = id;
                        n += 1;
                        continue;
                    }
                }
                let (id, new) = self.dict.insert(key);
                last = Some((key, id));
                ids[n] = id;
                n += 1;
                if new {
                    if bloom {
                        self.core
                            .bloom_insert(&v.to_bits().to_le_bytes()[..T::WIDTH]);
                    }
                    if self.state.add_entry(T::WIDTH, self.dict.len()) {
                        overflow_at = Some(i);
                        break;
                    }
                }
            }
            self.state.ids.extend_from_slice(&ids[..n]);
            if let Some((k, id)) = last {
                (self.last_key, self.last_id) = (k, id);
            }
            match overflow_at {
                None => return,
                Some(i) => {
                    self.fall_back();
                    rest = &vals[i + 1..];
                }
            }
        }
        if self.core.bloom.is_some() {
            for &v in rest {
                self.core
                    .bloom_insert(&v.to_bits().to_le_bytes()[..T::WIDTH]);
            }
        }
        // One dispatch per block, not per value.
        match &mut self.fallback {
            Fallback::Delta(e) => e.put_all(rest.iter().map(|v| v.to_i64())),
            Fallback::Plain(out) => rest.iter().for_each(|v| v.put_plain(out)),
            Fallback::Split(_) => rest.iter().for_each(|&v| self.put_fallback(v)),
        }
    }

    /// Re-encodes the current page's values with the fallback encoding; earlier pages keep
    /// the dictionary (parquet-java's `fallBackAllValuesTo`).
    fn fall_back(&mut self) {
        let ids = std::mem::take(&mut self.state.ids);
        for &id in &ids {
            let v = T::from_key(self.dict.values()[id as usize]);
            self.put_fallback(v);
        }
        self.state.ids = ids;
        if self.state.fell_back() {
            if self.core.release_abandoned_dictionary {
                std::mem::take(&mut self.dict).give_back();
                dictionary_state::give_back_ids(std::mem::take(&mut self.state.ids));
            } else {
                self.dict.clear();
            }
        }
    }

    fn page_stats(&mut self) -> PageStats {
        let min_max = self.minmax.any.then(|| {
            (
                self.minmax.min.stat_bytes(false),
                self.minmax.max.stat_bytes(true),
            )
        });
        let stats = PageStats {
            null_count: self.core.page_nulls as u64,
            min_max,
            unordered_values: self.nan_seen,
        };
        self.minmax = NumMinMax::new(T::zero());
        self.nan_seen = false;
        stats
    }
}

impl<T: Native> ChunkWriter for FixedWidthWriter<T> {
    fn put_values(
        &mut self,
        data: &ColumnData,
        validity: Option<&[u8]>,
        start: usize,
        end: usize,
    ) -> Result<()> {
        let values = T::slice(data);
        match validity {
            None => {
                for block in values[start..end].chunks(BLOCK) {
                    self.put_block(block);
                }
            }
            Some(valid) => {
                let mut gathered = [T::zero(); BLOCK];
                let mut s = start;
                while s < end {
                    let e = (s + BLOCK).min(end);
                    let bits = validity_word(valid, s, e - s);
                    let k = T::gather(&values[s..e], bits, &mut gathered);
                    self.put_block(&gathered[..k]);
                    s = e;
                }
            }
        }
        Ok(())
    }

    fn flush_page(&mut self) -> Result<()> {
        let mut body = crate::buffers::scratch();
        body.clear();
        self.put_pending();
        let mut encoding = self.fallback.encoding();
        if self.state.active {
            if self.state.encode_page(self.dict.len(), &mut body) {
                encoding = Encoding::RleDictionary;
            } else {
                self.fall_back();
            }
        }
        if !self.state.active {
            self.fallback.finish_into(&mut body);
        }
        let first_page = self.state.first_page();
        self.state.end_page();
        if first_page
            && self.core.release_abandoned_dictionary
            && self.state.active
            && self.dict.oversized()
        {
            // Built in the thread's spare memory (`put_pending`) and kept for the pages to
            // come: in memory of its own size, the spare given back.
            let own = self.dict.compacted();
            std::mem::replace(&mut self.dict, own).give_back();
        }
        let stats = self.page_stats();
        let r = self.core.write_data_page(encoding, &body, stats);
        crate::buffers::return_scratch(body);
        r
    }

    fn finish(&mut self) -> Result<FinishedChunk> {
        if self.core.page_rows > 0 {
            self.flush_page()?;
        }
        let entries = self.state.dictionary_page_entries();
        let dictionary = entries.map(|n| {
            let mut page = Vec::with_capacity(n * T::WIDTH);
            for &k in &self.dict.values()[..n] {
                T::from_key(k).put_plain(&mut page);
            }
            (page, n)
        });
        let chunk = self
            .core
            .finish(dictionary.as_ref().map(|(p, n)| (p.as_slice(), *n)))?;
        if self.core.release_abandoned_dictionary {
            std::mem::take(&mut self.dict).give_back();
        } else {
            self.dict.clear();
        }
        self.state.reset_chunk();
        if let Fallback::Delta(e) = &mut self.fallback {
            e.reset_chunk();
        }
        Ok(chunk)
    }

    fn page_buffered_size(&self) -> usize {
        self.core.levels_buffered() + self.state.buffered_size(self.fallback.encoded_len())
    }

    fn core(&self) -> &ChunkCore {
        &self.core
    }

    fn core_mut(&mut self) -> &mut ChunkCore {
        &mut self.core
    }

    fn dictionary_bytes(&self) -> usize {
        self.dict.capacity_bytes()
            + 4 * self.state.ids.capacity()
            + T::WIDTH * self.pending.iter().map(Vec::capacity).sum::<usize>()
    }
}
