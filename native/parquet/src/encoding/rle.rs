//! The RLE / bit-packed hybrid encoding (definition levels, dictionary ids, booleans).
//!
//! The run decisions are parquet-java's `RunLengthBitPackingHybridEncoder`'s, so the bytes are
//! the same as its: a value repeated 8 or more times becomes an RLE run, anything else is
//! bit-packed in groups of 8, up to 63 groups a run.

use super::bit_pack::pack8_u32;
use super::{append_prefix, write_uleb};

pub struct RleEncoder {
    width: u32,
    out: Vec<u8>,
    buffered: [u32; 8],
    num_buffered: usize,
    previous: u32,
    repeat_count: usize,
    bit_packed_groups: usize,
    /// Index in `out` of the header byte of the open bit-packed run.
    bit_packed_header: Option<usize>,
}

impl RleEncoder {
    pub fn new(width: u32) -> Self {
        RleEncoder {
            width,
            out: Vec::new(),
            buffered: [0; 8],
            num_buffered: 0,
            previous: 0,
            repeat_count: 0,
            bit_packed_groups: 0,
            bit_packed_header: None,
        }
    }

    /// Bytes encoded so far (parquet-java's `getBufferedSize`: excludes the 8-value buffer).
    pub fn encoded_len(&self) -> usize {
        self.out.len()
    }

    #[inline]
    pub fn put(&mut self, v: u32) {
        if v == self.previous {
            self.repeat_count += 1;
            if self.repeat_count >= 8 {
                return;
            }
        } else {
            if self.repeat_count >= 8 {
                self.write_rle_run();
            }
            self.repeat_count = 1;
            self.previous = v;
        }
        self.buffered[self.num_buffered] = v;
        self.num_buffered += 1;
        if self.num_buffered == 8 {
            self.write_bit_packed_group();
        }
    }

    /// `put(v)` for every value of `vals`, a group of 8 at a time where the encoder is at a
    /// group boundary: there a run can only start with 8 equal values (the repeat count is 0),
    /// so a group that is not all equal is packed as it is, with one test instead of a
    /// data-dependent branch per value; an all-equal group opens an RLE run. An open run is
    /// extended by the equal values that follow; the first different value ends it, and `put`
    /// would then start a new group: that is a group boundary again.
    pub fn put_all(&mut self, vals: &[u32]) {
        let mut i = 0;
        while i < vals.len() {
            if self.repeat_count >= 8 {
                let start = i;
                while i < vals.len() && vals[i] == self.previous {
                    i += 1;
                }
                self.repeat_count += i - start;
                if i < vals.len() {
                    self.write_rle_run();
                }
                continue;
            }
            if self.at_group_boundary() && vals.len() - i >= 8 {
                let group: [u32; 8] = vals[i..i + 8].try_into().expect("8 values");
                let first = group[0];
                if group.iter().fold(true, |all, &v| all & (v == first)) {
                    self.enter_run(first);
                } else {
                    self.buffered = group;
                    self.previous = group[7];
                    self.write_bit_packed_group();
                }
                i += 8;
                continue;
            }
            self.put(vals[i]);
            i += 1;
        }
    }

    /// `put(bit)` for bits `start..end` of an LSB-first bitmap (definition levels from a
    /// validity bitmap; width 1). At a group boundary 8 bits are one byte: a mixed byte is the
    /// bit-packed group itself, an all-0 or all-1 byte opens an RLE run extended by whole runs
    /// of the bitmap, with the same bytes as value-by-value [`Self::put`].
    pub fn put_bits(&mut self, bitmap: &[u8], start: usize, end: usize) {
        debug_assert_eq!(self.width, 1);
        let mut i = start;
        while i < end {
            if self.repeat_count >= 8 {
                // An open run (as in put_all), extended by whole runs of the bitmap.
                while i < end {
                    let (set, n) = crate::column::bit_run(bitmap, i, end);
                    if set as u32 != self.previous {
                        break;
                    }
                    self.repeat_count += n;
                    i += n;
                }
                if i < end {
                    self.write_rle_run();
                }
                continue;
            }
            if self.at_group_boundary() && end - i >= 8 {
                let byte = crate::column::validity_word(bitmap, i, 8) as u8;
                if byte == 0 || byte == 0xFF {
                    self.enter_run((byte & 1) as u32);
                } else {
                    // Width 1: the byte is the packed group.
                    self.open_bit_packed_group();
                    self.out.push(byte);
                    self.previous = (byte >> 7) as u32;
                }
                i += 8;
                continue;
            }
            self.put(crate::column::bit(bitmap, i) as u32);
            i += 1;
        }
    }

