//! Spark's hashes of bucket column values: `Murmur3Hash` (Spark's bucketing, seed 42) and
//! `HiveHash` (Hive-compatible bucketing), on values as an `UnsafeRow` holds them, and which
//! types each can hash as Spark does.

use crate::spark_type::SparkType;

/// Spark's `Murmur3_x86_32` (`org.apache.spark.unsafe.hash`), as its hash expressions call it.
pub mod murmur3 {
    const C1: u32 = 0xcc9e_2d51;
    const C2: u32 = 0x1b87_3593;

    fn mix_k1(k1: u32) -> u32 {
        k1.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2)
    }

    fn mix_h1(h1: u32, k1: u32) -> u32 {
        (h1 ^ k1)
            .rotate_left(13)
            .wrapping_mul(5)
            .wrapping_add(0xe654_6b64)
    }

    fn fmix(mut h1: u32, length: u32) -> u32 {
        h1 ^= length;
        h1 ^= h1 >> 16;
        h1 = h1.wrapping_mul(0x85eb_ca6b);
        h1 ^= h1 >> 13;
        h1 = h1.wrapping_mul(0xc2b2_ae35);
        h1 ^ (h1 >> 16)
    }

    pub fn hash_int(input: i32, seed: i32) -> i32 {
        fmix(mix_h1(seed as u32, mix_k1(input as u32)), 4) as i32
    }

    pub fn hash_long(input: i64, seed: i32) -> i32 {
        let h1 = mix_h1(seed as u32, mix_k1(input as u32));
        let h1 = mix_h1(h1, mix_k1((input as u64 >> 32) as u32));
        fmix(h1, 8) as i32
    }

    /// Spark's `hashUnsafeBytes`: whole little-endian ints, then each trailing byte mixed as a
    /// sign-extended int of its own (not the reference tail, which Spark kept for compatibility).
    pub fn hash_bytes(bytes: &[u8], seed: i32) -> i32 {
        let mut h1 = seed as u32;
        let mut words = bytes.chunks_exact(4);
        for w in &mut words {
            h1 = mix_h1(h1, mix_k1(u32::from_le_bytes([w[0], w[1], w[2], w[3]])));
        }
        for &b in words.remainder() {
            h1 = mix_h1(h1, mix_k1(b as i8 as i32 as u32));
        }
        fmix(h1, bytes.len() as u32) as i32
    }
}

/// Spark's `HiveHasher` and the parts of `HiveHashFunction` a flat value needs.
pub mod hive {
    pub fn hash_long(l: i64) -> i32 {
        (l ^ ((l as u64) >> 32) as i64) as i32
    }

    pub fn hash_bytes(bytes: &[u8]) -> i32 {
        bytes.iter().fold(0i32, |h, &b| {
            h.wrapping_mul(31).wrapping_add(b as i8 as i32)
        })
    }

    /// Hive's `TimestampWritable.hashCode` of a timestamp in micros.
    pub fn hash_timestamp(micros: i64) -> i32 {
        // Java's division and remainder truncate toward zero, as Rust's do.
        let seconds = micros / 1_000_000;
        let nanos = (micros % 1_000_000) * 1000;
        let result = (seconds << 30) | nanos;
        (((result as u64) >> 32) as i64 ^ result) as i32
    }

    /// `normalizeDecimal(d).hashCode()`: trailing zeros stripped (zero as 0 of scale 0, no
    /// negative scale), then Java's `BigDecimal.hashCode`, `31 * unscaled.hashCode() + scale`.
    /// A Spark decimal has at most 38 digits, so Hive's rounding never applies.
    pub fn hash_decimal(mut unscaled: i128, mut scale: i32) -> i32 {
        if unscaled == 0 {
            scale = 0;
        } else {
            while scale > 0 && unscaled % 10 == 0 {
                unscaled /= 10;
                scale -= 1;
            }
        }
        big_integer_hash(unscaled)
            .wrapping_mul(31)
            .wrapping_add(scale)
    }

    /// Java's `BigInteger.hashCode`: the magnitude's 32-bit words from the most significant
    /// non-zero one, `31 * h + word`, times the sign.
    fn big_integer_hash(v: i128) -> i32 {
        let magnitude = v.unsigned_abs();
        let mut h = 0i32;
        let mut started = false;
        for i in (0..4).rev() {
            let word = (magnitude >> (32 * i)) as u32;
            started |= word != 0;
            if started {
                h = h.wrapping_mul(31).wrapping_add(word as i32);
            }
        }
        h.wrapping_mul(v.signum() as i32)
    }
}

/// How rows are bucketed: Spark's (`Murmur3Hash`, seed 42) or Hive-compatible (`HiveHash`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BucketHash {
    Murmur3,
    Hive,
}

/// Whether `hash` can bucket a column of this type as Spark does. The JVM asks this (through
/// `NativeBridge.hashable`) before it plans a native split: a refused column's rows are split by
/// Spark's projections instead (the write stays native), with the reason in the log.
pub fn hashable(ty: SparkType, hash: BucketHash) -> bool {
    match ty {
        SparkType::Geo { .. } | SparkType::Time => false,
        SparkType::LegacyDecimal { .. } | SparkType::FixedBinary { .. } => false,
        // Spark's generated HiveHash hashes TIMESTAMP_NTZ as a timestamp, its interpreted one as
        // a long: which one runs is Spark's choice, so that is left to Spark.
        SparkType::TimestampNtz => hash == BucketHash::Murmur3,
        _ => true,
    }
}

