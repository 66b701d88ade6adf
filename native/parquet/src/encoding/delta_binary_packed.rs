//! DELTA_BINARY_PACKED for INT32 and INT64: blocks of 128 deltas in 4 miniblocks of 32, as
//! parquet-java's `DeltaBinaryPackingValuesWriter` lays them out. Deltas wrap in the value's
//! own width (a reader adds them back with the same wrapping).

use super::bit_pack::{pack32_u32, pack8};
use super::{bit_width, write_uleb, write_zigzag};

const BLOCK: usize = 128;
const MINIBLOCKS: usize = 4;
const MINI: usize = BLOCK / MINIBLOCKS;

/// Values are i64; `bits32` makes the deltas wrap as i32 (for INT32 columns), kept as i32 so
/// that a block's min, offsets and widths are computed four to a vector register.
pub struct DeltaBinaryPackedEncoder {
    bits32: bool,
    total: u64,
    first: i64,
    previous: i64,
    deltas: [i64; BLOCK],
    deltas32: [i32; BLOCK],
    num_deltas: usize,
    blocks: Vec<u8>,
    /// The bit widths of the last block. parquet-java keeps them in one array for the writer's
    /// life (a column chunk) and computes only a partial block's own miniblocks, so the header
    /// of a last, partial block repeats earlier widths for the miniblocks past its values;
    /// readers ignore them, and writing them keeps the pages byte-identical.
    widths: [u32; MINIBLOCKS],
    /// Likewise the last block's deltas less its minimum: a partial last miniblock packs them
    /// past its values (parquet-java packs whole miniblocks from its reused buffer).
    rel: [u64; BLOCK],
    rel32: [u32; BLOCK],
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
            deltas32: [0; BLOCK],
            num_deltas: 0,
            blocks: Vec::new(),
            widths: [0; MINIBLOCKS],
            rel: [0; BLOCK],
            rel32: [0; BLOCK],
        }
    }

    /// Starts a new column chunk: parquet-java makes a new writer per row group.
    pub fn reset_chunk(&mut self) {
        self.widths = [0; MINIBLOCKS];
        self.rel = [0; BLOCK];
        self.rel32 = [0; BLOCK];
    }

    pub fn len(&self) -> usize {
        self.total as usize
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// `put` for each value, with the running state kept in registers: the first value of the
    /// page and the lane width are settled before the loop, not tested per value.
    #[inline]
    pub fn put_all(&mut self, vals: impl Iterator<Item = i64>) {
        let mut vals = vals;
        if self.total == 0 {
            match vals.next() {
                Some(v) => (self.first, self.previous, self.total) = (v, v, 1),
                None => return,
            }
        }
        if self.bits32 {
            self.put_deltas(vals, |e, i, v, previous| {
                e.deltas32[i] = (v as i32).wrapping_sub(previous as i32)
            });
        } else {
            self.put_deltas(vals, |e, i, v, previous| {
                e.deltas[i] = v.wrapping_sub(previous)
            });
        }
    }

    /// The loop of `put_all` after the first value, `store` putting a delta in its lane width
    /// (one copy of the loop per width).
    #[inline(always)]
    fn put_deltas(
        &mut self,
        vals: impl Iterator<Item = i64>,
        store: impl Fn(&mut Self, usize, i64, i64),
    ) {
        let (mut previous, mut n, mut total) = (self.previous, self.num_deltas, self.total);
        for v in vals {
            store(self, n & (BLOCK - 1), v, previous);
            previous = v;
            total += 1;
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
        if self.bits32 {
            self.flush_block32();
        } else {
            self.flush_block64();
        }
        self.num_deltas = 0;
    }

    fn flush_block64(&mut self) {
        let n = self.num_deltas;
        let min = *self.deltas[..n].iter().min().expect("block not empty");
        write_zigzag(&mut self.blocks, min);
        let mut rel = self.rel;
        for (r, &d) in rel.iter_mut().zip(&self.deltas[..n]) {
            *r = d.wrapping_sub(min) as u64;
        }
        let minis = n.div_ceil(MINI);
        let mut widths = self.widths;
        for (m, w) in widths.iter_mut().enumerate().take(minis) {
            let end = ((m + 1) * MINI).min(n);
            let max = rel[m * MINI..end].iter().fold(0u64, |a, &b| a | b);
            *w = bit_width(max);
        }
        self.widths = widths;
        self.blocks.extend(widths.iter().map(|&w| w as u8));
        for (m, &w) in widths.iter().enumerate().take(minis) {
            for g in 0..MINI / 8 {
                let s = m * MINI + g * 8;
                let group: &[u64; 8] = rel[s..s + 8].try_into().expect("8 values");
                pack8(group, w, &mut self.blocks);
            }
        }
        self.rel = rel;
    }

    /// The block of an INT32 column: the same layout, in 32-bit lanes.
    fn flush_block32(&mut self) {
        let n = self.num_deltas;
        let min = self.deltas32[..n].iter().fold(i32::MAX, |a, &b| a.min(b));
        write_zigzag(&mut self.blocks, min as i64);
        let mut rel = self.rel32;
        for (r, &d) in rel.iter_mut().zip(&self.deltas32[..n]) {
            *r = d.wrapping_sub(min) as u32;
        }
        let minis = n.div_ceil(MINI);
        // A miniblock wholly past the values is not packed; its width is the stale one.
        let mut widths = self.widths;
        for (m, w) in widths.iter_mut().enumerate().take(minis) {
            let max = rel[m * MINI..((m + 1) * MINI).min(n)]
                .iter()
                .fold(0u32, |a, &b| a | b);
            *w = bit_width(max as u64);
        }
        self.widths = widths;
        let packed: usize = widths[..minis].iter().map(|&w| 4 * w as usize).sum();
        let start = self.blocks.len();
        self.blocks.extend(widths.iter().map(|&w| w as u8));
        let mut at = start + MINIBLOCKS;
        self.blocks.resize(at + packed, 0);
        for (m, &w) in widths.iter().enumerate().take(minis) {
            let mut vals: [u32; MINI] =
                rel[m * MINI..(m + 1) * MINI].try_into().expect("miniblock");
            if (m + 1) * MINI > n {
                // The packer takes values of `w` bits; stale ones are cut to them, as Java's.
                let mask = if w == 32 { u32::MAX } else { (1u32 << w) - 1 };
                vals.iter_mut().for_each(|v| *v &= mask);
            }
            let len = 4 * w as usize;
            pack32_u32(&vals, w, &mut self.blocks[at..at + len]);
            at += len;
        }
        self.rel32 = rel;
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

    /// A decoder written from the format spec, independent of the encoder.
    fn decode(bytes: &[u8], bits32: bool) -> Vec<i64> {
        let mut pos = 0;
        let uleb = |pos: &mut usize| {
            let (mut v, mut shift) = (0u64, 0);
            loop {
                let b = bytes[*pos];
                *pos += 1;
                v |= ((b & 0x7f) as u64) << shift;
                shift += 7;
                if b < 0x80 {
                    return v;
                }
            }
        };
        let zigzag = |v: u64| ((v >> 1) as i64) ^ -((v & 1) as i64);
        let (block, minis, total) = (uleb(&mut pos), uleb(&mut pos), uleb(&mut pos));
        let per_mini = (block / minis) as usize;
        let mut out = vec![zigzag(uleb(&mut pos))];
        while (out.len() as u64) < total {
            let min = zigzag(uleb(&mut pos));
            let widths: Vec<usize> = bytes[pos..pos + minis as usize]
                .iter()
                .map(|&w| w as usize)
                .collect();
            pos += minis as usize;
            for w in widths {
                // Miniblocks past the last value hold no data, whatever width they declare.
                if out.len() as u64 >= total {
                    break;
                }
                for i in 0..per_mini {
                    let mut d = 0u64;
                    for b in 0..w {
                        let bit = i * w + b;
                        d |= ((bytes[pos + bit / 8] >> (bit % 8) & 1) as u64) << b;
                    }
                    if (out.len() as u64) < total {
                        let prev = *out.last().unwrap();
                        out.push(if bits32 {
                            (prev as i32).wrapping_add((d as i32).wrapping_add(min as i32)) as i64
                        } else {
                            prev.wrapping_add((d as i64).wrapping_add(min))
                        });
                    }
                }
                pos += per_mini * w / 8;
            }
        }
        assert_eq!(pos, bytes.len(), "trailing bytes");
        out
    }

    #[test]
    fn decodes_to_the_values() {
        // Small and huge deltas (wrapping at the type's width), runs, partial last blocks.
        let mut x = 1u64;
        for bits32 in [true, false] {
            for n in [1usize, 2, 33, 128, 129, 200, 1000] {
                let vals: Vec<i64> = (0..n)
                    .map(|i| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        let v = match i % 5 {
                            0 => x as i64,
                            1 => i as i64,
                            2 => -(i as i64) * 1000,
                            3 => [i64::MIN, i64::MAX, 0][i % 3],
                            _ => (x % 100) as i64,
                        };
                        if bits32 {
                            v as i32 as i64
                        } else {
                            v
                        }
                    })
                    .collect();
                let mut e = DeltaBinaryPackedEncoder::new(bits32);
                e.put_all(vals.iter().copied());
                let mut out = Vec::new();
                e.finish_into(&mut out);
                assert_eq!(decode(&out, bits32), vals, "bits32 {bits32} n {n}");
            }
        }
    }

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
