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

/// Packs 8 values of up to 32 bits (each below `1 << width`).
#[inline]
pub fn pack8_u32(values: &[u32; 8], width: u32, out: &mut Vec<u8>) {
    if width == 0 {
        return;
    }
    // 8 values of `width` bits are exactly `width` bytes: assembled here, appended once.
    let mut buf = [0u8; 36];
    let mut acc: u64 = 0;
    let mut bits = 0u32;
    let mut pos = 0usize;
    for &v in values {
        acc |= (v as u64) << bits;
        bits += width;
        if bits >= 32 {
            buf[pos..pos + 4].copy_from_slice(&(acc as u32).to_le_bytes());
            pos += 4;
            acc >>= 32;
            bits -= 32;
        }
    }
    buf[pos..pos + 4].copy_from_slice(&(acc as u32).to_le_bytes());
    append_prefix(out, &buf, width as usize);
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
            }
        }
    }
}
