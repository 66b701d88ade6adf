//! Dictionaries for RLE_DICTIONARY: value -> id maps in insertion order, open addressing.

use std::cell::RefCell;
use std::thread::LocalKey;

use crate::statistics::padded_be_word;

const EMPTY: u32 = u32::MAX;

#[inline]
fn mix(k: u64) -> u64 {
    // A multiply-xorshift finaliser: cheap and good enough for a power-of-two table.
    let k = (k ^ (k >> 32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    k ^ (k >> 29)
}

/// Key of a fixed-width dictionary: the value's bits, in its own width so that a 4-byte
/// column's slots are 8 bytes.
pub trait DictKey: Copy + Eq + Default + Send + 'static {
    fn hash(self) -> u64;
    /// The value as a signed integer (its bits for floats), for direct addressing.
    fn signed(self) -> i64;
    /// This thread's spare dictionary of this key type ([`FixedDict::reused`]).
    fn spare() -> &'static LocalKey<RefCell<Option<FixedDict<Self>>>>;
}

thread_local! {
    static SPARE_U32: RefCell<Option<FixedDict<u32>>> = const { RefCell::new(None) };
    static SPARE_U64: RefCell<Option<FixedDict<u64>>> = const { RefCell::new(None) };
}

impl DictKey for u32 {
    #[inline]
    fn hash(self) -> u64 {
        mix(self as u64)
    }
    #[inline]
    fn signed(self) -> i64 {
        self as i32 as i64
    }
    fn spare() -> &'static LocalKey<RefCell<Option<FixedDict<Self>>>> {
        &SPARE_U32
    }
}

impl DictKey for u64 {
    #[inline]
    fn hash(self) -> u64 {
        mix(self)
    }
    #[inline]
    fn signed(self) -> i64 {
        self as i64
    }
    fn spare() -> &'static LocalKey<RefCell<Option<FixedDict<Self>>>> {
        &SPARE_U64
    }
}

/// Direct addressing is used while the key range is at most this many slots, or 8 slots per
/// entry, whichever is larger: 32 bytes an entry, what the hash table costs just after it
/// doubled (16-32 bytes an entry). With 4 slots an entry, amounts such as TPC-DS `ss_ext_tax`
/// (61 K distinct in a 175 K range, but sparse while the first values arrive) stayed in the
/// hash table and cost a third more. A dictionary that left it for the hash table comes back
/// once its keys are dense enough.
const DIRECT_MIN_SLOTS: i128 = 1 << 12;
const DIRECT_SLOTS_PER_ENTRY: i128 = 8;

/// Slots first allocated for direct keys or the hash table, doubled as keys arrive: a
/// partitioned write keeps thousands of chunks open, most of them holding few values, and a
/// first allocation of `DIRECT_MIN_SLOTS` was 16 KiB a chunk before its second value.
const FIRST_SLOTS: usize = 256;

/// Hash-table slots from which the table grows fourfold, and up to which: each rebuild
/// re-inserts every key at a random slot of a table larger than the L1 cache, and a
/// dictionary of 20,000 distinct keys (a bucketed write's file) spent as long in rebuilds as
/// in inserts when doubling. Small tables (the thousands of chunks of a partitioned write)
/// and large ones (their size bounded by the dictionary page) still double.
const QUADRUPLE_FROM: usize = 1 << 12;
const QUADRUPLE_BELOW: usize = 1 << 16;

/// A spare dictionary is kept per thread and key width up to this size (4 MiB): the largest a first
/// page of 20,000 values builds is about 1.3 MiB (8-byte keys).
const MAX_SPARE_BYTES: usize = 4_194_304;

/// Keys of an expected count ([`FixedDict::expect`]) the hash table is first sized for, at
/// most: a table of 2,048 slots (16 or 32 KiB) stays in the L1 cache when few of them arrive.
const EXPECTED_KEYS_MAX: usize = 1 << 10;

#[inline]
fn growth(slots: usize) -> usize {
    if (QUADRUPLE_FROM..QUADRUPLE_BELOW).contains(&slots) {
        4
    } else {
        2
    }
}