    /// `put(v)` `n` times, a buffer-full at a time, O(1) once a run is established.
    pub fn put_run(&mut self, v: u32, mut n: usize) {
        if n == 0 {
            return;
        }
        self.put(v);
        n -= 1;
        // From here `previous == v`: each put counts a repeat and is buffered until the count
        // reaches 8 (then only counted) or the buffer fills (then packed, count reset).
        while n > 0 {
            if self.repeat_count >= 8 {
                self.repeat_count += n;
                return;
            }
            let room = 8 - self.num_buffered;
            let to_rle = 8 - self.repeat_count;
            if to_rle <= room && to_rle <= n {
                // to_rle - 1 more are buffered; the next one makes the count 8.
                self.buffered[self.num_buffered..self.num_buffered + to_rle - 1].fill(v);
                self.num_buffered += to_rle - 1;
                self.repeat_count = 8;
                n -= to_rle;
            } else {
                let k = room.min(n);
                self.buffered[self.num_buffered..self.num_buffered + k].fill(v);
                self.num_buffered += k;
                self.repeat_count += k;
                n -= k;
                if self.num_buffered == 8 {
                    self.write_bit_packed_group();
                }
            }
        }
    }

    /// Where a group starts with nothing buffered and no run open: a run can only begin here,
    /// with 8 equal values.
    #[inline]
    fn at_group_boundary(&self) -> bool {
        self.num_buffered == 0 && self.repeat_count < 8
    }

    /// The state `put` leaves after 8 equal values `v` from a group boundary: the first 7
    /// buffered, the 8th only counted (an open run, extended by the callers).
    fn enter_run(&mut self, v: u32) {
        self.buffered = [v; 8];
        self.num_buffered = 7;
        self.previous = v;
        self.repeat_count = 8;
    }

    fn write_bit_packed_group(&mut self) {
        self.open_bit_packed_group();
        pack8_u32(&self.buffered, self.width, &mut self.out);
    }

    /// Counts a group in the open bit-packed run (a new run after 63 groups) and empties the
    /// buffer as a written group does; the caller appends the group's `width` bytes.
    fn open_bit_packed_group(&mut self) {
        if self.bit_packed_groups >= 63 {
            self.end_bit_packed_run();
        }
        if self.bit_packed_header.is_none() {
            self.out.push(0);
            self.bit_packed_header = Some(self.out.len() - 1);
        }
        self.num_buffered = 0;
        self.repeat_count = 0;
        self.bit_packed_groups += 1;
    }

    fn end_bit_packed_run(&mut self) {
        if let Some(pos) = self.bit_packed_header.take() {
            self.out[pos] = ((self.bit_packed_groups << 1) | 1) as u8;
            self.bit_packed_groups = 0;
        }
    }

    fn write_rle_run(&mut self) {
        self.end_bit_packed_run();
        write_uleb(&mut self.out, (self.repeat_count as u64) << 1);
        let bytes = self.width.div_ceil(8) as usize;
        append_prefix(&mut self.out, &self.previous.to_le_bytes(), bytes);
        self.repeat_count = 0;
        self.num_buffered = 0;
    }

    fn flush(&mut self) {
        if self.repeat_count >= 8 {
            self.write_rle_run();
        } else if self.num_buffered > 0 {
            for i in self.num_buffered..8 {
                self.buffered[i] = 0;
            }
            self.write_bit_packed_group();
            self.end_bit_packed_run();
        } else {
            self.end_bit_packed_run();
        }
    }

    fn reset(&mut self) {
        self.out.clear();
        self.num_buffered = 0;
        self.previous = 0;
        self.repeat_count = 0;
        self.bit_packed_groups = 0;
        self.bit_packed_header = None;
    }

    /// Flushes and returns the encoded bytes; the encoder is empty afterwards.
    pub fn finish(&mut self) -> Vec<u8> {
        self.flush();
        let out = self.out.clone();
        self.reset();
        out
    }

    /// Flushes, appends the encoded bytes to `out` and empties the encoder, keeping its buffer.
    pub fn finish_into(&mut self, out: &mut Vec<u8>) {
        self.flush();
        out.extend_from_slice(&self.out);
        self.reset();
    }

    /// Starts over with another bit width (empty encoder).
    pub fn set_width(&mut self, width: u32) {
        self.reset();
        self.width = width;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_all_matches_put() {
        // Runs of every length around the 8-value thresholds, mixed with short groups.
        let mut vals = Vec::new();
        let mut x = 12345u32;
        for i in 0..5000u32 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let run = [1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 65][(x >> 8) as usize % 11];
            // Mostly a new value, sometimes the previous run's again.
            let v = if x.is_multiple_of(5) {
                (i + 36) % 37
            } else {
                i % 37
            };
            vals.extend(std::iter::repeat_n(v, run));
        }
        for width in [1, 6, 17, 32] {
            let masked: Vec<u32> = vals
                .iter()
                .map(|v| v & ((1u64 << width) - 1) as u32)
                .collect();
            for split in [1, 7, 8, 9, 64, 1000] {
                let mut a = RleEncoder::new(width);
                let mut b = RleEncoder::new(width);
                for &v in &masked {
                    a.put(v);
                }
                for chunk in masked.chunks(split) {
                    b.put_all(chunk);
                }
                let (mut ea, mut eb) = (Vec::new(), Vec::new());
                a.finish_into(&mut ea);
                b.finish_into(&mut eb);
                assert_eq!(ea, eb, "width {width} split {split}");
            }
        }
    }

