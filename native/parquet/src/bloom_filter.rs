//! Split-block bloom filters (the Parquet spec's SBBF, xxHash64 with seed 0), sized exactly as
//! parquet-java's `BlockSplitBloomFilter` and `AdaptiveBlockSplitBloomFilter` size them.

use crate::options::BloomFilterOptions;

const BYTES_PER_BLOCK: usize = 32;
const BITS_PER_BLOCK: i64 = 256;
const LOWER_BOUND_BYTES: i64 = 32;
const UPPER_BOUND_BYTES: i64 = 128 * 1024 * 1024;
const NDV_STEP: i64 = 500;
const MIN_CANDIDATE_NDV: i64 = 16;
const SALT: [u32; 8] = [
    0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31,
];

/// xxHash64 (seed 0) of a value's plain encoding (without a length prefix for byte arrays).
#[inline]
pub fn hash_bytes(v: &[u8]) -> u64 {
    xxhash_rust::xxh64::xxh64(v, 0)
}

/// parquet-java's `optimalNumOfBits`, including its rounding.
pub fn optimal_num_of_bits(ndv: u64, fpp: f64) -> i64 {
    let m = -8.0 * ndv as f64 / (1.0 - fpp.powf(1.0 / 8.0)).ln();
    // Java's (int) cast saturates.
    let mut num_bits = if m >= i32::MAX as f64 {
        i32::MAX as i64
    } else {
        m as i64
    };
    if num_bits > UPPER_BOUND_BYTES << 3 || m < 0.0 {
        num_bits = UPPER_BOUND_BYTES << 3;
    }
    // Java rounds with `& ~BITS_PER_BLOCK` (not `~(BITS_PER_BLOCK - 1)`); kept for equal sizes.
    num_bits = ((num_bits + BITS_PER_BLOCK - 1) as i32 & !(BITS_PER_BLOCK as i32)) as i64;
    if num_bits < LOWER_BOUND_BYTES << 3 {
        num_bits = LOWER_BOUND_BYTES << 3;
    }
    num_bits
}

/// Whether a filter size lies strictly between the bounds (else parquet-java takes a bound).
fn between_bounds(bytes: i64) -> bool {
    bytes > LOWER_BOUND_BYTES && bytes < UPPER_BOUND_BYTES
}

#[derive(Clone)]
pub struct Sbbf {
    words: Vec<u32>,
}

impl Sbbf {
    /// `new BlockSplitBloomFilter(numBytes, minimumBytes, maximumBytes)`.
    fn sized(num_bytes: i64, min_bytes: i64, max_bytes: i64) -> Self {
        let min_bytes = if between_bounds(min_bytes) {
            min_bytes
        } else {
            LOWER_BOUND_BYTES
        };
        let max_bytes = if between_bounds(max_bytes) {
            max_bytes
        } else {
            UPPER_BOUND_BYTES
        };
        let mut n = num_bytes.max(min_bytes) as i32;
        if n & (n - 1) != 0 {
            n = (highest_one_bit(n)).wrapping_shl(1);
        }
        let mut n = n as i64;
        if n > max_bytes || n < 0 {
            n = max_bytes;
        }
        Sbbf {
            words: vec![0; n as usize / 4],
        }
    }

    pub fn num_bytes(&self) -> usize {
        self.words.len() * 4
    }

    #[inline]
    fn masks(hash: u64) -> [u32; 8] {
        let key = hash as u32;
        std::array::from_fn(|i| 1u32 << (key.wrapping_mul(SALT[i]) >> 27))
    }

    #[inline]
    fn block_index(&self, hash: u64) -> usize {
        let num_blocks = (self.words.len() * 4 / BYTES_PER_BLOCK) as u64;
        (((hash >> 32) * num_blocks) >> 32) as usize
    }

    #[inline]
    pub fn insert_hash(&mut self, hash: u64) {
        let b = self.block_index(hash) * 8;
        let m = Self::masks(hash);
        for (w, m) in self.words[b..b + 8].iter_mut().zip(m) {
            *w |= m;
        }
    }

    #[inline]
    pub fn find_hash(&self, hash: u64) -> bool {
        let b = self.block_index(hash) * 8;
        let m = Self::masks(hash);
        (0..8).all(|i| self.words[b + i] & m[i] != 0)
    }

    pub fn bitset(&self) -> Vec<u8> {
        self.words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }
}

fn highest_one_bit(n: i32) -> i32 {
    if n == 0 {
        0
    } else {
        ((1u32 << 31) >> (n as u32).leading_zeros()) as i32
    }
}

/// The filter of one column chunk: a single SBBF, or adaptive candidates.
pub enum BloomFilter {
    Fixed(Sbbf),
    Adaptive(Adaptive),
}

