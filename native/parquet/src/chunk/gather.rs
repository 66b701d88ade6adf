//! The valid values of a block of up to 64 rows, packed to the front (nullable columns store a
//! value in every slot; a page holds only the valid ones).
//!
//! The scalar version stores every value and advances only on valid ones: no branch on the
//! validity, but about five instructions a value. For 4-byte values on AVX2, 8 values at a
//! time are permuted by a table indexed by their 8 validity bits and stored whole: about six
//! instructions for 8 values.

/// Rows a block holds at most.
pub(crate) const BLOCK: usize = 64;

/// Packs `vals[i]` for every set bit `i` of `bits` to the front of `out`; returns how many.
#[inline]
pub(crate) fn gather_scalar<T: Copy>(vals: &[T], bits: u64, out: &mut [T; BLOCK]) -> usize {
    debug_assert!(vals.len() <= BLOCK);
    let mut k = 0;
    // k <= i < BLOCK, so the mask never changes the index.
    for (i, &v) in vals.iter().enumerate() {
        out[k & (BLOCK - 1)] = v;
        k += (bits >> i) as usize & 1;
    }
    k
}

/// [`gather_scalar`] for INT32 values, vectorised where the CPU has AVX2.
#[inline]
pub(crate) fn gather_i32(vals: &[i32], bits: u64, out: &mut [i32; BLOCK]) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above).
            return unsafe { avx2::gather_i32(vals, bits, out) };
        }
    }
    gather_scalar(vals, bits, out)
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::BLOCK;
    use std::arch::x86_64::*;

    /// Lane indices that move the lanes of the set bits of a byte to the front, in order.
    static PERMUTATIONS: [[u32; 8]; 256] = permutations();

    const fn permutations() -> [[u32; 8]; 256] {
        let mut table = [[0u32; 8]; 256];
        let mut mask = 0;
        while mask < 256 {
            let (mut lane, mut k) = (0, 0);
            while lane < 8 {
                if mask >> lane & 1 == 1 {
                    table[mask][k] = lane as u32;
                    k += 1;
                }
                lane += 1;
            }
            mask += 1;
        }
        table
    }

    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn gather_i32(vals: &[i32], bits: u64, out: &mut [i32; BLOCK]) -> usize {
        assert!(vals.len() <= BLOCK);
        let mut k = 0;
        let mut i = 0;
        while i + 8 <= vals.len() {
            let mask = (bits >> i) as usize & 0xFF;
            // SAFETY: i + 8 <= vals.len(), so the 32 bytes read are inside `vals`; k <= i, so
            // the 32 bytes stored at k end at or before i + 8 <= BLOCK, inside `out`. Unaligned
            // loads and stores are used throughout.
            unsafe {
                let v = _mm256_loadu_si256(vals.as_ptr().add(i) as *const __m256i);
                let idx = _mm256_loadu_si256(PERMUTATIONS[mask].as_ptr() as *const __m256i);
                let packed = _mm256_permutevar8x32_epi32(v, idx);
                _mm256_storeu_si256(out.as_mut_ptr().add(k) as *mut __m256i, packed);
            }
            k += mask.count_ones() as usize;
            i += 8;
        }
        // The last 0-7 values as gather_scalar does (k <= j < BLOCK: the mask never bites).
        for (j, &v) in vals.iter().enumerate().skip(i) {
            out[k & (BLOCK - 1)] = v;
            k += (bits >> j) as usize & 1;
        }
        k
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gathers_the_valid_values_in_order() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for len in 0..=BLOCK {
            for density in [0u64, 1, 4, 7, 8] {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // density/8 of the bits set, from all-null to all-valid.
                let bits = (0..64).fold(0u64, |b, i| {
                    let r = x.rotate_left(i * 7) & 7;
                    b | (((r < density) as u64) << i)
                });
                let vals: Vec<i32> = (0..len as i32)
                    .map(|i| i.wrapping_mul(-1_640_531_535))
                    .collect();
                let expected: Vec<i32> = (0..len)
                    .filter(|&i| bits >> i & 1 == 1)
                    .map(|i| vals[i])
                    .collect();
                let mut a = [0i32; BLOCK];
                let mut b = [0i32; BLOCK];
                let na = gather_scalar(&vals, bits, &mut a);
                let nb = gather_i32(&vals, bits, &mut b);
                assert_eq!(&a[..na], &expected[..], "scalar, len {len} bits {bits:x}");
                assert_eq!(&b[..nb], &expected[..], "i32, len {len} bits {bits:x}");
            }
        }
    }
}
