//! A partitioned or bucketed write's rows split by the file they go to.
//!
//! Spark's task writer projects each row's partition values into a new UnsafeRow and evaluates
//! the bucket id expression on it, then finds the row's file by those. [`Splitter`] does that on
//! a batch of whole input rows: a row's key is its partition values as the projected UnsafeRow
//! holds them (two rows share a file exactly when those bytes are equal, as Spark's keys
//! compare) and its bucket id, computed as Spark's `Murmur3Hash` (Spark bucketing) or `HiveHash`
//! (Hive-compatible bucketing) over the bucket columns, `pmod` the bucket count. The rows are
//! then copied grouped by key, each group in input order, so that each file reads its rows as
//! one contiguous run.

use crate::unsafe_row::{checked_row, row_error, var_bytes, SparkType};
use std::collections::HashMap;
use vecruntime_parquet::error::Result;

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

/// A key column: its field position in the rows, type and, for a decimal, scale.
#[derive(Clone, Debug)]
pub struct KeyColumn {
    pub name: String,
    pub position: usize,
    pub ty: SparkType,
    pub scale: i32,
}

impl KeyColumn {
    /// Whether the value sits in the variable-length region (`offset << 32 | size` in its slot).
    fn variable(&self) -> bool {
        matches!(
            self.ty,
            SparkType::String | SparkType::Binary | SparkType::Geo { .. }
        ) || matches!(self.ty, SparkType::Decimal { precision } if precision > 18)
    }

    /// Bytes of a fixed-width value in its slot (the rest of the slot is not the value's).
    fn width(&self) -> usize {
        match self.ty {
            SparkType::Boolean | SparkType::Byte => 1,
            SparkType::Short => 2,
            SparkType::Int | SparkType::Date | SparkType::Float => 4,
            _ => 8,
        }
    }
}

/// The bucket spec: columns, hash, bucket count.
#[derive(Clone, Debug)]
pub struct Bucketing {
    pub columns: Vec<KeyColumn>,
    pub hash: BucketHash,
    pub buckets: i32,
}

/// Whether `hash` can bucket a column of this type as Spark does.
pub fn hashable(ty: SparkType, hash: BucketHash) -> bool {
    match ty {
        SparkType::Geo { .. } | SparkType::Time => false,
        SparkType::LegacyDecimal { .. } => false,
        // Spark's generated HiveHash hashes TIMESTAMP_NTZ as a timestamp, its interpreted one as
        // a long: which one runs is Spark's choice, so that is left to Spark.
        SparkType::TimestampNtz => hash == BucketHash::Murmur3,
        _ => true,
    }
}

/// One file's rows in a split batch: rows `start..start + len` of the grouped copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Group {
    /// Bucket id, or -1 without bucketing.
    pub bucket: i32,
    /// Index in the input batch of the group's first row.
    pub first: usize,
    pub start: usize,
    pub len: usize,
}

/// Splits batches of whole input rows by partition values and bucket id.
pub struct Splitter {
    num_fields: usize,
    partition: Vec<KeyColumn>,
    bucketing: Option<Bucketing>,
    keys: HashMap<Vec<u8>, usize>,
    key: Vec<u8>,
    group_of_row: Vec<u32>,
    groups: Vec<Group>,
}

impl Splitter {
    pub fn new(
        num_fields: usize,
        partition: Vec<KeyColumn>,
        bucketing: Option<Bucketing>,
    ) -> std::result::Result<Self, String> {
        let all = partition
            .iter()
            .chain(bucketing.iter().flat_map(|b| b.columns.iter()));
        for c in all {
            if c.position >= num_fields {
                return Err(format!(
                    "key column '{}' at field {} of rows with {num_fields} fields",
                    c.name, c.position
                ));
            }
        }
        if let Some(b) = &bucketing {
            if b.buckets <= 0 || b.columns.is_empty() {
                return Err(format!(
                    "{} buckets over {} columns",
                    b.buckets,
                    b.columns.len()
                ));
            }
            if let Some(c) = b.columns.iter().find(|c| !hashable(c.ty, b.hash)) {
                return Err(format!(
                    "bucket column '{}' of type {:?} is not hashed natively",
                    c.name, c.ty
                ));
            }
        }
        Ok(Splitter {
            num_fields,
            partition,
            bucketing,
            keys: HashMap::new(),
            key: Vec::new(),
            group_of_row: Vec::new(),
            groups: Vec::new(),
        })
    }