/// Fixed-width values (INT32/INT64/FLOAT/DOUBLE), keyed by their bits.
///
/// While the keys span a small range (surrogate keys, dates, quantities, sequential ids) the
/// id of a key is at `slots[key - base]`: one load, no hashing, an array a fraction of a hash
/// table's size. Once the range outgrows that, the dictionary moves to an open-addressing hash
/// table whose slots hold the key next to its id, so a probe touches one cache line.
pub struct FixedDict<K: DictKey> {
    values: Vec<K>,
    direct: bool,
    base: i64,
    slots: Vec<u32>,
    /// Smallest and largest key stored (signed), valid when `values` is not empty.
    lo: i64,
    hi: i64,
    table: Vec<(K, u32)>,
    mask: usize,
    /// Keys expected at most ([`Self::expect`]), capped at [`EXPECTED_KEYS_MAX`].
    expected: usize,
}

impl<K: DictKey> Default for FixedDict<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: DictKey> FixedDict<K> {
    pub fn new() -> Self {
        FixedDict {
            values: Vec::new(),
            direct: true,
            base: 0,
            slots: Vec::new(),
            lo: 0,
            hi: 0,
            table: Vec::new(),
            mask: 0,
            expected: 0,
        }
    }

    /// Sizes the values and the hash table (once keys leave direct addressing) for up to
    /// `keys` distinct keys (a first page's value count, known at its cut) instead of growing
    /// them from [`FIRST_SLOTS`]: a partitioned write's file of 790 distinct values a column
    /// rebuilt its tables three times, a tenth of the time it spent encoding.
    pub fn expect(&mut self, keys: usize) {
        self.expected = keys.min(EXPECTED_KEYS_MAX);
        self.values.reserve(self.expected);
    }

