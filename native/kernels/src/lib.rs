//! vecruntime-kernels: Spark's formats and rules on plain buffers, no JNI.
//!
//! [`transpose`] turns a batch of Spark `UnsafeRow`s ([`row_layout`], their bytes copied back
//! to back by the JVM) into the Arrow-layout column buffers `vecruntime-parquet` writes,
//! converting each value the way Spark's `ParquetWriteSupport` does ([`spark_type`], [`int96`],
//! the calendar rebase of [`rebase`]); structs, arrays and maps become the levels and values of
//! their leaves (`nested`). [`split`] groups a partitioned or bucketed write's rows by the file
//! they go to, with Spark's bucket hashes ([`spark_hash`]).

pub mod int96;
mod nested;
pub mod rebase;
mod row_layout;
pub mod spark_hash;
pub mod spark_type;
pub mod split;
pub mod transpose;
mod values;
pub mod wkb;

#[cfg(test)]
mod test_rows;