/// A present value of a row: its slot, or the variable-length bytes the slot points at (for a
/// type whose [`SparkType::is_var`] holds).
#[derive(Clone, Copy, Debug)]
pub enum Value<'a> {
    Slot([u8; 8]),
    Bytes(&'a [u8]),
}

impl BucketHash {
    /// The hash of no column.
    pub fn seed(self) -> i32 {
        match self {
            BucketHash::Murmur3 => 42,
            BucketHash::Hive => 0,
        }
    }

    /// The hash after one more column of type `ty` (a decimal's `scale`) holding `value` (None:
    /// null), as Spark chains them: Murmur3 seeds each column's hash with the last (a null
    /// passes it on), Hive's is `31 * h + column hash`. The error is the message for the row.
    pub fn add(
        self,
        hash: i32,
        ty: SparkType,
        scale: i32,
        value: Option<Value>,
    ) -> Result<i32, String> {
        Ok(match (self, value) {
            (BucketHash::Murmur3, None) => hash,
            (BucketHash::Murmur3, Some(v)) => murmur3_value(ty, v, hash),
            (BucketHash::Hive, None) => hash.wrapping_mul(31),
            (BucketHash::Hive, Some(v)) => hash
                .wrapping_mul(31)
                .wrapping_add(hive_value(ty, scale, v)?),
        })
    }

    /// Spark's bucket id of a row's hash: `pmod(hash, buckets)`, Hive's hash first made
    /// non-negative (`& Int.MaxValue`) as Spark's Hive-compatible bucket expression does.
    pub fn bucket(self, mut hash: i32, buckets: i32) -> i32 {
        if self == BucketHash::Hive {
            hash &= i32::MAX;
        }
        // Spark's pmod for a positive count: the non-negative remainder.
        hash.rem_euclid(buckets)
    }
}

fn int_of(ty: SparkType, s: [u8; 8]) -> i32 {
    match ty {
        SparkType::Boolean => (s[0] != 0) as i32,
        SparkType::Byte => s[0] as i8 as i32,
        SparkType::Short => i16::from_le_bytes([s[0], s[1]]) as i32,
        _ => i32::from_le_bytes([s[0], s[1], s[2], s[3]]),
    }
}

/// A float's bits as Java's `floatToIntBits` gives them, -0.0 as 0.0 (Spark's hashes).
fn float_bits(s: [u8; 8]) -> i32 {
    let f = f32::from_le_bytes([s[0], s[1], s[2], s[3]]);
    if f == 0.0 {
        0
    } else if f.is_nan() {
        0x7fc0_0000
    } else {
        f.to_bits() as i32
    }
}

fn double_bits(s: [u8; 8]) -> i64 {
    let d = f64::from_le_bytes(s);
    if d == 0.0 {
        0
    } else if d.is_nan() {
        0x7ff8_0000_0000_0000
    } else {
        d.to_bits() as i64
    }
}

fn murmur3_value(ty: SparkType, v: Value, seed: i32) -> i32 {
    let s = match v {
        // A string, a binary, or a decimal above 18 digits: the row holds the bytes Spark
        // hashes (for the decimal, its unscaled value's `BigInteger.toByteArray`).
        Value::Bytes(bytes) => return murmur3::hash_bytes(bytes, seed),
        Value::Slot(s) => s,
    };
    match ty {
        SparkType::Boolean
        | SparkType::Byte
        | SparkType::Short
        | SparkType::Int
        | SparkType::Date => murmur3::hash_int(int_of(ty, s), seed),
        SparkType::Float => murmur3::hash_int(float_bits(s), seed),
        SparkType::Double => murmur3::hash_long(double_bits(s), seed),
        _ => murmur3::hash_long(i64::from_le_bytes(s), seed),
    }
}

fn hive_value(ty: SparkType, scale: i32, v: Value) -> Result<i32, String> {
    let s = match (ty, v) {
        (SparkType::Decimal { .. }, Value::Bytes(bytes)) => {
            let unscaled = big_endian_i128(bytes)
                .ok_or_else(|| format!("a decimal of {} bytes, more than 16", bytes.len()))?;
            return Ok(hive::hash_decimal(unscaled, scale));
        }
        (_, Value::Bytes(bytes)) => return Ok(hive::hash_bytes(bytes)),
        (_, Value::Slot(s)) => s,
    };
    Ok(match ty {
        SparkType::Boolean
        | SparkType::Byte
        | SparkType::Short
        | SparkType::Int
        | SparkType::Date => int_of(ty, s),
        SparkType::Float => float_bits(s),
        SparkType::Double => hive::hash_long(double_bits(s)),
        SparkType::TimestampInt96 | SparkType::TimestampMicros | SparkType::TimestampMillis => {
            hive::hash_timestamp(i64::from_le_bytes(s))
        }
        SparkType::Decimal { .. } => hive::hash_decimal(i64::from_le_bytes(s) as i128, scale),
        _ => hive::hash_long(i64::from_le_bytes(s)),
    })
}

/// A two's-complement big-endian integer of at most 16 bytes.
fn big_endian_i128(bytes: &[u8]) -> Option<i128> {
    if bytes.is_empty() || bytes.len() > 16 {
        return None;
    }
    let fill = if bytes[0] & 0x80 != 0 { 0xff } else { 0 };
    let mut b = [fill; 16];
    b[16 - bytes.len()..].copy_from_slice(bytes);
    Some(i128::from_be_bytes(b))
}

#[cfg(test)]
mod tests;