    /// Hash-table slots for `keys` keys: at most half full, and room for the expected ones.
    fn table_slots(&self, keys: usize) -> usize {
        (keys * 2 + 2)
            .max(self.expected * 2)
            .next_power_of_two()
            .max(FIRST_SLOTS)
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Past the size where probes miss the cache (then [`Self::touch`] pays off).
    pub fn is_large(&self) -> bool {
        if self.direct {
            self.slots.len() > 1 << 16
        } else {
            self.values.len() > 4096
        }
    }

    /// Values in id order.
    pub fn values(&self) -> &[K] {
        &self.values
    }

    /// Bytes allocated for values, direct slots and hash table.
    pub fn capacity_bytes(&self) -> usize {
        use std::mem::size_of;
        self.values.capacity() * size_of::<K>()
            + self.slots.capacity() * size_of::<u32>()
            + self.table.capacity() * size_of::<(K, u32)>()
    }

    /// An empty dictionary with the memory of the last one this thread gave back
    /// ([`Self::give_back`]), else a new one. Files among many build their first pages'
    /// dictionaries one after another and give most of them up: each took and freed up to a
    /// megabyte of tables, which glibc often handed back to the kernel, to be faulted in again.
    pub fn reused() -> Self {
        K::spare()
            .with(|s| s.borrow_mut().take())
            .unwrap_or_default()
    }

    /// Empties the dictionary and keeps its memory as this thread's spare, unless the spare
    /// is larger or this is over [`MAX_SPARE_BYTES`].
    pub fn give_back(mut self) {
        let bytes = self.capacity_bytes();
        if bytes == 0 || bytes > MAX_SPARE_BYTES {
            return;
        }
        self.clear();
        K::spare().with(|s| {
            let mut s = s.borrow_mut();
            if s.as_ref().is_none_or(|o| o.capacity_bytes() < bytes) {
                *s = Some(self);
            }
        });
    }

    /// A reused dictionary that is kept holds far more memory than its keys need.
    pub fn oversized(&self) -> bool {
        // A dictionary built afresh holds at most about 4 slots of key and id per key.
        let fresh = 4 * self.len().max(64) * (std::mem::size_of::<K>() + 4);
        self.capacity_bytes() > 2 * fresh
    }

    /// The same keys and ids in a dictionary built afresh.
    pub fn compacted(&self) -> Self {
        let mut d = Self::new();
        for &k in &self.values {
            d.insert(k);
        }
        d
    }

    /// Empties the dictionary, keeping its memory for the next row group.
    pub fn clear(&mut self) {
        self.values.clear();
        self.expected = 0;
        self.direct = true;
        self.slots.clear();
        self.table.clear();
    }

    /// Loads the slots of `keys` so that the inserts that follow find them in cache: the loads
    /// are independent, so the CPU overlaps their misses (a large dictionary is miss-bound
    /// otherwise). Safe code, no prefetch intrinsics.
    #[inline]
    pub fn touch(&self, keys: impl Iterator<Item = K>) {
        let mut acc = 0u32;
        if self.direct {
            for k in keys {
                let off = k.signed().wrapping_sub(self.base) as u64 as usize;
                acc ^= self.slots.get(off).copied().unwrap_or(0);
            }
        } else {
            for k in keys {
                acc ^= self.table[k.hash() as usize & self.mask].1;
            }
        }
        std::hint::black_box(acc);
    }

    /// The id of `key` when the table is direct-addressed and holds it.
    #[inline(always)]
    pub fn get_direct(&self, key: K) -> Option<u32> {
        if !self.direct {
            return None;
        }
        let off = key.signed().wrapping_sub(self.base) as u64 as usize;
        match self.slots.get(off) {
            Some(&id) if id != EMPTY => Some(id),
            _ => None,
        }
    }

    /// Returns the id of `key` and whether it was inserted now.
    #[inline]
    pub fn insert(&mut self, key: K) -> (u32, bool) {
        if self.direct {
            let off = key.signed().wrapping_sub(self.base) as u64 as usize;
            if let Some(&id) = self.slots.get(off) {
                if id != EMPTY {
                    return (id, false);
                }
                let id = self.values.len() as u32;
                self.slots[off] = id;
                self.push(key);
                return (id, true);
            }
            self.widen(key);
            return self.insert(key);
        }
        let mut slot = key.hash() as usize & self.mask;
        loop {
            let (k, id) = self.table[slot];
            if id == EMPTY {
                let id = self.values.len() as u32;
                self.table[slot] = (key, id);
                self.push(key);
                if self.values.len() * 2 > self.table.len() {
                    if self.dense_enough() {
                        self.direct = true;
                        self.table.clear();
                        self.widen(key);
                    } else {
                        self.rebuild_table(self.table.len() * growth(self.table.len()));
                    }
                }
                return (id, true);
            }
            if k == key {
                return (id, false);
            }
            slot = (slot + 1) & self.mask;
        }
    }

    #[inline]
    fn push(&mut self, key: K) {
        let v = key.signed();
        if self.values.is_empty() {
            (self.lo, self.hi) = (v, v);
        } else {
            self.lo = self.lo.min(v);
            self.hi = self.hi.max(v);
        }
        self.values.push(key);
    }

    fn dense_enough(&self) -> bool {
        let range = self.hi as i128 - self.lo as i128 + 1;
        range <= DIRECT_MIN_SLOTS.max(DIRECT_SLOTS_PER_ENTRY * self.values.len() as i128)
    }

    /// `key` is outside the direct slots: cover it, or move to the hash table.
    #[cold]
    fn widen(&mut self, key: K) {
        let v = key.signed() as i128;
        let (lo, hi) = if self.values.is_empty() {
            (v, v)
        } else {
            ((self.lo as i128).min(v), (self.hi as i128).max(v))
        };
        let range = hi - lo + 1;
        let allowed =
            DIRECT_MIN_SLOTS.max(DIRECT_SLOTS_PER_ENTRY * (self.values.len() as i128 + 1));
        if range > allowed {
            self.direct = false;
            self.slots = Vec::new();
            self.rebuild_table(self.table_slots(self.values.len()));
            return;
        }
        // Grow by doubling, with the spare room split on both sides of the keys.
        let len = (range as usize)
            .next_power_of_two()
            .max(self.slots.len() * 2)
            .max(FIRST_SLOTS);
        let spare = len as i128 - range;
        self.base = (lo - spare / 2) as i64;
        refill(&mut self.slots, len, EMPTY);
        for (id, k) in self.values.iter().enumerate() {
            self.slots[k.signed().wrapping_sub(self.base) as usize] = id as u32;
        }
    }

    fn rebuild_table(&mut self, cap: usize) {
        refill(&mut self.table, cap, (K::default(), EMPTY));
        self.mask = cap - 1;
        for (id, &v) in self.values.iter().enumerate() {
            let mut slot = v.hash() as usize & self.mask;
            while self.table[slot].1 != EMPTY {
                slot = (slot + 1) & self.mask;
            }
            self.table[slot] = (v, id as u32);
        }
    }
}

/// Sets `v` to `len` copies of `fill`. A table that grows is allocated afresh: growing it in
/// place would have `realloc` copy the old slots, all about to be overwritten: 40% of the
/// rebuilds' samples in a bucketed write, whose task builds the tables of 64 files at once.
fn refill<T: Copy>(v: &mut Vec<T>, len: usize, fill: T) {
    if v.capacity() < len {
        *v = Vec::new();
        v.reserve_exact(len);
    }
    v.clear();
    v.resize(len, fill);
}

/// Byte-string values (BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY, INT96), stored back to back.
pub struct BytesDict {
    table: Vec<u32>,
    mask: usize,
    hashes: Vec<u64>,
    offsets: Vec<usize>,
    data: Vec<u8>,
    /// Values of up to 16 bytes seen lately, by their bytes, in front of the hash table: a hit
    /// costs two word compares instead of hashing the bytes, probing and comparing against the
    /// stored entry. Columns of short codes, states or names hit nearly always.
    short: Vec<ShortEntry>,
}

#[derive(Clone, Copy)]
struct ShortEntry {
    words: (u64, u64),
    len: u32,
    id: u32,
}

const SHORT_SLOTS: usize = 256;

/// Two words that, with the length, identify a value of up to 16 bytes: overlapping loads of
/// its first and last bytes cover every byte (as `padded_be_word` does).
#[inline(always)]
fn short_words(v: &[u8]) -> (u64, u64) {
    let n = v.len();
    let le8 = |b: &[u8]| u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
    let le4 = |b: &[u8]| u32::from_le_bytes(b[..4].try_into().expect("4 bytes")) as u64;
    if n >= 8 {
        (le8(v), le8(&v[n - 8..]))
    } else if n >= 4 {
        (le4(v) | (le4(&v[n - 4..]) << 32), 0)
    } else if n > 0 {
        (
            v[0] as u64 | (v[n / 2] as u64) << 8 | (v[n - 1] as u64) << 16,
            0,
        )
    } else {
        (0, 0)
    }
}

impl Default for BytesDict {
    fn default() -> Self {
        Self::new()
    }
}

impl BytesDict {
    pub fn new() -> Self {
        BytesDict {
            table: vec![EMPTY; 1024],
            mask: 1023,
            hashes: Vec::new(),
            offsets: vec![0],
            data: Vec::new(),
            short: vec![
                ShortEntry {
                    words: (0, 0),
                    len: 0,
                    id: EMPTY,
                };
                SHORT_SLOTS
            ],
        }
    }

    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    #[inline]
    pub fn get(&self, id: u32) -> &[u8] {
        &self.data[self.range(id)]
    }

