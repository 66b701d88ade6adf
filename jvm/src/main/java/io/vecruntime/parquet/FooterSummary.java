package io.vecruntime.parquet;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** What the writer put in the footer: rows, sizes and, per row group and column chunk, its metadata. */
public final class FooterSummary {
  private final long numRows;
  private final long fileSize;
  private final long footerSize;
  private final List<RowGroup> rowGroups;

  private FooterSummary(long numRows, long fileSize, long footerSize, List<RowGroup> rowGroups) {
    this.numRows = numRows;
    this.fileSize = fileSize;
    this.footerSize = footerSize;
    this.rowGroups = Collections.unmodifiableList(rowGroups);
  }

  public long numRows() {
    return numRows;
  }

  /** Bytes of the whole file, magic to magic. */
  public long fileSize() {
    return fileSize;
  }

  public long footerSize() {
    return footerSize;
  }

  public List<RowGroup> rowGroups() {
    return rowGroups;
  }

  /** One row group. */
  public static final class RowGroup {
    private final long numRows;
    private final long totalByteSize;
    private final long compressedSize;
    private final List<ColumnChunk> columns;

    RowGroup(long numRows, long totalByteSize, long compressedSize, List<ColumnChunk> columns) {
      this.numRows = numRows;
      this.totalByteSize = totalByteSize;
      this.compressedSize = compressedSize;
      this.columns = Collections.unmodifiableList(columns);
    }

    public long numRows() {
      return numRows;
    }

    public long totalByteSize() {
      return totalByteSize;
    }

    public long compressedSize() {
      return compressedSize;
    }

    public List<ColumnChunk> columns() {
      return columns;
    }
  }

  /** One column chunk. Min and max are plain-encoded, null when the footer has none. */
  public static final class ColumnChunk {
    private final List<String> path;
    private final List<String> encodings;
    private final long compressedSize;
    private final long uncompressedSize;
    private final long numValues;
    private final long nullCount;
    private final byte[] min;
    private final byte[] max;
    private final boolean dictionaryPage;
    private final boolean dictionaryFallback;
    private final long bloomFilterBytes;
    private final boolean columnIndex;
    private final byte[] wholeMin;
    private final byte[] wholeMax;

    ColumnChunk(List<String> path, List<String> encodings, long compressedSize, long uncompressedSize,
        long numValues, long nullCount, byte[] min, byte[] max, boolean dictionaryPage,
        boolean dictionaryFallback, long bloomFilterBytes, boolean columnIndex, byte[] wholeMin,
        byte[] wholeMax) {
      this.path = Collections.unmodifiableList(path);
      this.encodings = Collections.unmodifiableList(encodings);
      this.compressedSize = compressedSize;
      this.uncompressedSize = uncompressedSize;
      this.numValues = numValues;
      this.nullCount = nullCount;
      this.min = min;
      this.max = max;
      this.dictionaryPage = dictionaryPage;
      this.dictionaryFallback = dictionaryFallback;
      this.bloomFilterBytes = bloomFilterBytes;
      this.columnIndex = columnIndex;
      this.wholeMin = wholeMin;
      this.wholeMax = wholeMax;
    }

    /** Names from the root's child down to the leaf. */
    public List<String> path() {
      return path;
    }

    /** The path joined by dots, as parquet-java's {@code ColumnPath.toDotString}. */
    public String name() {
      return String.join(".", path);
    }

    /** Encoding names as in parquet.thrift (PLAIN, RLE_DICTIONARY, DELTA_BYTE_ARRAY...). */
    public List<String> encodings() {
      return encodings;
    }

    public long compressedSize() {
      return compressedSize;
    }

    public long uncompressedSize() {
      return uncompressedSize;
    }

    public long numValues() {
      return numValues;
    }

    public long nullCount() {
      return nullCount;
    }

    public byte[] min() {
      return min == null ? null : min.clone();
    }

    public byte[] max() {
      return max == null ? null : max.clone();
    }

    /**
     * The chunk's least value, plain-encoded and whole: the footer's, or the chunk's own where
     * the footer's is left out (min and max over 4 KiB) or cut
     * ({@code parquet.statistics.truncate.length}). Null when the chunk has no value or its type
     * no order (INT96), or statistics are off for it.
     */
    public byte[] wholeMin() {
      return wholeMin != null ? wholeMin.clone() : min();
    }

    /** The chunk's greatest value, as {@link #wholeMin()}. */
    public byte[] wholeMax() {
      return wholeMax != null ? wholeMax.clone() : max();
    }

    public boolean hasDictionaryPage() {
      return dictionaryPage;
    }

    /**
     * True when the chunk has a dictionary page and data pages that are not dictionary-encoded
     * after it: the dictionary outgrew its limit and the writer fell back, as parquet-java does.
     */
    public boolean dictionaryFallback() {
      return dictionaryFallback;
    }

    /** Bytes of the bloom filter bitset, -1 when the chunk has none. */
    public long bloomFilterBytes() {
      return bloomFilterBytes;
    }

    public boolean hasColumnIndex() {
      return columnIndex;
    }
  }

  private static final String[] ENCODINGS = {
    "PLAIN", "GROUP_VAR_INT", "PLAIN_DICTIONARY", "RLE", "BIT_PACKED", "DELTA_BINARY_PACKED",
    "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY", "RLE_DICTIONARY", "BYTE_STREAM_SPLIT"
  };

  /** Decodes native/jni's summary_codec layout. */
  static FooterSummary decode(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    long numRows = b.getLong();
    long fileSize = b.getLong();
    long footerSize = b.getLong();
    int groups = b.getInt();
    List<RowGroup> rowGroups = new ArrayList<>(groups);
    for (int g = 0; g < groups; g++) {
      long rows = b.getLong();
      long total = b.getLong();
      long compressed = b.getLong();
      int ncols = b.getInt();
      List<ColumnChunk> cols = new ArrayList<>(ncols);
      for (int c = 0; c < ncols; c++) {
        int depth = b.getInt();
        List<String> path = new ArrayList<>(depth);
        for (int p = 0; p < depth; p++) {
          path.add(new String(bytes(b), StandardCharsets.UTF_8));
        }
        int nenc = b.getInt();
        List<String> encs = new ArrayList<>(nenc);
        for (int e = 0; e < nenc; e++) {
          int id = b.getInt();
          encs.add(id >= 0 && id < ENCODINGS.length ? ENCODINGS[id] : "UNKNOWN(" + id + ")");
        }
        long cs = b.getLong();
        long us = b.getLong();
        long nv = b.getLong();
        long nc = b.getLong();
        byte[] min = bytes(b);
        byte[] max = bytes(b);
        boolean dict = b.get() != 0;
        boolean fallback = b.get() != 0;
        long bloom = b.getLong();
        boolean index = b.get() != 0;
        byte[] wholeMin = bytes(b);
        byte[] wholeMax = bytes(b);
        cols.add(new ColumnChunk(path, encs, cs, us, nv, nc, min, max, dict, fallback, bloom,
            index, wholeMin, wholeMax));
      }
      rowGroups.add(new RowGroup(rows, total, compressed, cols));
    }
    return new FooterSummary(numRows, fileSize, footerSize, rowGroups);
  }

  private static byte[] bytes(ByteBuffer b) {
    int n = b.getInt();
    if (n < 0) {
      return null;
    }
    byte[] out = new byte[n];
    b.get(out);
    return out;
  }
}
