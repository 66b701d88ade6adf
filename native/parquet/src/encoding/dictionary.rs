//! Dictionaries for RLE_DICTIONARY: value -> id maps in insertion order, open addressing.

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
}

impl DictKey for u32 {
    #[inline]
    fn hash(self) -> u64 {
        mix(self as u64)
    }
}

impl DictKey for u64 {
    #[inline]
    fn hash(self) -> u64 {
        mix(self)
    }
}

/// Fixed-width values (INT32/INT64/FLOAT/DOUBLE), keyed by their bits. Slots hold the key next
/// to its id, so a probe touches one cache line, not the slot and then the value.
pub struct FixedDict<K: DictKey> {
    table: Vec<(K, u32)>,
    mask: usize,
    values: Vec<K>,
}

impl<K: DictKey> Default for FixedDict<K> {
    fn default() -> Self {
        Self::new()
    }
}

const INITIAL_SLOTS: usize = 1024;

impl<K: DictKey> FixedDict<K> {
    pub fn new() -> Self {
        FixedDict {
            table: vec![(K::default(), EMPTY); INITIAL_SLOTS],
            mask: INITIAL_SLOTS - 1,
            values: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Values in id order.
    pub fn values(&self) -> &[K] {
        &self.values
    }

    /// Empties the dictionary, keeping the table's memory for the next row group.
    pub fn clear(&mut self) {
        self.values.clear();
        self.table.fill((K::default(), EMPTY));
    }

    /// Loads the table slots of `keys` so that the inserts that follow find them in cache: the
    /// loads are independent, so the CPU overlaps their misses (a large dictionary is
    /// miss-bound otherwise). Safe code, no prefetch intrinsics.
    #[inline]
    pub fn touch(&self, keys: impl Iterator<Item = K>) {
        let mut acc = 0u32;
        for k in keys {
            acc ^= self.table[k.hash() as usize & self.mask].1;
        }
        std::hint::black_box(acc);
    }

    /// Returns the id of `key` and whether it was inserted now.
    #[inline]
    pub fn insert(&mut self, key: K) -> (u32, bool) {
        let mut slot = key.hash() as usize & self.mask;
        loop {
            let (k, id) = self.table[slot];
            if id == EMPTY {
                let id = self.values.len() as u32;
                self.table[slot] = (key, id);
                self.values.push(key);
                if self.values.len() * 2 > self.table.len() {
                    self.grow();
                }
                return (id, true);
            }
            if k == key {
                return (id, false);
            }
            slot = (slot + 1) & self.mask;
        }
    }

    fn grow(&mut self) {
        let cap = self.table.len() * 2;
        self.table = vec![(K::default(), EMPTY); cap];
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

/// Byte-string values (BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY, INT96), stored back to back.
pub struct BytesDict {
    table: Vec<u32>,
    mask: usize,
    hashes: Vec<u64>,
    offsets: Vec<usize>,
    data: Vec<u8>,
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
        &self.data[self.offsets[id as usize]..self.offsets[id as usize + 1]]
    }

    pub fn clear(&mut self) {
        *self = BytesDict::new();
    }

    #[inline]
    pub fn insert(&mut self, v: &[u8]) -> (u32, bool) {
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
            if self.hashes[id as usize] == h && self.get(id) == v {
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