    /// Where entry `id` lies in [`Self::data`].
    #[inline]
    pub fn range(&self, id: u32) -> std::ops::Range<usize> {
        self.offsets[id as usize]..self.offsets[id as usize + 1]
    }

    /// All entries' bytes, in id order.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    pub fn clear(&mut self) {
        *self = BytesDict::new();
    }

    /// Bytes allocated for the table, hashes, offsets, entries and recent short values.
    pub fn capacity_bytes(&self) -> usize {
        use std::mem::size_of;
        self.table.capacity() * size_of::<u32>()
            + self.hashes.capacity() * size_of::<u64>()
            + self.offsets.capacity() * size_of::<usize>()
            + self.data.capacity()
            + self.short.capacity() * size_of::<ShortEntry>()
    }

    #[inline]
    pub fn insert(&mut self, v: &[u8]) -> (u32, bool) {
        if v.len() > 16 {
            return self.insert_hashed(v);
        }
        let words = short_words(v);
        let slot =
            mix(words.0 ^ words.1.rotate_left(23) ^ v.len() as u64) as usize & (SHORT_SLOTS - 1);
        let e = self.short[slot];
        if e.id != EMPTY && e.words == words && e.len == v.len() as u32 {
            return (e.id, false);
        }
        let (id, new) = self.insert_hashed(v);
        self.short[slot] = ShortEntry {
            words,
            len: v.len() as u32,
            id,
        };
        (id, new)
    }

    fn insert_hashed(&mut self, v: &[u8]) -> (u32, bool) {
        let h = xxhash_rust::xxh3::xxh3_64(v);
        let mut slot = h as usize & self.mask;
        loop {
            let id = self.table[slot];
            if id == EMPTY {
                let id = self.hashes.len() as u32;
                self.table[slot] = id;
                self.hashes.push(h);
                self.data.extend_from_slice(v);
                self.offsets.push(self.data.len());
                if self.hashes.len() * 2 > self.table.len() {
                    self.grow();
                }
                return (id, true);
            }
            if self.hashes[id as usize] == h && bytes_equal(self.get(id), v) {
                return (id, false);
            }
            slot = (slot + 1) & self.mask;
        }
    }

