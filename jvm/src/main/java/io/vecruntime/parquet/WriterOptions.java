package io.vecruntime.parquet;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Writer settings, with parquet-java's defaults. They reach the native writer as parquet-java's
 * own configuration keys ({@link #toProperties()}), so a Hadoop configuration maps onto them
 * one to one: the native writer is their one reader, which {@link Builder#build} asks at once
 * (a bad value is its IllegalArgumentException naming the key).
 */
public final class WriterOptions {
  private final Map<String, String> properties;
  private final Map<String, String> keyValueMetadata;
  private final Codec codec;

  private WriterOptions(Builder b) {
    this.properties = Collections.unmodifiableMap(new LinkedHashMap<>(b.properties));
    this.keyValueMetadata = Collections.unmodifiableMap(new LinkedHashMap<>(b.metadata));
    String[] keys = properties.keySet().toArray(new String[0]);
    String[] values = properties.values().toArray(new String[0]);
    this.codec = Codec.valueOf(NativeBridge.checkOptions(keys, values));
  }

  /** The keys the native writer takes, {@code key#} standing for {@code key#column}. */
  private static final class Keys {
    static final Set<String> ALL = new HashSet<>(Arrays.asList(NativeBridge.optionKeys()));
  }

  /**
   * Whether the native writer takes {@code key} (parquet-java's name, {@code #column} after a
   * column's): the keys of a Hadoop configuration to pass on.
   */
  public static boolean takes(String key) {
    int hash = key.indexOf('#');
    return Keys.ALL.contains(hash < 0 ? key : key.substring(0, hash + 1));
  }

  public static Builder builder() {
    return new Builder();
  }

  public static WriterOptions defaults() {
    return builder().build();
  }

  /** The codec the settings choose. */
  public Codec codec() {
    return codec;
  }

  /** The settings as parquet-java configuration keys and values. */
  public Map<String, String> toProperties() {
    return properties;
  }

  /** Footer key/value metadata, in insertion order. */
  public Map<String, String> keyValueMetadata() {
    return keyValueMetadata;
  }

  public static final class Builder {
    private final Map<String, String> properties = new LinkedHashMap<>();
    private final Map<String, String> metadata = new LinkedHashMap<>();

    private Builder() {
      properties.put("parquet.compression", Codec.SNAPPY.name());
    }

    private Builder set(String key, Object value) {
      properties.put(key, String.valueOf(value));
      return this;
    }

    /** Default SNAPPY, as Spark's. */
    public Builder codec(Codec codec) {
      Objects.requireNonNull(codec, "codec");
      properties.remove("parquet.compression.codec.zstd.level");
      properties.remove("zlib.compress.level");
      return set("parquet.compression", codec.name());
    }

    /** A codec with a level: ZSTD (default 3) or GZIP (0..9, default 6). */
    public Builder codec(Codec codec, int level) {
      codec(codec);
      switch (codec) {
        case ZSTD:
          return set("parquet.compression.codec.zstd.level", level);
        case GZIP:
          return set("zlib.compress.level", level);
        default:
          throw new IllegalArgumentException("codec " + codec + " has no level");
      }
    }

    /** {@code parquet.page.size}, default 1 MiB of raw values. */
    public Builder pageSize(long bytes) {
      return set("parquet.page.size", bytes);
    }

    /** {@code parquet.dictionary.page.size}, default 1 MiB. */
    public Builder dictionaryPageSize(long bytes) {
      return set("parquet.dictionary.page.size", bytes);
    }

    /** {@code parquet.block.size}, default 128 MiB. */
    public Builder rowGroupSize(long bytes) {
      return set("parquet.block.size", bytes);
    }

    /** {@code parquet.page.row.count.limit}, default 20,000. */
    public Builder pageRowCountLimit(int rows) {
      return set("parquet.page.row.count.limit", rows);
    }

    /** {@code parquet.enable.dictionary}, default true. */
    public Builder dictionaryEnabled(boolean enabled) {
      return set("parquet.enable.dictionary", enabled);
    }

    /** {@code parquet.enable.dictionary#column}. */
    public Builder dictionaryEnabled(String column, boolean enabled) {
      return set("parquet.enable.dictionary#" + column, enabled);
    }

    /** BYTE_STREAM_SPLIT instead of the column's fallback encoding. */
    public Builder byteStreamSplit(String column, boolean enabled) {
      return set("parquet.enable.bytestreamsplit#" + column, enabled);
    }

    /** {@code parquet.column.statistics.enabled}; null counts are always written. */
    public Builder statisticsEnabled(boolean enabled) {
      return set("parquet.column.statistics.enabled", enabled);
    }

    /**
     * {@code parquet.writer.version}: 2 (the default) writes data page v2 and the v2 encodings;
     * 1 writes data page v1 with parquet-java's v1 encodings, for readers without v2 pages.
     */
    public Builder writerVersion(int version) {
      return set("parquet.writer.version", "v" + version);
    }

    /** {@code parquet.page.write-checksum.enabled}, default true. */
    public Builder pageChecksum(boolean enabled) {
      return set("parquet.page.write-checksum.enabled", enabled);
    }

    /**
     * {@code vecruntime.rle.parquet-java-runs}, default false: RLE runs of 1-bit values
     * (definition levels, ids of dictionaries of up to 2 entries) start at 8 repeats as
     * parquet-java's do, and those bytes are parquet-java's. Off, they start at 24 repeats,
     * which makes typical definition levels about 15% smaller.
     */
    public Builder parquetJavaRuns(boolean enabled) {
      return set("vecruntime.rle.parquet-java-runs", enabled);
    }

    /**
     * {@code vecruntime.delta-binary-packed}, default true: in v2 pages, INT32/INT64 values
     * without a dictionary are DELTA_BINARY_PACKED (parquet-java's choice); false writes them
     * PLAIN, for readers that misread DELTA_BINARY_PACKED (Spark 4.2's vectorized reader when
     * it skips pages by the column index).
     */
    public Builder deltaBinaryPacked(boolean enabled) {
      return set("vecruntime.delta-binary-packed", enabled);
    }

    /** {@code parquet.columnindex.truncate.length}, default 64. */
    public Builder columnIndexTruncateLength(int bytes) {
      return set("parquet.columnindex.truncate.length", bytes);
    }

    /**
     * {@code parquet.statistics.truncate.length}, default none: string and binary chunk
     * statistics cut to this many bytes, as parquet-java cuts them.
     */
    public Builder statisticsTruncateLength(int bytes) {
      return set("parquet.statistics.truncate.length", bytes);
    }

    /** {@code parquet.bloom.filter.max.bytes}, default 1 MiB. */
    public Builder bloomFilterMaxBytes(int bytes) {
      return set("parquet.bloom.filter.max.bytes", bytes);
    }

    /** A bloom filter for {@code column} ({@code parquet.bloom.filter.*#column}). */
    public Builder bloomFilter(String column, BloomFilterSettings s) {
      set("parquet.bloom.filter.enabled#" + column, true);
      if (s.expectedNdv != null) {
        set("parquet.bloom.filter.expected.ndv#" + column, s.expectedNdv);
      }
      set("parquet.bloom.filter.fpp#" + column, s.fpp);
      set("parquet.bloom.filter.adaptive.enabled#" + column, s.adaptive);
      return set("parquet.bloom.filter.candidates.number#" + column, s.candidates);
    }

    /**
     * Any other parquet-java key the native writer knows ({@code parquet.page.size.row.check.min},
     * {@code parquet.block.row.count.limit}...). An unknown key fails {@link #build}.
     */
    public Builder property(String key, String value) {
      return set(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
    }

    /** A footer key/value pair. */
    public Builder keyValueMetadata(String key, String value) {
      metadata.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    public WriterOptions build() {
      return new WriterOptions(this);
    }
  }
}