    /// Splits the rows of a batch (`rows`, `offsets` as for the row kernel): copies them grouped
    /// by file into `out` and `out_offsets` (each as large as the input's) and returns the groups
    /// in the order their first rows come.
    pub fn split(
        &mut self,
        rows: &[u8],
        offsets: &[i32],
        out: &mut [u8],
        out_offsets: &mut [i32],
    ) -> Result<&[Group]> {
        let n = offsets.len().saturating_sub(1);
        let words = self.num_fields.div_ceil(64);
        let first_name = self
            .partition
            .first()
            .or(self.bucketing.as_ref().and_then(|b| b.columns.first()))
            .map_or("", |c| c.name.as_str());
        if out.len() < rows.len() || out_offsets.len() < offsets.len() {
            return Err(row_error(
                first_name,
                0,
                "the grouped copy is smaller than the batch".to_string(),
            ));
        }
        self.keys.clear();
        self.groups.clear();
        self.group_of_row.clear();
        self.group_of_row.reserve(n);
        let mut last: Option<usize> = None;
        let mut last_key = Vec::new();
        for r in 0..n {
            let row = checked_row(rows, offsets, r, self.num_fields, first_name)?;
            self.key.clear();
            for c in &self.partition {
                push_key(&mut self.key, row, words, c, r)?;
            }
            let bucket = match &self.bucketing {
                Some(b) => bucket_id(row, words, b, r)?,
                None => -1,
            };
            self.key.extend_from_slice(&bucket.to_le_bytes());
            // Rows of one file often come in runs (input clustered by the partition columns).
            let g = match last {
                Some(g) if last_key == self.key => g,
                _ => {
                    let g = match self.keys.get(&self.key) {
                        Some(&g) => g,
                        None => {
                            let g = self.groups.len();
                            self.keys.insert(self.key.clone(), g);
                            self.groups.push(Group {
                                bucket,
                                first: r,
                                start: 0,
                                len: 0,
                            });
                            g
                        }
                    };
                    std::mem::swap(&mut last_key, &mut self.key);
                    last = Some(g);
                    g
                }
            };
            self.groups[g].len += 1;
            self.group_of_row.push(g as u32);
        }
        // Each group's place in the copy, then the rows in input order into their group's.
        let mut at = 0;
        let mut next = Vec::with_capacity(self.groups.len());
        for g in &mut self.groups {
            g.start = at;
            next.push(at);
            at += g.len;
        }
        let mut byte_at = vec![0usize; self.groups.len()];
        let mut bytes = 0usize;
        let mut sizes = vec![0usize; self.groups.len()];
        for r in 0..n {
            sizes[self.group_of_row[r] as usize] += (offsets[r + 1] - offsets[r]) as usize;
        }
        for (g, size) in sizes.iter().enumerate() {
            byte_at[g] = bytes;
            bytes += size;
        }
        for r in 0..n {
            let g = self.group_of_row[r] as usize;
            let (s, e) = (offsets[r] as usize, offsets[r + 1] as usize);
            let i = next[g];
            next[g] += 1;
            out_offsets[i] = byte_at[g] as i32;
            out[byte_at[g]..byte_at[g] + (e - s)].copy_from_slice(&rows[s..e]);
            byte_at[g] += e - s;
        }
        out_offsets[n] = bytes as i32;
        Ok(&self.groups)
    }
}

/// Appends a partition value to a row's key: a null marker, or the value's bytes.
fn push_key(key: &mut Vec<u8>, row: &[u8], words: usize, c: &KeyColumn, r: usize) -> Result<()> {
    if is_null(row, c.position) {
        key.push(0);
        return Ok(());
    }
    key.push(1);
    let slot = slot(row, words, c.position);
    if c.variable() {
        let bytes = var_bytes(row, u64::from_le_bytes(slot), &c.name, r)?;
        key.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        key.extend_from_slice(bytes);
    } else {
        key.extend_from_slice(&slot[..c.width()]);
    }
    Ok(())
}

fn is_null(row: &[u8], field: usize) -> bool {
    let word = u64::from_le_bytes(
        row[8 * (field / 64)..8 * (field / 64) + 8]
            .try_into()
            .unwrap(),
    );
    word >> (field % 64) & 1 == 1
}

/// A field's 8-byte slot; `words` is the row's null bitset size in 8-byte words.
fn slot(row: &[u8], words: usize, field: usize) -> [u8; 8] {
    let at = 8 * words + 8 * field;
    row[at..at + 8].try_into().unwrap()
}

/// Spark's bucket id of a row: `pmod(hash(bucket columns), buckets)`, Hive's hash first made
/// non-negative (`& Int.MaxValue`) as Spark's Hive-compatible bucket expression does. `row`
/// holds `words` 8-byte words of null bits (a checked row: at least its fixed part).
pub fn bucket_id(row: &[u8], words: usize, b: &Bucketing, r: usize) -> Result<i32> {
    let mut hash = row_hash(row, words, b, r)?;
    if b.hash == BucketHash::Hive {
        hash &= i32::MAX;
    }
    // Spark's pmod for a positive count: the non-negative remainder.
    Ok(hash.rem_euclid(b.buckets))
}

/// Spark's `Murmur3Hash(columns, 42)` or `HiveHash(columns)` of a row's bucket columns.
pub fn row_hash(row: &[u8], words: usize, b: &Bucketing, r: usize) -> Result<i32> {
    let mut hash = match b.hash {
        BucketHash::Murmur3 => 42i32,
        BucketHash::Hive => 0,
    };
    for c in &b.columns {
        let value = if is_null(row, c.position) {
            None
        } else {
            Some(slot(row, words, c.position))
        };
        hash = match b.hash {
            BucketHash::Murmur3 => match value {
                None => hash,
                Some(s) => murmur3_value(row, s, c, hash, r)?,
            },
            BucketHash::Hive => {
                let h = match value {
                    None => 0,
                    Some(s) => hive_value(row, s, c, r)?,
                };
                hash.wrapping_mul(31).wrapping_add(h)
            }
        };
    }
    Ok(hash)
}

