package io.vecruntime.parquet;

import java.util.Locale;

/** Compression codecs of the writer, by parquet-java's {@code CompressionCodecName}. */
public enum Codec {
  UNCOMPRESSED,
  SNAPPY,
  GZIP,
  ZSTD,
  /** LZ4 in Hadoop's block framing: what Spark's {@code lz4} means. */
  LZ4,
  LZ4_RAW;

  /** Parses Spark's and parquet-java's names ({@code none}, {@code snappy}, {@code lz4_raw}...). */
  public static Codec fromName(String name) {
    String n = name.trim().toUpperCase(Locale.ROOT);
    if (n.equals("NONE")) {
      return UNCOMPRESSED;
    }
    for (Codec c : values()) {
      if (c.name().equals(n)) {
        return c;
      }
    }
    throw new IllegalArgumentException("unsupported codec '" + name + "' (supported: none, "
        + "uncompressed, snappy, gzip, zstd, lz4, lz4_raw)");
  }
}
