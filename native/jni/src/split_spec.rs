//! The key columns of `splitRows` as the Java side sends them (`RowSplitter`): [`INTS_PER_KEY`]
//! ints per key column, `[role, field position, row type code, decimal precision, scale]`,
//! with a bucket hash code and the bucket count. Every code is named in
//! [`crate::schema_spec::CODES`], which the Java side checks against its own constants.

use crate::errors::{argument, JniResult};
use crate::schema_spec::row_type;
use vecruntime_kernels::spark_hash::BucketHash;
use vecruntime_kernels::split::{Bucketing, KeyColumn, Splitter};

pub const INTS_PER_KEY: usize = 5;
/// Roles of key columns.
pub const KEY_PARTITION: i32 = 0;
pub const KEY_BUCKET: i32 = 1;
/// Bucket hashes: Spark's `Murmur3Hash` and Hive's `HiveHash`.
pub const HASH_MURMUR3: i32 = 0;
pub const HASH_HIVE: i32 = 1;

/// The bucket hash of a `HASH_*` code.
pub fn bucket_hash(code: i32) -> JniResult<BucketHash> {
    match code {
        HASH_MURMUR3 => Ok(BucketHash::Murmur3),
        HASH_HIVE => Ok(BucketHash::Hive),
        other => Err(argument(format!("unknown bucket hash code {other}"))),
    }
}

/// The splitter `splitRows` describes, its codes checked.
pub fn decode(
    num_fields: i32,
    names: &[String],
    spec: &[i32],
    hash: i32,
    buckets: i32,
) -> JniResult<Splitter> {
    if spec.len() != INTS_PER_KEY * names.len() {
        return Err(argument(format!(
            "key spec has {} ints for {} columns ({INTS_PER_KEY} each)",
            spec.len(),
            names.len()
        )));
    }
    let num_fields = usize::try_from(num_fields)
        .map_err(|_| argument(format!("row field count {num_fields} is negative")))?;
    let mut partition = Vec::new();
    let mut bucket_columns = Vec::new();
    for (k, name) in spec.chunks_exact(INTS_PER_KEY).zip(names) {
        let ty = row_type(k[2], k[3]).ok_or_else(|| {
            argument(format!(
                "key column '{name}': unknown row type code {} / {}",
                k[2], k[3]
            ))
        })?;
        let position = usize::try_from(k[1])
            .map_err(|_| argument(format!("key column '{name}': negative position")))?;
        let column = KeyColumn {
            name: name.clone(),
            position,
            ty,
            scale: k[4],
        };
        match k[0] {
            KEY_PARTITION => partition.push(column),
            KEY_BUCKET => bucket_columns.push(column),
            other => {
                return Err(argument(format!(
                    "key column '{name}': unknown role code {other}"
                )))
            }
        }
    }
    let bucketing = if bucket_columns.is_empty() {
        None
    } else {
        let hash = bucket_hash(hash)?;
        Some(Bucketing {
            columns: bucket_columns,
            hash,
            buckets,
        })
    };
    Splitter::new(num_fields, partition, bucketing).map_err(argument)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema_spec::ROW_INT;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("k{i}")).collect()
    }

    #[test]
    fn split_specs_are_checked_naming_the_column() {
        let int = ROW_INT;
        let ok = |spec: &[i32], hash, buckets| {
            decode(3, &names(spec.len() / 5), spec, hash, buckets).map(|_| ())
        };
        assert!(ok(&[KEY_PARTITION, 0, int, 0, 0], HASH_MURMUR3, 0).is_ok());
        assert!(ok(&[KEY_BUCKET, 2, int, 0, 0], HASH_HIVE, 4).is_ok());
        let err = |spec: &[i32], hash, buckets| {
            let e = decode(3, &names(spec.len() / 5), spec, hash, buckets).err();
            e.map(|e| format!("{e:?}")).unwrap_or_default()
        };
        assert!(err(&[KEY_PARTITION, 0, int, 0], HASH_MURMUR3, 0).contains("4 ints for 0"));
        assert!(err(&[7, 0, int, 0, 0], HASH_MURMUR3, 0).contains("'k0': unknown role code 7"));
        assert!(err(&[KEY_BUCKET, 0, int, 0, 0], 9, 4).contains("unknown bucket hash code 9"));
        assert!(err(&[KEY_BUCKET, -1, int, 0, 0], HASH_MURMUR3, 4).contains("'k0': negative"));
        assert!(err(&[KEY_BUCKET, 0, 99, 0, 0], HASH_MURMUR3, 4).contains("'k0': unknown row"));
        assert!(err(&[KEY_BUCKET, 3, int, 0, 0], HASH_MURMUR3, 4).contains("'k0'"));
        assert!(decode(-1, &[], &[], HASH_MURMUR3, 0).is_err());
    }
}