pub struct Adaptive {
    /// (expected ndv, filter), largest first.
    candidates: Vec<(i64, Sbbf)>,
    distinct: i64,
}

impl BloomFilter {
    pub fn new(opts: &BloomFilterOptions, max_bytes: usize) -> Self {
        let max_bytes = max_bytes as i64;
        if let Some(ndv) = opts.ndv {
            let bits = optimal_num_of_bits(ndv, opts.fpp);
            BloomFilter::Fixed(Sbbf::sized(bits / 8, LOWER_BOUND_BYTES, max_bytes))
        } else if opts.adaptive {
            BloomFilter::Adaptive(Adaptive::new(max_bytes, opts.candidates, opts.fpp))
        } else {
            BloomFilter::Fixed(Sbbf::sized(max_bytes, LOWER_BOUND_BYTES, max_bytes))
        }
    }

    #[inline]
    pub fn insert_hash(&mut self, hash: u64) {
        match self {
            BloomFilter::Fixed(f) => f.insert_hash(hash),
            BloomFilter::Adaptive(a) => a.insert_hash(hash),
        }
    }

    /// The filter that is written: the smallest adaptive candidate left.
    pub fn result(&self) -> &Sbbf {
        match self {
            BloomFilter::Fixed(f) => f,
            BloomFilter::Adaptive(a) => &a.candidates.last().expect("at least one candidate").1,
        }
    }
}

impl Adaptive {
    fn new(max_bytes: i64, num_candidates: usize, fpp: f64) -> Self {
        let bounded = |n: i64| -> i64 {
            let mut n = n.max(LOWER_BOUND_BYTES);
            if n & (n - 1) != 0 {
                n = highest_one_bit(n as i32) as i64;
            }
            n.clamp(LOWER_BOUND_BYTES, UPPER_BOUND_BYTES)
        };
        let expected_ndv = |bytes: i64| -> i64 {
            let mut ndv = 0;
            let mut optimal = 0;
            while optimal < bytes {
                ndv += NDV_STEP;
                optimal = optimal_num_of_bits(ndv as u64, fpp) / 8;
            }
            (ndv - NDV_STEP).max(0)
        };
        let mut candidates = Vec::new();
        let mut size = bounded(max_bytes);
        for _ in 0..num_candidates {
            let ndv = expected_ndv(size);
            if ndv <= 0 {
                break;
            }
            candidates.push((ndv, Sbbf::sized(size, LOWER_BOUND_BYTES, UPPER_BOUND_BYTES)));
            size = bounded(size / 2);
        }
        if candidates.is_empty() {
            candidates.push((
                MIN_CANDIDATE_NDV,
                Sbbf::sized(LOWER_BOUND_BYTES, LOWER_BOUND_BYTES, UPPER_BOUND_BYTES),
            ));
        }
        // Largest first; parquet-java's min/max by size pick the same ones.
        candidates.sort_by_key(|c| std::cmp::Reverse(c.1.num_bytes()));
        Adaptive {
            candidates,
            distinct: 0,
        }
    }

