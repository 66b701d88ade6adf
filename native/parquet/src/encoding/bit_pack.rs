//! Little-endian bit packing of groups of 8 values, as Parquet's RLE/bit-packed hybrid and
//! DELTA_BINARY_PACKED miniblocks store them (first value in the lowest bits).

use super::append_prefix;

/// Packs 8 values of `width` bits (0..=64) into exactly `width` bytes appended to `out`.
#[inline]
pub fn pack8(values: &[u64; 8], width: u32, out: &mut Vec<u8>) {
    if width == 0 {
        return;
    }
    if width <= 32 {
        // Narrow values pack faster through a 64-bit accumulator.
        let narrow = values.map(|v| (v & ((1u64 << width) - 1)) as u32);
        return pack8_u32(&narrow, width, out);
    }
    let mask = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    // 8 values of `width` bits are exactly `width` bytes: assembled here, appended once.
    let mut buf = [0u8; 72];
    let mut acc: u128 = 0;
    let mut bits = 0u32;
    let mut pos = 0usize;
    for &v in values {
        acc |= ((v & mask) as u128) << bits;
        bits += width;
        if bits >= 64 {
            buf[pos..pos + 8].copy_from_slice(&(acc as u64).to_le_bytes());
            pos += 8;
            acc >>= 64;
            bits -= 64;
        }
    }
    buf[pos..pos + 8].copy_from_slice(&(acc as u64).to_le_bytes());
    append_prefix(out, &buf, width as usize);
}

/// `$f::<W>(args)` with the bit width `$width` (1..=32) as the constant `W`; nothing for 0.
/// Per-width packers keep their shifts constant, so the loops unroll.
macro_rules! with_const_width {
    ($width:expr, $f:ident $args:tt) => {
        with_const_width!(@ $width, $f $args,
            1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32)
    };
    (@ $width:expr, $f:ident $args:tt, $($w:literal)*) => {
        match $width {
            0 => {}
            $($w => $f::<$w> $args,)*
            w => panic!("bit width {w} above 32"),
        }
    };
}

/// Packs 8 values of up to 32 bits (each below `1 << width`). One packer per width: the
/// output words are assembled in registers and stored straight into `out` (assembling them in
/// a stack buffer first and copying that out stalled on store-to-load forwarding).
#[inline]
pub fn pack8_u32(values: &[u32; 8], width: u32, out: &mut Vec<u8>) {
    with_const_width!(width, pack8_width(values, out))
}

#[inline(always)]
fn pack8_width<const W: u32>(values: &[u32; 8], out: &mut Vec<u8>) {
    let w = W as usize;
    let mut words = [0u64; 4];
    for (i, &v) in values.iter().enumerate() {
        let (j, s) = (i * w / 64, i * w % 64);
        words[j] |= (v as u64) << s;
        if s + w > 64 {
            words[j + 1] |= (v as u64) >> (64 - s);
        }
    }
    let at = out.len();
    for word in &words[..(8 * w).div_ceil(64)] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    out.truncate(at + w);
}

/// Packs 32 values of `width` bits (0..=32, each below `1 << width`) into `out`, which is
/// exactly `4 * width` bytes: a DELTA_BINARY_PACKED miniblock of an INT32 column.
pub fn pack32_u32(values: &[u32; 32], width: u32, out: &mut [u8]) {
    with_const_width!(width, pack32_width(values, out))
}

#[inline(always)]
fn pack32_width<const W: u32>(values: &[u32; 32], out: &mut [u8]) {
    let out = &mut out[..4 * W as usize];
    let mut acc = 0u64;
    let mut bits = 0u32;
    let mut word = 0usize;
    for &v in values {
        acc |= (v as u64) << bits;
        bits += W;
        if bits >= 32 {
            out[word * 4..word * 4 + 4].copy_from_slice(&(acc as u32).to_le_bytes());
            word += 1;
            acc >>= 32;
            bits -= 32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unpack(bytes: &[u8], width: u32, i: usize) -> u64 {
        let mut v = 0u64;
        for b in 0..width as usize {
            let pos = i * width as usize + b;
            if bytes[pos / 8] >> (pos % 8) & 1 == 1 {
                v |= 1 << b;
            }
        }
        v
    }

    #[test]
    fn pack_roundtrip_every_width() {
        for width in 0..=64u32 {
            let mask = if width == 64 {
                u64::MAX
            } else {
                (1u64 << width) - 1
            };
            let vals: [u64; 8] = std::array::from_fn(|i| {
                (0x9E37_79B9_7F4A_7C15u64.wrapping_mul(i as u64 + 1)) & mask
            });
            let mut out = Vec::new();
            pack8(&vals, width, &mut out);
            assert_eq!(out.len(), width as usize);
            for (i, v) in vals.iter().enumerate() {
                assert_eq!(unpack(&out, width, i), *v, "width {width} value {i}");
            }
            if width <= 32 {
                let v32: [u32; 8] = std::array::from_fn(|i| vals[i] as u32);
                let mut out32 = Vec::new();
                pack8_u32(&v32, width, &mut out32);
                assert_eq!(out32, out, "width {width}");
                // 32 values at once: the same bytes as four groups of 8.
                let v32x4: [u32; 32] = std::array::from_fn(|i| {
                    (0x9E37_79B9_7F4A_7C15u64.wrapping_mul(i as u64 + 7) & mask) as u32
                });
                let mut groups = Vec::new();
                for g in v32x4.chunks(8) {
                    pack8_u32(g.try_into().unwrap(), width, &mut groups);
                }
                let mut whole = vec![0u8; 4 * width as usize];
                pack32_u32(&v32x4, width, &mut whole);
                assert_eq!(whole, groups, "width {width}");
                for (i, v) in v32x4.iter().enumerate() {
                    assert_eq!(
                        unpack(&whole, width, i),
                        *v as u64,
                        "width {width} value {i}"
                    );
                }
            }
        }
    }
}
