//! vecruntime-parquet: a native Parquet v2 writer.
//!
//! Column buffers in Arrow's layout ([`column`]) go in batch after batch; complete Parquet
//! files (data page v2, v2 encodings as parquet-java chooses them under
//! `WriterVersion.PARQUET_2_0`, statistics, column and offset indexes, bloom filters) come out
//! of any [`std::io::Write`] (a [`Sink`]). Nothing here knows about JNI or Spark.
//!
//! ```
//! use vecruntime_parquet::*;
//! let schema = Schema::new(vec![Field::new("id", PhysicalType::Int64, false)]).unwrap();
//! let mut out = Vec::new();
//! let mut w = FileWriter::new(&mut out, schema, WriterOptions::default()).unwrap();
//! let ids = [1i64, 2, 3];
//! w.write_batch(&Batch { num_rows: 3, columns: vec![ColumnView::new(ColumnData::Int64(&ids))] })
//!     .unwrap();
//! let summary = w.close().unwrap();
//! assert_eq!(summary.num_rows, 3);
//! ```

pub mod bloom_filter;
pub mod buffers;
mod chunk;
pub mod column;
pub mod compression;
pub mod encoding;
pub mod error;
mod format;
pub mod geospatial;
pub mod options;
pub mod page_index;
pub mod properties;
pub mod schema;
pub mod sink;
pub mod statistics;
pub mod summary;
mod thrift;
mod writer;

pub use column::{Batch, ColumnData, ColumnView};
pub use encoding::Encoding;
pub use error::Error;
pub use options::{BloomFilterOptions, Codec, WriterOptions, WriterVersion};
pub use schema::{
    ColumnDescriptor, EdgeAlgorithm, Field, Group, GroupType, LogicalType, Node, PhysicalType,
    Repetition, Schema, TimeUnit,
};
pub use sink::Sink;
pub use summary::{ColumnChunkSummary, FooterSummary, RowGroupSummary};
pub use writer::{FileWriter, CREATED_BY};