    fn grow(&mut self) {
        let cap = self.table.len() * 2;
        self.table = vec![EMPTY; cap];
        self.mask = cap - 1;
        for (id, &h) in self.hashes.iter().enumerate() {
            let mut slot = h as usize & self.mask;
            while self.table[slot] != EMPTY {
                slot = (slot + 1) & self.mask;
            }
            self.table[slot] = id as u32;
        }
    }
}

/// Slice equality eight bytes at a time: a hit in a dictionary of short strings costs a few
/// loads instead of a `memcmp` call.
#[inline(always)]
fn bytes_equal(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (mut a, mut b) = (a, b);
    while a.len() > 8 {
        if a[..8] != b[..8] {
            return false;
        }
        (a, b) = (&a[8..], &b[8..]);
    }
    // The last 1-8 bytes as one zero-padded word each (same length, so padding is equal).
    padded_be_word(a) == padded_be_word(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_ids_in_insertion_order() {
        let mut d = FixedDict::<u64>::new();
        for i in 0..10_000u64 {
            assert_eq!(d.insert(i * 7919), (i as u32, true));
        }
        for i in 0..10_000u64 {
            assert_eq!(d.insert(i * 7919), (i as u32, false));
        }
        assert_eq!(d.values()[42], 42 * 7919);
    }

    #[test]
    fn direct_slots_grow_by_doubling() {
        let mut d = FixedDict::<u64>::new();
        d.insert(0);
        assert_eq!(d.slots.len(), FIRST_SLOTS);
        // 200 lies past the first slots (centred on 0) though the keys span only 201: the
        // slots double, so that keys arriving one by one past the end cost amortised O(1).
        d.insert(200);
        assert!(d.direct);
        assert_eq!(d.slots.len(), 2 * FIRST_SLOTS);
    }

    #[test]
    fn hash_table_grows_fourfold_between_4096_and_65536_slots() {
        let mut d = FixedDict::<u64>::new();
        let mut sizes = vec![];
        for i in 0..40_000u64 {
            d.insert(i * 7919);
            if sizes.last() != Some(&d.table.len()) {
                sizes.push(d.table.len());
            }
        }
        assert!(!d.direct);
        assert_eq!(sizes, [0, 256, 512, 1024, 2048, 4096, 16384, 65536, 131072]);
        assert_eq!(d.insert(39_999 * 7919), (39_999, false));
    }

    #[test]
    fn expected_keys_size_the_hash_table_once() {
        let mut d = FixedDict::<u64>::new();
        d.expect(790);
        let mut sizes = vec![];
        for i in 0..790u64 {
            assert_eq!(d.insert(i * 7919), (i as u32, true));
            if sizes.last() != Some(&d.table.len()) {
                sizes.push(d.table.len());
            }
        }
        assert!(!d.direct);
        assert_eq!(sizes, [0, 2048]);
        // Capped: a large expectation sizes the table for EXPECTED_KEYS_MAX keys, not more.
        d.clear();
        d.expect(1 << 20);
        d.insert(0);
        d.insert(1 << 40);
        assert_eq!(d.table.len(), 2 * EXPECTED_KEYS_MAX);
        // A cleared dictionary expects nothing.
        d.clear();
        d.insert(0);
        d.insert(1 << 40);
        assert_eq!(d.table.len(), FIRST_SLOTS);
    }

    #[test]
    fn refill_keeps_a_large_enough_allocation_and_replaces_a_small_one() {
        for extra in [0, 1] {
            let mut v: Vec<u32> = Vec::with_capacity(512 + extra);
            v.push(7);
            let at = v.as_ptr();
            refill(&mut v, 512, EMPTY);
            assert_eq!((v.as_ptr(), v.len()), (at, 512));
            assert!(v.iter().all(|&x| x == EMPTY));
        }
        // Grown afresh to the size asked for (growing in place would double 300 to 600).
        let mut v: Vec<u32> = Vec::with_capacity(300);
        v.resize(300, 1);
        refill(&mut v, 512, EMPTY);
        assert_eq!((v.len(), v.capacity()), (512, 512));
        assert!(v.iter().all(|&x| x == EMPTY));
    }

    #[test]
    fn capacity_bytes_counts_each_allocation_at_its_element_size() {
        let mut d = FixedDict::<u64>::new();
        assert_eq!(d.capacity_bytes(), 0);
        for i in 0..5000u64 {
            d.insert(i);
        }
        let direct = 8 * d.values.capacity() + 4 * d.slots.capacity();
        assert!(d.direct && d.table.capacity() == 0);
        assert_eq!(d.capacity_bytes(), direct);
        for i in 0..5000u64 {
            d.insert(i * 7919);
        }
        assert!(!d.direct);
        let hashed = 8 * d.values.capacity() + 4 * d.slots.capacity() + 16 * d.table.capacity();
        assert_eq!(d.capacity_bytes(), hashed);
        let mut b = BytesDict::new();
        for i in 0..3000 {
            b.insert(format!("a value longer than sixteen bytes {i}").as_bytes());
        }
        let want = 4 * b.table.capacity()
            + 8 * b.hashes.capacity()
            + 8 * b.offsets.capacity()
            + b.data.capacity()
            + 24 * b.short.capacity();
        assert_eq!(b.capacity_bytes(), want);
    }

    #[test]
    fn direct_and_hashed_keys_agree() {
        // Small range (direct), widening both ways, then a key far away (hash table).
        let mut d = FixedDict::<u32>::new();
        let mut keys: Vec<i32> = (0..5000).map(|i| 1000 - i * 3).collect();
        keys.extend((0..5000).map(|i| 100_000 + i));
        keys.push(i32::MIN);
        keys.push(i32::MAX);
        keys.extend((0..5000).map(|i| i * 7919));
        let mut expected: Vec<i32> = Vec::new();
        for &k in &keys {
            let (id, new) = d.insert(k as u32);
            match expected.iter().position(|&e| e == k) {
                Some(p) => assert_eq!((id, new), (p as u32, false), "key {k}"),
                None => {
                    assert_eq!((id, new), (expected.len() as u32, true), "key {k}");
                    expected.push(k);
                }
            }
        }
        assert!(!d.direct, "the wide range moved it to the hash table");
        let mut d = FixedDict::<u64>::new();
        for k in [i64::MIN, 5, i64::MAX, 5, i64::MIN] {
            d.insert(k as u64);
        }
        assert_eq!(d.len(), 3);
    }

    #[test]
    fn bytes_equal_matches_slice_equality() {
        let base: Vec<u8> = (1..=20).collect();
        for n in 0..=20 {
            for m in 0..=20 {
                assert_eq!(bytes_equal(&base[..n], &base[..m]), n == m);
            }
            for i in 0..n {
                let mut v = base[..n].to_vec();
                v[i] ^= 0x40;
                assert!(!bytes_equal(&base[..n], &v), "{n} {i}");
            }
        }
    }

    #[test]
    fn short_values_get_their_own_ids() {
        // Values of 0-17 bytes that differ in one byte, by length only, or by trailing zeros,
        // far more than the short-value slots, seen many times in shuffled order.
        let mut keys: Vec<Vec<u8>> = Vec::new();
        for len in 0..=17usize {
            for pos in 0..len.max(1) {
                for b in [0u8, 1, 0x80, 0xff] {
                    let mut v = vec![b'a'; len];
                    if len > 0 {
                        v[pos] = b;
                    }
                    keys.push(v);
                }
            }
        }
        keys.sort();
        keys.dedup();
        let mut d = BytesDict::new();
        let mut want = std::collections::HashMap::new();
        let mut x = 3u64;
        for _ in 0..20 * keys.len() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let k = &keys[(x % keys.len() as u64) as usize];
            let next = want.len() as u32;
            let expected = *want.entry(k.clone()).or_insert(next);
            assert_eq!(d.insert(k), (expected, expected == next), "{k:?}");
            assert_eq!(d.get(expected), &k[..]);
        }
        assert_eq!(d.len(), want.len());
    }

    #[test]
    fn bytes_ids_in_insertion_order() {
        let mut d = BytesDict::new();
        let keys: Vec<String> = (0..5000).map(|i| format!("k{i}")).collect();
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(d.insert(k.as_bytes()), (i as u32, true));
        }
        assert_eq!(d.insert(b"k17"), (17, false));
        assert_eq!(d.insert(b""), (5000, true));
        assert_eq!(d.get(5000), b"");
        assert_eq!(d.get(3), b"k3");
    }
}