    #[test]
    fn put_bits_matches_put() {
        // Bitmaps from all-valid to all-null with runs of every length, read from every bit
        // offset and in pieces that cut groups and runs anywhere.
        let mut x = 99u64;
        for density in [0u64, 1, 45, 500, 955, 999, 1000] {
            let mut bits = Vec::new();
            for _ in 0..3000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let run = 1 + (x >> 40) as usize % [1, 3, 9, 30][(x % 4) as usize];
                bits.extend(std::iter::repeat_n(x % 1000 < density, run));
            }
            let mut bitmap = vec![0u8; bits.len().div_ceil(8)];
            for (i, &b) in bits.iter().enumerate() {
                bitmap[i / 8] |= (b as u8) << (i % 8);
            }
            for (start, piece) in [(0, 1), (3, 7), (5, 64), (0, 1000), (11, 100_000)] {
                let mut a = RleEncoder::new(1);
                let mut b = RleEncoder::new(1);
                for &bit in &bits[start..] {
                    a.put(bit as u32);
                }
                let mut i = start;
                while i < bits.len() {
                    let e = (i + piece).min(bits.len());
                    b.put_bits(&bitmap, i, e);
                    i = e;
                }
                let (mut ea, mut eb) = (Vec::new(), Vec::new());
                a.finish_into(&mut ea);
                b.finish_into(&mut eb);
                assert_eq!(ea, eb, "density {density} start {start} piece {piece}");
            }
        }
    }

    /// An independent decoder written from the format spec.
    fn decode(bytes: &[u8], width: u32, n: usize) -> Vec<u32> {
        let mut out = Vec::new();
        let mut pos = 0;
        while out.len() < n {
            let mut header = 0u64;
            let mut shift = 0;
            loop {
                let b = bytes[pos];
                pos += 1;
                header |= ((b & 0x7f) as u64) << shift;
                shift += 7;
                if b < 0x80 {
                    break;
                }
            }
            if header & 1 == 1 {
                let groups = (header >> 1) as usize;
                let nbits = groups * 8 * width as usize;
                for i in 0..groups * 8 {
                    let mut v = 0u32;
                    for b in 0..width as usize {
                        let p = i * width as usize + b;
                        if bytes[pos + p / 8] >> (p % 8) & 1 == 1 {
                            v |= 1 << b;
                        }
                    }
                    out.push(v);
                }
                pos += nbits.div_ceil(8);
            } else {
                let count = (header >> 1) as usize;
                let nb = width.div_ceil(8) as usize;
                let mut v = [0u8; 4];
                v[..nb].copy_from_slice(&bytes[pos..pos + nb]);
                pos += nb;
                out.extend(std::iter::repeat_n(u32::from_le_bytes(v), count));
            }
        }
        out.truncate(n);
        out
    }

    #[test]
    fn runs_and_packs_roundtrip() {
        let mut seed = 7u64;
        for width in [1u32, 2, 3, 7, 8, 13, 20, 31] {
            for len in [0usize, 1, 7, 8, 9, 100, 1000, 5000] {
                let mut vals = Vec::with_capacity(len);
                while vals.len() < len {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let v = ((seed >> 33) as u32) & ((1u64 << width) - 1) as u32;
                    let rep = if seed & 3 == 0 {
                        (seed >> 10) as usize % 40
                    } else {
                        1
                    };
                    for _ in 0..rep.max(1) {
                        vals.push(v);
                    }
                }
                vals.truncate(len);
                let mut enc = RleEncoder::new(width);
                for &v in &vals {
                    enc.put(v);
                }
                let bytes = enc.finish();
                assert_eq!(decode(&bytes, width, len), vals, "width {width} len {len}");
            }
        }
    }

    #[test]
    fn put_run_equals_repeated_put() {
        let mut a = RleEncoder::new(1);
        let mut b = RleEncoder::new(1);
        for (v, n) in [(1u32, 3usize), (0, 20), (1, 1), (1, 100_000), (0, 9)] {
            a.put_run(v, n);
            for _ in 0..n {
                b.put(v);
            }
        }
        assert_eq!(a.finish(), b.finish());
    }

    #[test]
    fn random_runs_equal_repeated_put() {
        let mut seed = 1u64;
        for width in [1u32, 3, 9] {
            let mut a = RleEncoder::new(width);
            let mut b = RleEncoder::new(width);
            for _ in 0..5000 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let v = (((seed >> 40) as u32) % 3) & ((1 << width) - 1);
                let n = ((seed >> 20) % 20) as usize;
                a.put_run(v, n);
                for _ in 0..n {
                    b.put(v);
                }
            }
            assert_eq!(a.finish(), b.finish(), "width {width}");
        }
    }

    #[test]
    fn long_constant_run_is_one_rle_run() {
        let mut e = RleEncoder::new(1);
        e.put_run(1, 1_000_000);
        // header varint(2_000_000) is 3 bytes, value 1 byte
        assert_eq!(e.finish(), vec![0x80, 0x89, 0x7a, 1]);
    }
}
