package io.vecruntime.parquet;

/**
 * Compression codecs of the writer, by parquet-java's {@code CompressionCodecName}. A name in a
 * configuration ({@code none}, {@code snappy}, {@code lz4_raw}...) is read natively, with the
 * other options ({@link WriterOptions}).
 */
public enum Codec {
  UNCOMPRESSED,
  SNAPPY,
  GZIP,
  ZSTD,
  /** LZ4 in Hadoop's block framing: what Spark's {@code lz4} means. */
  LZ4,
  LZ4_RAW;
}
