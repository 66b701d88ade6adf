//! DELTA_BINARY_PACKED for INT32 and INT64: blocks of 128 deltas in 4 miniblocks of 32, as
//! parquet-java's `DeltaBinaryPackingValuesWriter` lays them out. Deltas wrap in the value's
//! own width (a reader adds them back with the same wrapping).

use super::bit_pack::pack8;
use super::{bit_width, write_uleb, write_zigzag};

const BLOCK: usize = 128;
const MINIBLOCKS: usize = 4;
const MINI: usize = BLOCK / MINIBLOCKS;

/// Values are i64; `bits32` makes the deltas wrap as i32 (for INT32 columns).
pub struct DeltaBinaryPackedEncoder {
    bits32: bool,
    total: u64,
    first: i64,
    previous: i64,
    deltas: [i64; BLOCK],
    num_deltas: usize,
    blocks: Vec<u8>,
}

impl DeltaBinaryPackedEncoder {
    pub fn new_i32() -> Self {
        Self::new(true)
    }

    pub fn new_i64() -> Self {
        Self::new(false)
    }

    fn new(bits32: bool) -> Self {
        DeltaBinaryPackedEncoder {
            bits32,
            total: 0,
            first: 0,
            previous: 0,
            deltas: [0; BLOCK],
            num_deltas: 0,
            blocks: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.total as usize
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// `put` for each value, with the running state kept in registers.
    #[inline]
    pub fn put_all(&mut self, vals: impl Iterator<Item = i64>) {
        let (mut previous, mut n, mut total) = (self.previous, self.num_deltas, self.total);
        for v in vals {
            total += 1;
            if total == 1 {
                self.first = v;
                previous = v;
                continue;
            }
            let delta = if self.bits32 {
                (v as i32).wrapping_sub(previous as i32) as i64
            } else {
                v.wrapping_sub(previous)
            };
            previous = v;
            self.deltas[n & (BLOCK - 1)] = delta;
            n += 1;
            if n == BLOCK {
                self.num_deltas = n;
                self.flush_block();
                n = 0;
            }
        }
        (self.previous, self.num_deltas, self.total) = (previous, n, total);
    }

    /// parquet-java's `getBufferedSize`: the blocks flushed so far.
    pub fn encoded_len(&self) -> usize {
        self.blocks.len()
    }

    #[inline]
    pub fn put(&mut self, v: i64) {
        self.put_all(std::iter::once(v));
    }

    fn flush_block(&mut self) {
        let n = self.num_deltas;
        let min = *self.deltas[..n].iter().min().expect("block not empty");
        write_zigzag(&mut self.blocks, min);
        let mut rel = [0u64; BLOCK];
        for (r, &d) in rel.iter_mut().zip(&self.deltas[..n]) {
            *r = if self.bits32 {
                (d as i32).wrapping_sub(min as i32) as u32 as u64
            } else {
                d.wrapping_sub(min) as u64
            };
        }
        let minis = n.div_ceil(MINI);
        let mut widths = [0u32; MINIBLOCKS];
        for (m, w) in widths.iter_mut().enumerate().take(minis) {
            let end = ((m + 1) * MINI).min(n);
            let max = rel[m * MINI..end].iter().fold(0u64, |a, &b| a | b);
            *w = bit_width(max);
        }
        self.blocks.extend(widths.iter().map(|&w| w as u8));
        for (m, &w) in widths.iter().enumerate().take(minis) {
            for g in 0..MINI / 8 {
                let s = m * MINI + g * 8;
                let group: &[u64; 8] = rel[s..s + 8].try_into().expect("8 values");
                pack8(group, w, &mut self.blocks);
            }
        }
        self.num_deltas = 0;
    }

    /// Appends the encoded page data to `out` and resets the encoder.
    pub fn finish_into(&mut self, out: &mut Vec<u8>) {
        if self.num_deltas > 0 {
            self.flush_block();
        }
        write_uleb(out, BLOCK as u64);
        write_uleb(out, MINIBLOCKS as u64);
        write_uleb(out, self.total);
        write_zigzag(out, self.first);
        out.extend_from_slice(&self.blocks);
        self.total = 0;
        self.num_deltas = 0;
        self.blocks.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_all_matches_put() {
        let vals: Vec<i64> = (0..1000i64)
            .map(|i| (i * 7919) % 1013 - 500 + i * 3)
            .collect();
        for bits32 in [true, false] {
            for split in [1, 5, 128, 999] {
                let mut a = DeltaBinaryPackedEncoder::new(bits32);
                let mut b = DeltaBinaryPackedEncoder::new(bits32);
                vals.iter().for_each(|&v| a.put(v));
                vals.chunks(split)
                    .for_each(|c| b.put_all(c.iter().copied()));
                let (mut ea, mut eb) = (Vec::new(), Vec::new());
                a.finish_into(&mut ea);
                b.finish_into(&mut eb);
                assert_eq!(ea, eb, "bits32 {bits32} split {split}");
            }
        }
    }
}
