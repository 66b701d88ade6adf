//! vecruntime-kernels: Spark's formats and rules on plain buffers, no JNI.
//!
//! [`unsafe_row`] turns a batch of Spark `UnsafeRow`s (their bytes copied back to back by the
//! JVM) into the Arrow-layout column buffers `vecruntime-parquet` writes, converting each value
//! the way Spark's `ParquetWriteSupport` does (INT96 timestamps, millis, decimals, the calendar
//! rebase of [`rebase`]); structs,
//! arrays and maps become the levels and values of their leaves ([`nested`]).

mod nested;
pub mod rebase;
pub mod split;
pub mod unsafe_row;
pub mod wkb;