    fn insert_hash(&mut self, hash: u64) {
        if !self.candidates[0].1.find_hash(hash) {
            self.distinct += 1;
        }
        let distinct = self.distinct;
        let mut i = 1;
        while i < self.candidates.len() {
            if self.candidates[i].0 < distinct {
                self.candidates.remove(i);
            } else {
                i += 1;
            }
        }
        for c in &mut self.candidates {
            c.1.insert_hash(hash);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adaptive_picks_parquet_javas_candidate() {
        // AdaptiveBlockSplitBloomFilter(1 MiB, 5 candidates, fpp 0.01) of parquet-java 1.17 given
        // the INT64 values i * 7919 for i < n: the bitset it writes. Repeats are not distinct.
        use crate::options::BloomFilterOptions;
        let sizes: [(i64, usize); 9] = [
            (0, 65_536),
            (50_000, 65_536),
            // The 64 KiB candidate expects 54,000 values: kept at exactly that many.
            (54_000, 65_536),
            (54_001, 131_072),
            (55_000, 131_072),
            (100_000, 131_072),
            (110_000, 262_144),
            (200_000, 262_144),
            (240_000, 524_288),
        ];
        let opts = BloomFilterOptions {
            adaptive: true,
            candidates: 5,
            fpp: 0.01,
            ndv: None,
        };
        for (n, want) in sizes {
            for repeats in if n <= 55_000 { 1..=2 } else { 1..=1 } {
                let mut f = BloomFilter::new(&opts, 1 << 20);
                for _ in 0..repeats {
                    for i in 0..n {
                        f.insert_hash(hash_bytes(&(i * 7919).to_le_bytes()));
                    }
                }
                assert_eq!(
                    f.result().num_bytes(),
                    want,
                    "{n} values, each {repeats} times"
                );
            }
        }
    }

    #[test]
    fn sizes_are_parquet_javas() {
        // BlockSplitBloomFilter.optimalNumOfBits(ndv, fpp) of parquet-java 1.17, its odd
        // `& ~BITS_PER_BLOCK` rounding and its 128 MiB cap included.
        let bits: [(u64, f64, i64); 14] = [
            (0, 0.01, 256),
            (1, 0.5, 256),
            (100, 0.01, 1223),
            (100, 0.05, 686),
            (100, 0.5, 576),
            (100, 0.999, 256),
            (20_000, 0.01, 193_629),
            (20_000, 0.05, 137_753),
            (20_000, 0.999, 18_058),
            (1_000_000, 0.01, 9_681_525),
            (1_000_000, 0.999, 890_453),
            (1_000_000_000, 0.01, 1_073_742_079),
            (1_000_000_000, 0.999, 890_198_553),
            (1_000_000_000_000, 0.999, 1_073_742_079),
        ];
        for (ndv, fpp, want) in bits {
            assert_eq!(optimal_num_of_bits(ndv, fpp), want, "ndv {ndv} fpp {fpp}");
        }
        // new BlockSplitBloomFilter(numBytes, minimumBytes, maximumBytes).getBitsetSize().
        let bytes: [(i64, i64, i64, usize); 15] = [
            (10, 16, 1 << 20, 32),
            (10, 64, 1 << 20, 64),
            (1000, 32, 64, 64),
            (100_000, 32, 1 << 28, 131_072),
            (10, 64, 1 << 27, 64),
            (100, 32, 1 << 20, 128),
            (1000, 32, 1 << 20, 1024),
            (3000, 4096, 1 << 20, 4096),
            (3000, 16, 1 << 20, 4096),
            (5_000_000, 32, 1 << 20, 1 << 20),
            (1000, 2048, 1 << 30, 2048),
            (0, 0, 0, 32),
            // A cap of 32 bytes or less is no cap, as a minimum of 128 MiB is no minimum.
            (1000, 32, 32, 1024),
            (10, 1 << 27, 1 << 28, 32),
            // Rounding 2^30 + 1 up overflows; the cap (128 MiB) is taken.
            ((1 << 30) + 1, 32, (1 << 30) + 1, 1 << 27),
        ];
        for (n, min, max, want) in bytes {
            assert_eq!(
                Sbbf::sized(n, min, max).num_bytes(),
                want,
                "{n} {min} {max}"
            );
        }
    }

    #[test]
    fn sizes_as_parquet_java() {
        // Values from parquet-java's BlockSplitBloomFilter.optimalNumOfBits.
        assert_eq!(optimal_num_of_bits(0, 0.01), 256);
        // ndv 1M, fpp 0.01: m = 9_585_059.xx bits -> 9_585_059 + 255 = 9_585_314 & ~256
        let m = (-8.0 * 1_000_000f64 / (1.0 - 0.01f64.powf(0.125)).ln()) as i64;
        assert_eq!(optimal_num_of_bits(1_000_000, 0.01), (m + 255) & !256);
        // Default: max bytes, whatever the ndv.
        let f = BloomFilter::new(&BloomFilterOptions::default(), 1024 * 1024);
        assert_eq!(f.result().num_bytes(), 1024 * 1024);
        // ndv given: power of two at or above bits/8.
        let o = BloomFilterOptions {
            ndv: Some(1000),
            ..Default::default()
        };
        let bytes = optimal_num_of_bits(1000, 0.01) / 8;
        let f = BloomFilter::new(&o, 1024 * 1024);
        assert_eq!(
            f.result().num_bytes() as i64,
            (bytes as u64).next_power_of_two() as i64
        );
    }

    #[test]
    fn no_false_negatives() {
        let mut f = Sbbf::sized(4096, 32, 1 << 20);
        for i in 0..2000u64 {
            f.insert_hash(hash_bytes(&i.to_le_bytes()));
        }
        for i in 0..2000u64 {
            assert!(f.find_hash(hash_bytes(&i.to_le_bytes())));
        }
        let fp = (10_000..20_000u64)
            .filter(|i| f.find_hash(hash_bytes(&i.to_le_bytes())))
            .count();
        assert!(fp < 2000, "false positive rate too high: {fp}");
    }

    #[test]
    fn adaptive_keeps_smallest_fitting_candidate() {
        let o = BloomFilterOptions {
            adaptive: true,
            candidates: 5,
            ..Default::default()
        };
        let mut f = BloomFilter::new(&o, 1024 * 1024);
        for i in 0..100u64 {
            f.insert_hash(hash_bytes(&i.to_le_bytes()));
        }
        // 5 candidates: 1 MiB .. 64 KiB; 100 distinct fit the smallest.
        assert_eq!(f.result().num_bytes(), 64 * 1024);
    }
}
