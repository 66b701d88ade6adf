//! The dictionary-or-fallback bookkeeping of one column chunk (parquet-java's
//! `FallbackValuesWriter` around a `DictionaryValuesWriter`), shared by the fixed-width and
//! byte-string chunk writers; they own the dictionary table and the fallback encoder.

use std::cell::RefCell;

use crate::encoding::bit_width;
use crate::encoding::rle::RleEncoder;

thread_local! {
    /// The ids of the last first page given up on this thread ([`give_back_ids`]).
    static SPARE_IDS: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

/// An empty ids buffer, with the memory of the last one this thread gave back.
pub(crate) fn reused_ids() -> Vec<u32> {
    SPARE_IDS.with(|s| std::mem::take(&mut *s.borrow_mut()))
}

/// Keeps an ids buffer as the thread's spare, unless the spare is larger.
pub(crate) fn give_back_ids(mut ids: Vec<u32>) {
    ids.clear();
    SPARE_IDS.with(|s| {
        let mut s = s.borrow_mut();
        if s.capacity() < ids.capacity() {
            *s = ids;
        }
    });
}

pub(crate) struct DictionaryState {
    enabled: bool,
    max_bytes: usize,
    /// Values go to the dictionary (true) or to the fallback encoder.
    pub active: bool,
    first_page: bool,
    /// parquet-java's `dictionaryByteSize`.
    bytes: usize,
    /// Dictionary entries referenced by pages already written.
    last_used_entries: usize,
    used: bool,
    /// Dictionary ids of the current page.
    pub ids: Vec<u32>,
    /// Plain size of the current page's values (parquet-java's `rawDataByteSize`).
    raw_size: usize,
    /// Set while a first page whose values are all known is put in the dictionary
    /// ([`Self::first_page_complete`]).
    complete: bool,
    /// Kept from page to page for its buffer.
    id_encoder: RleEncoder,
}

impl DictionaryState {
    pub fn new(enabled: bool, max_bytes: usize, parquet_java_runs: bool) -> Self {
        DictionaryState {
            enabled,
            max_bytes,
            active: enabled,
            first_page: true,
            bytes: 0,
            last_used_entries: 0,
            used: false,
            ids: Vec::new(),
            raw_size: 0,
            complete: false,
            id_encoder: RleEncoder::new(1).parquet_java_runs(parquet_java_runs),
        }
    }

    /// The chunk's first page is being filled: its outcome decides the dictionary's.
    #[inline]
    pub fn first_page(&self) -> bool {
        self.first_page
    }

    #[inline]
    pub fn add_raw(&mut self, bytes: usize) {
        self.raw_size += bytes;
    }

    /// The first page's values are all counted (`add_raw`) and about to be put in the
    /// dictionary: from now on the page's plain size is final, and [`Self::add_entry`] gives
    /// the dictionary up as soon as it cannot win.
    pub fn first_page_complete(&mut self) {
        self.complete = self.first_page;
    }

    /// Accounts a new dictionary entry, the dictionary now holding `entries`; true when the
    /// writer must fall back now: the dictionary outgrew its page size, or it can no longer
    /// beat a complete first page's plain size.
    #[inline]
    pub fn add_entry(&mut self, bytes: usize, entries: usize) -> bool {
        self.bytes += bytes;
        self.bytes > self.max_bytes || (self.complete && self.cannot_win(entries))
    }

    /// The first page's test (`encode_page`) is sure to fail. Each of the `entries` distinct
    /// ids takes at least its bit width in the page, packed or as a run's value, and the width
    /// only grows with the dictionary, as do its bytes: so once the width byte, `entries`
    /// ids at the current width and the dictionary reach the plain size, the page with all its
    /// ids does too. The outcome is the page's test, decided early: parquet-java's, not an
    /// estimate. (A 20,000-value INT32 page of distinct values gives up at 13,913 entries.)
    #[inline]
    fn cannot_win(&self, entries: usize) -> bool {
        let id_bits = entries as u64 * u64::from(bit_width(entries as u64 - 1));
        1 + id_bits.div_ceil(8) as usize + self.bytes >= self.raw_size
    }

    /// The writer re-encoded `ids` with its fallback encoding; true when no written page used
    /// the dictionary, so its entries must be dropped.
    pub fn fell_back(&mut self) -> bool {
        self.active = false;
        self.ids.clear();
        let unused = self.last_used_entries == 0;
        if unused {
            self.bytes = 0;
        }
        unused
    }

    /// Appends the page's ids (bit width, then RLE) to `body`. False on a first page that is not
    /// smaller than its plain size with the dictionary: the writer must fall back.
    pub fn encode_page(&mut self, dictionary_len: usize, body: &mut Vec<u8>) -> bool {
        // parquet-java's getWidthFromMaxInt(-1) is 32 for an empty dictionary.
        let width = if dictionary_len == 0 {
            32
        } else {
            bit_width(dictionary_len as u64 - 1)
        };
        let start = body.len();
        body.push(width as u8);
        self.id_encoder.restart_after(width, body);
        self.id_encoder.put_all(&self.ids);
        self.id_encoder.finish_swap(body);
        if self.first_page && body.len() - start + self.bytes >= self.raw_size {
            body.truncate(start);
            return false;
        }
        self.last_used_entries = dictionary_len;
        self.used = true;
        true
    }

    pub fn end_page(&mut self) {
        self.ids.clear();
        self.raw_size = 0;
        self.first_page = false;
        self.complete = false;
    }

    /// Entries of the dictionary page, when any written page used the dictionary.
    pub fn dictionary_page_entries(&self) -> Option<usize> {
        self.used.then_some(self.last_used_entries)
    }

    /// Starts the next row group's chunk.
    pub fn reset_chunk(&mut self) {
        let (ids, id_encoder) = (
            std::mem::take(&mut self.ids),
            std::mem::replace(&mut self.id_encoder, RleEncoder::new(1)),
        );
        // The kept id encoder keeps its run rule; the new state's own encoder is dropped.
        *self = DictionaryState {
            ids,
            id_encoder,
            ..DictionaryState::new(self.enabled, self.max_bytes, false)
        };
    }

    /// parquet-java's page buffered size of the values: raw size behind a dictionary writer,
    /// the encoder's own size when the dictionary is off.
    pub fn buffered_size(&self, fallback_encoded_len: usize) -> usize {
        if self.enabled {
            self.raw_size
        } else {
            fallback_encoded_len
        }
    }
}