fn int_of(s: [u8; 8], c: &KeyColumn) -> i32 {
    match c.ty {
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

fn murmur3_value(row: &[u8], s: [u8; 8], c: &KeyColumn, seed: i32, r: usize) -> Result<i32> {
    Ok(match c.ty {
        SparkType::Boolean
        | SparkType::Byte
        | SparkType::Short
        | SparkType::Int
        | SparkType::Date => murmur3::hash_int(int_of(s, c), seed),
        SparkType::Float => murmur3::hash_int(float_bits(s), seed),
        SparkType::Double => murmur3::hash_long(double_bits(s), seed),
        SparkType::Decimal { precision } if precision > 18 => {
            // The row holds the unscaled value's `BigInteger.toByteArray`, the bytes Spark hashes.
            murmur3::hash_bytes(var_bytes(row, u64::from_le_bytes(s), &c.name, r)?, seed)
        }
        SparkType::String | SparkType::Binary => {
            murmur3::hash_bytes(var_bytes(row, u64::from_le_bytes(s), &c.name, r)?, seed)
        }
        _ => murmur3::hash_long(i64::from_le_bytes(s), seed),
    })
}

fn hive_value(row: &[u8], s: [u8; 8], c: &KeyColumn, r: usize) -> Result<i32> {
    Ok(match c.ty {
        SparkType::Boolean
        | SparkType::Byte
        | SparkType::Short
        | SparkType::Int
        | SparkType::Date => int_of(s, c),
        SparkType::Float => float_bits(s),
        SparkType::Double => hive::hash_long(double_bits(s)),
        SparkType::TimestampInt96 | SparkType::TimestampMicros | SparkType::TimestampMillis => {
            hive::hash_timestamp(i64::from_le_bytes(s))
        }
        SparkType::Decimal { precision } => {
            let unscaled = if precision > 18 {
                let bytes = var_bytes(row, u64::from_le_bytes(s), &c.name, r)?;
                big_endian_i128(bytes).ok_or_else(|| {
                    row_error(
                        &c.name,
                        r,
                        format!("a decimal of {} bytes, more than 16", bytes.len()),
                    )
                })?
            } else {
                i64::from_le_bytes(s) as i128
            };
            hive::hash_decimal(unscaled, c.scale)
        }
        SparkType::String | SparkType::Binary => {
            hive::hash_bytes(var_bytes(row, u64::from_le_bytes(s), &c.name, r)?)
        }
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
mod tests {
    use super::*;

    /// Values from Spark's `Murmur3_x86_32` and Java's `BigDecimal.hashCode`.
    #[test]
    fn hashes_match_sparks_and_javas() {
        assert_eq!(murmur3::hash_int(1, 42), -559580957);
        assert_eq!(murmur3::hash_long(-7, 42), 222034016);
        assert_eq!(
            murmur3::hash_bytes("hello, wörld".as_bytes(), 42),
            -915340218
        );
        // A tail of bytes with the sign bit set: each mixed as a negative int.
        assert_eq!(
            murmur3::hash_bytes(&[0xff, 1, 2, 0x80, 0x90], 7),
            1923272495
        );
        assert_eq!(hive::hash_decimal(4294967296, 2), 963);
        // -123456789012345678901234567890 of scale 5 is normalized to ...789 of scale 4.
        let v: i128 = -123456789012345678901234567890;
        assert_eq!(hive::hash_decimal(v, 5), -354583174);
        assert_eq!(hive::hash_decimal(0, 7), 0);
        assert_eq!(hive::hash_bytes(b"ab"), 31 * 97 + 98);
    }

    fn row(fields: &[Option<&[u8]>], ints: &[Option<i32>]) -> Vec<u8> {
        // Field 0.. are the ints, then the byte strings.
        let n = ints.len() + fields.len();
        let mut buf = vec![0u8; 8 * n.div_ceil(64) + 8 * n];
        let base = 8 * n.div_ceil(64);
        for (i, v) in ints.iter().enumerate() {
            match v {
                Some(v) => buf[base + 8 * i..base + 8 * i + 4].copy_from_slice(&v.to_le_bytes()),
                None => buf[i / 8] |= 1 << (i % 8),
            }
        }
        for (j, v) in fields.iter().enumerate() {
            let i = ints.len() + j;
            match v {
                Some(bytes) => {
                    let offset = buf.len() as u64;
                    buf.extend_from_slice(bytes);
                    buf.resize(buf.len().div_ceil(8) * 8, 0);
                    let slot = offset << 32 | bytes.len() as u64;
                    buf[base + 8 * i..base + 8 * i + 8].copy_from_slice(&slot.to_le_bytes());
                }
                None => buf[i / 8] |= 1 << (i % 8),
            }
        }
        buf
    }

    fn column(name: &str, position: usize, ty: SparkType) -> KeyColumn {
        KeyColumn {
            name: name.to_string(),
            position,
            ty,
            scale: 0,
        }
    }

    fn split_rows(s: &mut Splitter, rows: &[Vec<u8>]) -> (Vec<Group>, Vec<Vec<u8>>) {
        let mut data = Vec::new();
        let mut offsets = vec![0];
        for r in rows {
            data.extend_from_slice(r);
            offsets.push(data.len() as i32);
        }
        let mut out = vec![0u8; data.len()];
        let mut out_offsets = vec![0i32; offsets.len()];
        let groups = s
            .split(&data, &offsets, &mut out, &mut out_offsets)
            .unwrap()
            .to_vec();
        let copied = (0..rows.len())
            .map(|i| out[out_offsets[i] as usize..out_offsets[i + 1] as usize].to_vec())
            .collect();
        (groups, copied)
    }

    /// Rows go to groups by partition values (nulls apart from every value, strings by their
    /// bytes) in the order groups first appear, each group's rows in input order.
    #[test]
    fn rows_are_grouped_by_partition_values_in_input_order() {
        let mut s = Splitter::new(
            2,
            vec![
                column("p", 0, SparkType::Int),
                column("s", 1, SparkType::String),
            ],
            None,
        )
        .unwrap();
        let rows = vec![
            row(&[Some(b"x")], &[Some(1)]),
            row(&[Some(b"x")], &[Some(2)]),
            row(&[Some(b"x")], &[Some(1)]),
            row(&[None], &[Some(1)]),
            row(&[Some(b"")], &[Some(1)]),
            row(&[Some(b"x")], &[None]),
            row(&[Some(b"x")], &[Some(2)]),
            row(&[Some(b"")], &[Some(1)]),
        ];
        let (groups, copied) = split_rows(&mut s, &rows);
        let firsts: Vec<usize> = groups.iter().map(|g| g.first).collect();
        assert_eq!(firsts, vec![0, 1, 3, 4, 5]);
        let lens: Vec<usize> = groups.iter().map(|g| g.len).collect();
        assert_eq!(lens, vec![2, 2, 1, 2, 1]);
        let order = [0, 2, 1, 6, 3, 4, 7, 5];
        for (i, &r) in order.iter().enumerate() {
            assert_eq!(copied[i], rows[r], "copied row {i}");
        }
        assert!(groups.iter().all(|g| g.bucket == -1));
        // A second batch starts afresh.
        let (groups, _) = split_rows(&mut s, &rows[5..6]);
        assert_eq!(
            groups,
            vec![Group {
                bucket: -1,
                first: 0,
                start: 0,
                len: 1
            }]
        );
    }

    #[test]
    fn bucket_ids_are_pmod_of_the_hash() {
        let b = Bucketing {
            columns: vec![column("k", 0, SparkType::Int)],
            hash: BucketHash::Murmur3,
            buckets: 7,
        };
        let mut s = Splitter::new(1, vec![], Some(b)).unwrap();
        let rows: Vec<Vec<u8>> = [Some(1), None, Some(1), Some(-3)]
            .iter()
            .map(|v| row(&[], &[*v]))
            .collect();
        let (groups, _) = split_rows(&mut s, &rows);
        // Spark's `pmod`, as written there.
        #[allow(clippy::manual_rem_euclid)]
        let pmod = |h: i32| ((h % 7) + 7) % 7;
        let buckets: Vec<i32> = groups.iter().map(|g| g.bucket).collect();
        assert_eq!(
            buckets,
            vec![
                pmod(murmur3::hash_int(1, 42)),
                pmod(42),
                pmod(murmur3::hash_int(-3, 42))
            ]
        );
        assert_eq!(groups[0].len, 2);
    }

    #[test]
    fn malformed_rows_are_errors_naming_the_column() {
        let mut s = Splitter::new(1, vec![column("s", 0, SparkType::String)], None).unwrap();
        let mut bad = row(&[Some(b"abc")], &[]);
        bad[8..16].copy_from_slice(&(1000u64 << 32 | 3).to_le_bytes());
        let mut out = vec![0u8; bad.len()];
        let mut out_offsets = vec![0i32; 2];
        let err = s
            .split(&bad, &[0, bad.len() as i32], &mut out, &mut out_offsets)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("'s'") || err.contains("s:") || err.contains(" s "),
            "{err}"
        );
        assert!(err.contains("runs past"), "{err}");
        let short = vec![0u8; 8];
        assert!(s
            .split(&short, &[0, 8], &mut out, &mut out_offsets)
            .is_err());
        assert!(Splitter::new(1, vec![column("x", 3, SparkType::Int)], None).is_err());
    }

    /// A value as an UnsafeRow holds it: its slot's 8 bytes, or variable-length bytes.
    enum V {
        Fixed(u64),
        Var(&'static [u8]),
    }

    /// Rows of `values` (one field each per column) as Spark's UnsafeRowWriter lays them out.
    fn unsafe_row(values: &[Option<&V>]) -> Vec<u8> {
        let n = values.len();
        let base = 8 * n.div_ceil(64);
        let mut buf = vec![0u8; base + 8 * n];
        for (i, v) in values.iter().enumerate() {
            let slot = match v {
                None => {
                    buf[i / 8] |= 1 << (i % 8);
                    continue;
                }
                Some(V::Fixed(bits)) => *bits,
                Some(V::Var(bytes)) => {
                    let offset = buf.len() as u64;
                    buf.extend_from_slice(bytes);
                    buf.resize(buf.len().div_ceil(8) * 8, 0);
                    offset << 32 | bytes.len() as u64
                }
            };
            buf[base + 8 * i..base + 8 * i + 8].copy_from_slice(&slot.to_le_bytes());
        }
        buf
    }

    /// Values of every type Spark buckets by, with Spark's `Murmur3Hash(value, 42)` and
    /// `HiveHash(value)` of each, as Spark 4.2 evaluates them (the row slots as its
    /// UnsafeProjection writes them): nulls, -0.0 and NaN, strings and binaries of 0 to 7 bytes
    /// and 69, decimals of 8 and up to 16 bytes with trailing zeros, timestamps before 1970
    /// with a fraction. Hive's hash of TIMESTAMP_NTZ is not taken natively (`hashable`).
    #[allow(clippy::type_complexity)]
    const SPARK_HASHES: &[(SparkType, i32, Option<V>, i32, Option<i32>)] = &[
        (
            SparkType::Boolean,
            0,
            Some(V::Fixed(0x0000000000000001)),
            -559580957,
            Some(1),
        ),
        (
            SparkType::Boolean,
            0,
            Some(V::Fixed(0x0000000000000000)),
            933211791,
            Some(0),
        ),
        (SparkType::Boolean, 0, None, 42, Some(0)),
        (
            SparkType::Byte,
            0,
            Some(V::Fixed(0x0000000000000080)),
            1110053733,
            Some(-128),
        ),
        (
            SparkType::Byte,
            0,
            Some(V::Fixed(0x000000000000007f)),
            1135925485,
            Some(127),
        ),
        (
            SparkType::Byte,
            0,
            Some(V::Fixed(0x00000000000000ff)),
            -1604776387,
            Some(-1),
        ),
        (
            SparkType::Byte,
            0,
            Some(V::Fixed(0x0000000000000000)),
            933211791,
            Some(0),
        ),
        (
            SparkType::Short,
            0,
            Some(V::Fixed(0x0000000000008000)),
            -1871935946,
            Some(-32768),
        ),
        (
            SparkType::Short,
            0,
            Some(V::Fixed(0x0000000000003039)),
            -2122148428,
            Some(12345),
        ),
        (
            SparkType::Short,
            0,
            Some(V::Fixed(0x000000000000fffe)),
            -1160545675,
            Some(-2),
        ),
        (
            SparkType::Int,
            0,
            Some(V::Fixed(0x0000000080000000)),
            723455942,
            Some(-2147483648),
        ),
        (
            SparkType::Int,
            0,
            Some(V::Fixed(0x000000007fffffff)),
            133916647,
            Some(2147483647),
        ),
        (
            SparkType::Int,
            0,
            Some(V::Fixed(0x00000000fffffff9)),
            -1618159745,
            Some(-7),
        ),
        (
            SparkType::Int,
            0,
            Some(V::Fixed(0x0000000000000000)),
            933211791,
            Some(0),
        ),
        (SparkType::Int, 0, None, 42, Some(0)),
        (
            SparkType::Long,
            0,
            Some(V::Fixed(0x8000000000000000)),
            -853646085,
            Some(-2147483648),
        ),
        (
            SparkType::Long,
            0,
            Some(V::Fixed(0x7fffffffffffffff)),
            -1604625029,
            Some(-2147483648),
        ),
        (
            SparkType::Long,
            0,
            Some(V::Fixed(0xfffffffffffffff9)),
            222034016,
            Some(6),
        ),
        (
            SparkType::Long,
            0,
            Some(V::Fixed(0x0000000100000000)),
            -1307033787,
            Some(1),
        ),
        (
            SparkType::Float,
            0,
            Some(V::Fixed(0x0000000080000000)),
            933211791,
            Some(0),
        ),
        (
            SparkType::Float,
            0,
            Some(V::Fixed(0x0000000000000000)),
            933211791,
            Some(0),
        ),
        (
            SparkType::Float,
            0,
            Some(V::Fixed(0x000000007fc00000)),
            -349261430,
            Some(2143289344),
        ),
        (
            SparkType::Float,
            0,
            Some(V::Fixed(0x00000000ff800000)),
            427440766,
            Some(-8388608),
        ),
        (
            SparkType::Float,
            0,
            Some(V::Fixed(0x000000003fc00000)),
            -221251528,
            Some(1069547520),
        ),
        (
            SparkType::Float,
            0,
            Some(V::Fixed(0x000000009f197a17)),
            2063721625,
            Some(-1625720297),
        ),
        (
            SparkType::Double,
            0,
            Some(V::Fixed(0x8000000000000000)),
            -1670924195,
            Some(0),
        ),
        (
            SparkType::Double,
            0,
            Some(V::Fixed(0x0000000000000000)),
            -1670924195,
            Some(0),
        ),
        (
            SparkType::Double,
            0,
            Some(V::Fixed(0x7ff8000000000000)),
            -1281358385,
            Some(2146959360),
        ),
        (
            SparkType::Double,
            0,
            Some(V::Fixed(0x7ff0000000000000)),
            833680482,
            Some(2146435072),
        ),
        (
            SparkType::Double,
            0,
            Some(V::Fixed(0xfe41eb2d66005835)),
            -1186582214,
            Some(-1740524776),
        ),
        (
            SparkType::Double,
            0,
            Some(V::Fixed(0x3fb999999999999a)),
            -1777758357,
            Some(-1507852285),
        ),
        (
            SparkType::Decimal { precision: 9 },
            2,
            Some(V::Fixed(0xfffffffff8a432eb)),
            -216967921,
            Some(467806839),
        ),
        (
            SparkType::Decimal { precision: 9 },
            2,
            Some(V::Fixed(0x0000000000002710)),
            -1390163592,
            Some(3100),
        ),
        (
            SparkType::Decimal { precision: 9 },
            2,
            Some(V::Fixed(0x0000000000000000)),
            -1670924195,
            Some(0),
        ),
        (
            SparkType::Decimal { precision: 9 },
            2,
            Some(V::Fixed(0x0000000000000001)),
            -1712319331,
            Some(33),
        ),
        (
            SparkType::Decimal { precision: 18 },
            4,
            Some(V::Fixed(0xf21f494c589c0001)),
            1962370902,
            Some(-1571411408),
        ),
        (
            SparkType::Decimal { precision: 18 },
            4,
            Some(V::Fixed(0x01b69b4ba630f0a8)),
            2061378000,
            Some(1028886000),
        ),
        (
            SparkType::Decimal { precision: 18 },
            4,
            Some(V::Fixed(0xffffffffffffffff)),
            -939490007,
            Some(-27),
        ),
        (
            SparkType::Decimal { precision: 38 },
            10,
            Some(V::Var(&[
                253, 159, 79, 160, 4, 24, 3, 78, 232, 95, 219, 14, 29, 32, 140,
            ])),
            -2019030500,
            Some(-1437866113),
        ),
        (
            SparkType::Decimal { precision: 38 },
            10,
            Some(V::Var(&[
                75, 59, 76, 168, 90, 134, 196, 122, 9, 138, 34, 63, 255, 255, 255, 255,
            ])),
            -817514053,
            Some(-427198376),
        ),
        (
            SparkType::Decimal { precision: 38 },
            10,
            Some(V::Var(&[0])),
            -783713497,
            Some(0),
        ),
        (
            SparkType::Decimal { precision: 38 },
            10,
            Some(V::Var(&[
                126, 55, 190, 32, 34, 192, 145, 75, 38, 128, 0, 0, 0,
            ])),
            518637184,
            Some(-544351089),
        ),
        (
            SparkType::Decimal { precision: 38 },
            10,
            Some(V::Var(&[255])),
            1398487324,
            Some(-21),
        ),
        (
            SparkType::Decimal { precision: 38 },
            10,
            Some(V::Var(&[
                180, 196, 179, 87, 165, 121, 59, 133, 246, 117, 221, 192, 0, 0, 0, 1,
            ])),
            1400911110,
            Some(427198396),
        ),
        (
            SparkType::Decimal { precision: 38 },
            10,
            Some(V::Var(&[1])),
            -386724586,
            Some(41),
        ),
        (
            SparkType::Decimal { precision: 38 },
            10,
            Some(V::Var(&[246, 230, 135, 135, 110, 0])),
            1081142916,
            Some(-310154),
        ),
        (
            SparkType::Decimal { precision: 38 },
            10,
            Some(V::Var(&[1, 182, 155, 75, 165, 116, 146, 0])),
            980831254,
            Some(-467806836),
        ),
        (SparkType::String, 0, Some(V::Var(&[])), 142593372, Some(0)),
        (
            SparkType::String,
            0,
            Some(V::Var(&[97])),
            1485273170,
            Some(97),
        ),
        (
            SparkType::String,
            0,
            Some(V::Var(&[97, 98])),
            -97053317,
            Some(3105),
        ),
        (
            SparkType::String,
            0,
            Some(V::Var(&[97, 98, 99])),
            1322437556,
            Some(96354),
        ),
        (
            SparkType::String,
            0,
            Some(V::Var(&[97, 98, 99, 100])),
            -396302900,
            Some(2987074),
        ),
        (
            SparkType::String,
            0,
            Some(V::Var(&[97, 98, 99, 100, 101])),
            814637928,
            Some(92599395),
        ),
        (
            SparkType::String,
            0,
            Some(V::Var(&[
                195, 188, 110, 195, 175, 99, 195, 184, 100, 195, 169,
            ])),
            2043246837,
            Some(2136702515),
        ),
        (
            SparkType::String,
            0,
            Some(V::Var(&[195, 191, 194, 128, 120])),
            -493255370,
            Some(-58334626),
        ),
        (
            SparkType::String,
            0,
            Some(V::Var(&[
                120, 121, 122, 120, 121, 122, 120, 121, 122, 120, 121, 122, 120, 121, 122, 120,
                121, 122, 120, 121, 122, 120, 121, 122, 120, 121, 122, 120, 121, 122, 120, 121,
                122, 120, 121, 122, 120, 121, 122, 120, 121, 122, 120, 121, 122, 120, 121, 122,
                120, 121, 122, 120, 121, 122, 120, 121, 122, 120, 121, 122, 120, 121, 122, 120,
                121, 122, 120, 121, 122,
            ])),
            -1336133311,
            Some(-1058307463),
        ),
        (SparkType::Binary, 0, Some(V::Var(&[])), 142593372, Some(0)),
        (
            SparkType::Binary,
            0,
            Some(V::Var(&[255])),
            1398487324,
            Some(-1),
        ),
        (
            SparkType::Binary,
            0,
            Some(V::Var(&[128, 255, 1])),
            -1935714940,
            Some(-123038),
        ),
        (
            SparkType::Binary,
            0,
            Some(V::Var(&[1, 2, 3, 4, 5])),
            -2064006189,
            Some(986115),
        ),
        (
            SparkType::Binary,
            0,
            Some(V::Var(&[255, 255, 255, 255, 255, 255, 255])),
            -1509417923,
            Some(-917087137),
        ),
        (
            SparkType::Date,
            0,
            Some(V::Fixed(0x0000000000000000)),
            933211791,
            Some(0),
        ),
        (
            SparkType::Date,
            0,
            Some(V::Fixed(0x00000000fffdd78d)),
            -917758866,
            Some(-141427),
        ),
        (
            SparkType::Date,
            0,
            Some(V::Fixed(0x00000000002cc0a0)),
            1135886659,
            Some(2932896),
        ),
        (
            SparkType::Date,
            0,
            Some(V::Fixed(0x00000000fff506c6)),
            -1147107224,
            Some(-719162),
        ),
        (
            SparkType::TimestampMicros,
            0,
            Some(V::Fixed(0x0000000000000000)),
            -1670924195,
            Some(0),
        ),
        (
            SparkType::TimestampMicros,
            0,
            Some(V::Fixed(0xffffffffffffffff)),
            -939490007,
            Some(999),
        ),
        (
            SparkType::TimestampMicros,
            0,
            Some(V::Fixed(0xfffffffffff0bdbf)),
            366770570,
            Some(999),
        ),
        (
            SparkType::TimestampMicros,
            0,
            Some(V::Fixed(0x00060a2418202240)),
            -1935367823,
            Some(504313408),
        ),
        (
            SparkType::TimestampMicros,
            0,
            Some(V::Fixed(0xff23400100d44000)),
            269467232,
            Some(1645969984),
        ),
        (
            SparkType::TimestampMicros,
            0,
            Some(V::Fixed(0x0384440ccc735fff)),
            1413397884,
            Some(1147655751),
        ),
        (
            SparkType::TimestampNtz,
            0,
            Some(V::Fixed(0xffffffffffffffff)),
            -939490007,
            None,
        ),
        (
            SparkType::TimestampNtz,
            0,
            Some(V::Fixed(0x00060a2418202240)),
            -1935367823,
            None,
        ),
    ];

    #[test]
    fn hashes_of_every_bucketable_type_are_sparks() {
        for (i, (ty, scale, value, murmur3, hive)) in SPARK_HASHES.iter().enumerate() {
            let row = unsafe_row(&[value.as_ref()]);
            let column = KeyColumn {
                name: "v".to_string(),
                position: 0,
                ty: *ty,
                scale: *scale,
            };
            let spec = |hash| Bucketing {
                columns: vec![column.clone()],
                hash,
                buckets: 1,
            };
            let got = row_hash(&row, 1, &spec(BucketHash::Murmur3), 0).unwrap();
            assert_eq!(got, *murmur3, "case {i}: Murmur3 of {ty:?}");
            if let Some(hive) = hive {
                let got = row_hash(&row, 1, &spec(BucketHash::Hive), 0).unwrap();
                assert_eq!(got, *hive, "case {i}: HiveHash of {ty:?}");
            }
        }
    }

    /// Several columns: Murmur3 seeds each column's hash with the last (a null passes it on),
    /// Hive's hash is `31 * h + column hash`; then `& Int.MaxValue` for Hive and `pmod`. Spark's
    /// hashes of (-7, 'abc', 0.1d, -1000.5 as decimal(38,10), null, -1000001 micros).
    #[test]
    fn hashes_of_several_columns_chain_as_sparks() {
        let values = [
            Some(V::Fixed(0xffff_fff9)),
            Some(V::Var(b"abc")),
            Some(V::Fixed(0.1f64.to_bits())),
            Some(V::Var(&[246, 230, 135, 135, 110, 0])),
            None,
            Some(V::Fixed(-1000001i64 as u64)),
        ];
        let refs: Vec<Option<&V>> = values.iter().map(Option::as_ref).collect();
        let row = unsafe_row(&refs);
        let types = [
            SparkType::Int,
            SparkType::String,
            SparkType::Double,
            SparkType::Decimal { precision: 38 },
            SparkType::Long,
            SparkType::TimestampMicros,
        ];
        let columns: Vec<KeyColumn> = types
            .iter()
            .enumerate()
            .map(|(i, &ty)| KeyColumn {
                name: format!("c{i}"),
                position: i,
                ty,
                scale: if i == 3 { 10 } else { 0 },
            })
            .collect();
        let spec = |hash, buckets| Bucketing {
            columns: columns.clone(),
            hash,
            buckets,
        };
        assert_eq!(
            row_hash(&row, 1, &spec(BucketHash::Murmur3, 1), 0).unwrap(),
            1614546024
        );
        assert_eq!(
            row_hash(&row, 1, &spec(BucketHash::Hive, 1), 0).unwrap(),
            -1072305405
        );
        // pmod of a positive hash, and of a negative one (Hive's made non-negative first).
        assert_eq!(
            bucket_id(&row, 1, &spec(BucketHash::Murmur3, 1000), 0).unwrap(),
            24
        );
        assert_eq!(
            bucket_id(&row, 1, &spec(BucketHash::Hive, 1000), 0).unwrap(),
            (-1072305405i32 & i32::MAX) % 1000
        );
        let negative = unsafe_row(&[Some(&V::Fixed(0xffff_fff9))]);
        let one = |hash| Bucketing {
            columns: vec![columns[0].clone()],
            hash,
            buckets: 7,
        };
        // Murmur3 of -7 is -1618159745: pmod 7 is 1 where `%` gives -6.
        assert_eq!(
            bucket_id(&negative, 1, &one(BucketHash::Murmur3), 0).unwrap(),
            1
        );
        // Hive's hash of -7 is -7: & Int.MaxValue gives 2147483641, 2 mod 7 (-7 itself: 0).
        assert_eq!(
            bucket_id(&negative, 1, &one(BucketHash::Hive), 0).unwrap(),
            2
        );
    }

    /// Spark compares and hashes a value by its own bytes: an int by 4 bytes of its slot, a
    /// boolean by its first byte. The rest of a slot is not the value's (UnsafeRow's in-place
    /// setters leave it), and Spark's projected partition row holds zeros there.
    #[test]
    fn only_a_values_own_bytes_of_its_slot_count() {
        let cases = [
            (SparkType::Boolean, 0x01u64, 0xdead_0001u64, 0x00u64),
            (SparkType::Byte, 0x05, 0xdead_0005, 0x06),
            (SparkType::Short, 0x0105, 0xdead_0105, 0x0205),
            (SparkType::Int, 0x0100_0105, 0xdead_0100_0105, 0x0200_0105),
            (SparkType::Float, 0x3fc0_0000, 0x7_3fc0_0000, 0x3fc1_0000),
            (SparkType::Date, 0x0100_0105, 0x1_0100_0105, 0x0200_0105),
        ];
        for (ty, clean, dirty, other) in cases {
            let mut s = Splitter::new(1, vec![column("p", 0, ty)], None).unwrap();
            let rows: Vec<Vec<u8>> = [clean, dirty, other]
                .iter()
                .map(|&v| unsafe_row(&[Some(&V::Fixed(v))]))
                .collect();
            let (groups, _) = split_rows(&mut s, &rows);
            let lens: Vec<usize> = groups.iter().map(|g| g.len).collect();
            assert_eq!(lens, vec![2, 1], "{ty:?}");
            let b = |hash| Bucketing {
                columns: vec![column("p", 0, ty)],
                hash,
                buckets: 1,
            };
            for hash in [BucketHash::Murmur3, BucketHash::Hive] {
                assert_eq!(
                    row_hash(&rows[0], 1, &b(hash), 0).unwrap(),
                    row_hash(&rows[1], 1, &b(hash), 1).unwrap(),
                    "{ty:?} {hash:?}"
                );
            }
        }
        // A long's value is its whole slot; a large int is a value, not an offset.
        let mut s = Splitter::new(1, vec![column("p", 0, SparkType::Long)], None).unwrap();
        let rows: Vec<Vec<u8>> = [1u64 << 40, 2 << 40, 1 << 40, 100_000]
            .iter()
            .map(|&v| unsafe_row(&[Some(&V::Fixed(v))]))
            .collect();
        let (groups, _) = split_rows(&mut s, &rows);
        assert_eq!(
            groups.iter().map(|g| g.len).collect::<Vec<_>>(),
            vec![2, 1, 1]
        );
    }

    /// Rows of more than 64 fields: two words of null bits before the slots.
    #[test]
    fn rows_of_many_fields() {
        let n = 70;
        let mut values: Vec<Option<V>> = (0..n).map(|i| Some(V::Fixed(i as u64))).collect();
        values[66] = Some(V::Var(b"abcde"));
        values[3] = None;
        let refs: Vec<Option<&V>> = values.iter().map(Option::as_ref).collect();
        let row = unsafe_row(&refs);
        let b = |position, ty| Bucketing {
            columns: vec![column("c", position, ty)],
            hash: BucketHash::Murmur3,
            buckets: 1,
        };
        let words = 2;
        assert_eq!(
            row_hash(&row, words, &b(65, SparkType::Long), 0).unwrap(),
            murmur3::hash_long(65, 42)
        );
        assert_eq!(
            row_hash(&row, words, &b(66, SparkType::String), 0).unwrap(),
            murmur3::hash_bytes(b"abcde", 42)
        );
        assert_eq!(row_hash(&row, words, &b(3, SparkType::Int), 0).unwrap(), 42);
        let mut s = Splitter::new(n, vec![column("c", 66, SparkType::String)], None).unwrap();
        let (groups, copied) = split_rows(&mut s, &[row.clone(), row.clone()]);
        assert_eq!(groups.len(), 1);
        assert_eq!(copied[1], row);
        // A row one slot short of 70 fields' fixed part.
        let short = &row[..8 * words + 8 * (n - 1)];
        let mut out = vec![0u8; short.len()];
        let mut out_offsets = vec![0i32; 2];
        let err = s
            .split(short, &[0, short.len() as i32], &mut out, &mut out_offsets)
            .unwrap_err()
            .to_string();
        assert!(err.contains("need at least 576"), "{err}");
    }

    #[test]
    fn bad_batches_and_buffers_are_errors() {
        let mut s = Splitter::new(1, vec![column("p", 0, SparkType::Int)], None).unwrap();
        let row = unsafe_row(&[Some(&V::Fixed(1))]);
        let two: Vec<u8> = [row.clone(), row.clone()].concat();
        let mut out = vec![0u8; two.len()];
        let mut out_offsets = vec![0i32; 3];
        for offsets in [[0, 16, 8], [0, 24, 32], [-8, 8, 16], [0, 8, 16]] {
            let mut o = out.clone();
            assert!(
                s.split(&two, &offsets, &mut o, &mut out_offsets).is_err(),
                "{offsets:?}"
            );
        }
        assert!(s
            .split(&two, &[0, 16, 32], &mut out, &mut out_offsets)
            .is_ok());
        assert!(s
            .split(&two, &[0, 16, 32], &mut out[..31], &mut out_offsets)
            .is_err());
        assert!(s
            .split(&two, &[0, 16, 32], &mut out, &mut out_offsets[..2])
            .is_err());
        // Decimal bytes of 0 or more than 16 bytes cannot be a Spark decimal.
        for bytes in [&[][..], &[1u8; 17][..]] {
            let row = unsafe_row(&[Some(&V::Var(bytes))]);
            let b = Bucketing {
                columns: vec![column("d", 0, SparkType::Decimal { precision: 38 })],
                hash: BucketHash::Hive,
                buckets: 1,
            };
            assert!(row_hash(&row, 1, &b, 0).is_err(), "{} bytes", bytes.len());
        }
    }

    /// Types whose hash Spark decides otherwise are not taken (the plugin leaves them to Spark).
    #[test]
    fn bucket_columns_of_types_not_hashed_here_are_refused() {
        let spec = |ty, hash| {
            Splitter::new(
                1,
                vec![],
                Some(Bucketing {
                    columns: vec![column("c", 0, ty)],
                    hash,
                    buckets: 4,
                }),
            )
        };
        assert!(spec(SparkType::TimestampNtz, BucketHash::Murmur3).is_ok());
        assert!(spec(SparkType::TimestampNtz, BucketHash::Hive).is_err());
        for ty in [
            SparkType::Time,
            SparkType::Geo { geography: false },
            SparkType::LegacyDecimal { precision: 9 },
        ] {
            assert!(spec(ty, BucketHash::Murmur3).is_err(), "{ty:?}");
        }
        assert!(spec(SparkType::Int, BucketHash::Murmur3).is_ok());
        let zero = Splitter::new(
            1,
            vec![],
            Some(Bucketing {
                columns: vec![column("c", 0, SparkType::Int)],
                hash: BucketHash::Murmur3,
                buckets: 0,
            }),
        );
        assert!(zero.is_err());
    }
}
