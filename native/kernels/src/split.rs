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

use crate::row_layout::{checked_row, is_null, row_error, slot, var_bytes};
use crate::spark_hash::{hashable, BucketHash, Value};
use crate::spark_type::SparkType;
use std::collections::HashMap;
use vecruntime_parquet::error::Result;

/// A key column: its field position in the rows, type and, for a decimal, scale.
#[derive(Clone, Debug)]
pub struct KeyColumn {
    pub name: String,
    pub position: usize,
    pub ty: SparkType,
    pub scale: i32,
}

impl KeyColumn {
    /// The column's value in a checked row of `num_fields` fields (None when null).
    fn value<'a>(&self, row: &'a [u8], num_fields: usize, r: usize) -> Result<Option<Value<'a>>> {
        if is_null(row, self.position) {
            return Ok(None);
        }
        let s = slot(row, num_fields, self.position);
        Ok(Some(if self.ty.is_var() {
            Value::Bytes(var_bytes(row, u64::from_le_bytes(s), &self.name, r)?)
        } else {
            Value::Slot(s)
        }))
    }
}

/// The bucket spec: columns, hash, bucket count.
#[derive(Clone, Debug)]
pub struct Bucketing {
    pub columns: Vec<KeyColumn>,
    pub hash: BucketHash,
    pub buckets: i32,
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
        let first_name = self
            .partition
            .first()
            .or(self.bucketing.as_ref().and_then(|b| b.columns.first()))
            .map_or(String::new(), |c| c.name.clone());
        if out.len() < rows.len() || out_offsets.len() < offsets.len() {
            return Err(row_error(
                &first_name,
                0,
                "the grouped copy is smaller than the batch".to_string(),
            ));
        }
        self.group_rows(rows, offsets, &first_name)?;
        self.copy_grouped(rows, offsets, out, out_offsets);
        Ok(&self.groups)
    }

    /// Finds each row's group by its key (partition values and bucket id), the groups numbered
    /// in the order their first rows come.
    fn group_rows(&mut self, rows: &[u8], offsets: &[i32], first_name: &str) -> Result<()> {
        let n = offsets.len().saturating_sub(1);
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
                push_key(&mut self.key, c.value(row, self.num_fields, r)?, c.ty);
            }
            let bucket = match &self.bucketing {
                Some(b) => bucket_id(row, self.num_fields, b, r)?,
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
        Ok(())
    }

    /// Places each group in the copy, then copies the rows in input order into their group's
    /// place (the rows were checked by [`Self::group_rows`]).
    fn copy_grouped(
        &mut self,
        rows: &[u8],
        offsets: &[i32],
        out: &mut [u8],
        out_offsets: &mut [i32],
    ) {
        let n = offsets.len().saturating_sub(1);
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
    }
}

/// Appends a partition value to a row's key: a null marker, or the value's own bytes (two rows
/// share a file exactly when these are equal, as Spark's projected keys compare).
fn push_key(key: &mut Vec<u8>, value: Option<Value>, ty: SparkType) {
    match value {
        None => key.push(0),
        Some(Value::Bytes(bytes)) => {
            key.push(1);
            key.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
            key.extend_from_slice(bytes);
        }
        Some(Value::Slot(s)) => {
            key.push(1);
            key.extend_from_slice(&s[..ty.value_width()]);
        }
    }
}

/// Spark's bucket id of a row ([`BucketHash::bucket`] of [`row_hash`]). `row` is a checked row
/// of `num_fields` fields.
pub fn bucket_id(row: &[u8], num_fields: usize, b: &Bucketing, r: usize) -> Result<i32> {
    Ok(b.hash.bucket(row_hash(row, num_fields, b, r)?, b.buckets))
}

/// Spark's `Murmur3Hash(columns, 42)` or `HiveHash(columns)` of a row's bucket columns.
pub fn row_hash(row: &[u8], num_fields: usize, b: &Bucketing, r: usize) -> Result<i32> {
    let mut hash = b.hash.seed();
    for c in &b.columns {
        let value = c.value(row, num_fields, r)?;
        hash = b
            .hash
            .add(hash, c.ty, c.scale, value)
            .map_err(|m| row_error(&c.name, r, m))?;
    }
    Ok(hash)
}

#[cfg(test)]
mod tests;
