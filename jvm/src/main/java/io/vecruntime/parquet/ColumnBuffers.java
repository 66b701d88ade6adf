package io.vecruntime.parquet;

import java.nio.ByteBuffer;

/**
 * One column of a {@link VectorBuffers} batch in the layout the native writer reads (Arrow's):
 *
 * <ul>
 *   <li>validity: a bitmap, bit {@code i} (byte {@code i / 8}, least significant bit first) set
 *       when row {@code i} holds a value; absent when no row is null;
 *   <li>values: BOOLEAN a bitmap in the same bit order; INT32/INT64/FLOAT/DOUBLE one
 *       little-endian value per row; BYTE_ARRAY the concatenated bytes; FIXED_LEN_BYTE_ARRAY and
 *       INT96 {@code width} bytes per row;
 *   <li>offsets: BYTE_ARRAY only, {@code rows + 1} little-endian ints, row {@code i} is
 *       {@code values[offsets[i]..offsets[i + 1]]}.
 *   <li>definition and repetition levels: nested columns only, one little-endian short per
 *       entry each; values then hold only the entries defined at the column's maximum level,
 *       and validity is absent.
 * </ul>
 *
 * The setters fill a batch row by row; a row never set is null. BYTE_ARRAY values must be set
 * in row order. The buffers themselves are open for callers that fill memory directly.
 */
public final class ColumnBuffers implements AutoCloseable {
  private final ParquetSchema.Column column;
  private NativeBuffer validity;
  private NativeBuffer values;
  private NativeBuffer offsets;
  private NativeBuffer definitionLevels;
  private NativeBuffer repetitionLevels;
  private final int capacity;
  /** BYTE_ARRAY: rows whose end offset is written, and the bytes used. */
  private int rowsWithOffsets;
  private int dataEnd;

  /** Wraps caller-filled buffers (any may be null); they are closed with this column. */
  public ColumnBuffers(ParquetSchema.Column column, NativeBuffer validity, NativeBuffer values,
      NativeBuffer offsets) {
    this.column = column;
    this.validity = validity;
    this.values = values;
    this.offsets = offsets;
    this.capacity = -1;
  }

  /**
   * Wraps caller-filled buffers of a nested column: its values (and offsets) hold only the
   * entries defined at the column's maximum level; the levels say where the rest are null or
   * empty. They are closed with this column.
   */
  public ColumnBuffers(ParquetSchema.Column column, NativeBuffer values, NativeBuffer offsets,
      NativeBuffer definitionLevels, NativeBuffer repetitionLevels) {
    this(column, null, values, offsets);
    this.definitionLevels = definitionLevels;
    this.repetitionLevels = repetitionLevels;
  }

  private ColumnBuffers(ParquetSchema.Column column, int capacity) {
    this.column = column;
    this.capacity = capacity;
    this.validity = NativeBuffer.allocate((capacity + 7) / 8);
    try {
      allocateValues(capacity);
    } catch (RuntimeException e) {
      // The object never exists for its caller to close: free what it holds so far.
      close();
      throw e;
    }
  }

  private void allocateValues(int capacity) {
    switch (column.physical) {
      case BOOLEAN:
        values = NativeBuffer.allocate((capacity + 7) / 8);
        break;
      case INT32:
      case FLOAT:
        values = NativeBuffer.allocate(4L * capacity);
        break;
      case INT64:
      case DOUBLE:
        values = NativeBuffer.allocate(8L * capacity);
        break;
      case BYTE_ARRAY:
        offsets = NativeBuffer.allocate(4L * (capacity + 1));
        values = NativeBuffer.allocate(Math.max(64, 8L * capacity));
        break;
      default:
        values = NativeBuffer.allocate((long) column.typeLength() * capacity);
    }
  }

  static ColumnBuffers allocate(ParquetSchema.Column column, int capacity) {
    return new ColumnBuffers(column, capacity);
  }

  public ParquetSchema.Column column() {
    return column;
  }

  public NativeBuffer validity() {
    return validity;
  }

  public NativeBuffer values() {
    return values;
  }

  public NativeBuffer offsets() {
    return offsets;
  }

  private void checkRow(int row) {
    if (capacity < 0) {
      throw new IllegalStateException("column '" + column.name + "' wraps caller buffers; fill them directly");
    }
    if (row < 0 || row >= capacity) {
      throw new IndexOutOfBoundsException(
          "column '" + column.name + "': row " + row + " outside capacity " + capacity);
    }
  }

  private void checkType(ParquetSchema.PhysicalType... allowed) {
    for (ParquetSchema.PhysicalType t : allowed) {
      if (column.physical == t) {
        return;
      }
    }
    throw new IllegalArgumentException(
        "column '" + column.name + "' is " + column.physical + ", not " + allowed[0]);
  }

  private void markValid(int row) {
    ByteBuffer v = validity.buffer();
    v.put(row >>> 3, (byte) (v.get(row >>> 3) | (1 << (row & 7))));
  }

  public void setNull(int row) {
    checkRow(row);
    ByteBuffer v = validity.buffer();
    v.put(row >>> 3, (byte) (v.get(row >>> 3) & ~(1 << (row & 7))));
  }

  public void setBoolean(int row, boolean value) {
    checkRow(row);
    checkType(ParquetSchema.PhysicalType.BOOLEAN);
    ByteBuffer b = values.buffer();
    int bits = b.get(row >>> 3);
    b.put(row >>> 3, (byte) (value ? bits | (1 << (row & 7)) : bits & ~(1 << (row & 7))));
    markValid(row);
  }

  public void setInt(int row, int value) {
    checkRow(row);
    checkType(ParquetSchema.PhysicalType.INT32);
    values.buffer().putInt(4 * row, value);
    markValid(row);
  }

  public void setLong(int row, long value) {
    checkRow(row);
    checkType(ParquetSchema.PhysicalType.INT64);
    values.buffer().putLong(8 * row, value);
    markValid(row);
  }

  public void setFloat(int row, float value) {
    checkRow(row);
    checkType(ParquetSchema.PhysicalType.FLOAT);
    values.buffer().putFloat(4 * row, value);
    markValid(row);
  }

  public void setDouble(int row, double value) {
    checkRow(row);
    checkType(ParquetSchema.PhysicalType.DOUBLE);
    values.buffer().putDouble(8 * row, value);
    markValid(row);
  }

  /** Rows [row, row + count) from {@code values[from..]}, all valid (clear nulls with setNull). */
  public void setInts(int row, int[] values, int from, int count) {
    bulk(row, count, ParquetSchema.PhysicalType.INT32, 4).asIntBuffer().put(values, from, count);
    markValid(row, count);
  }

  public void setLongs(int row, long[] values, int from, int count) {
    bulk(row, count, ParquetSchema.PhysicalType.INT64, 8).asLongBuffer().put(values, from, count);
    markValid(row, count);
  }

  public void setFloats(int row, float[] values, int from, int count) {
    bulk(row, count, ParquetSchema.PhysicalType.FLOAT, 4).asFloatBuffer().put(values, from, count);
    markValid(row, count);
  }

  public void setDoubles(int row, double[] values, int from, int count) {
    bulk(row, count, ParquetSchema.PhysicalType.DOUBLE, 8).asDoubleBuffer().put(values, from, count);
    markValid(row, count);
  }

  /** The values buffer positioned at {@code row}, after checking the range and the type. */
  private ByteBuffer bulk(int row, int count, ParquetSchema.PhysicalType type, int width) {
    checkRange(row, count);
    checkType(type);
    ByteBuffer b = values.buffer().duplicate().order(java.nio.ByteOrder.LITTLE_ENDIAN);
    b.position(width * row);
    return b;
  }

  private void checkRange(int row, int count) {
    if (count < 0) {
      throw new IllegalArgumentException("column '" + column.name + "': negative count " + count);
    }
    if (count > 0) {
      checkRow(row);
      checkRow(row + count - 1);
    }
  }

  /** Sets the validity bits of rows [row, row + count). */
  private void markValid(int row, int count) {
    ByteBuffer v = validity.buffer();
    int r = row;
    int end = row + count;
    while (r < end && (r & 7) != 0) {
      markValid(r++);
    }
    while (r + 8 <= end) {
      v.put(r >>> 3, (byte) 0xff);
      r += 8;
    }
    while (r < end) {
      markValid(r++);
    }
  }

  public void setBytes(int row, byte[] value) {
    setBytes(row, value, 0, value.length);
  }

  /**
   * BYTE_ARRAY (rows in increasing order), FIXED_LEN_BYTE_ARRAY and INT96 (exactly the width;
   * decimals big-endian two's complement, INT96 as Parquet stores it).
   */
  public void setBytes(int row, byte[] value, int off, int len) {
    checkRow(row);
    checkType(ParquetSchema.PhysicalType.BYTE_ARRAY, ParquetSchema.PhysicalType.FIXED_LEN_BYTE_ARRAY,
        ParquetSchema.PhysicalType.INT96);
    if (column.physical != ParquetSchema.PhysicalType.BYTE_ARRAY) {
      int w = column.typeLength();
      if (len != w) {
        throw new IllegalArgumentException(
            "column '" + column.name + "': value of " + len + " bytes, the column holds " + w);
      }
      values.buffer().put(row * w, value, off, len);
      markValid(row);
      return;
    }
    if (row < rowsWithOffsets) {
      throw new IllegalArgumentException("column '" + column.name + "': row " + row
          + " set after row " + (rowsWithOffsets - 1) + "; BYTE_ARRAY rows are set in order");
    }
    fillOffsets(row);
    long end = (long) dataEnd + len;
    if (end > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("column '" + column.name + "': batch data exceeds 2 GiB");
    }
    ensureData((int) end);
    values.buffer().put(dataEnd, value, off, len);
    dataEnd = (int) end;
    offsets.buffer().putInt(4 * (row + 1), dataEnd);
    rowsWithOffsets = row + 1;
    markValid(row);
  }

  /** Writes the end offsets of rows [rowsWithOffsets, rows) as empty values. */
  private void fillOffsets(int rows) {
    ByteBuffer o = offsets.buffer();
    for (int r = rowsWithOffsets; r < rows; r++) {
      o.putInt(4 * (r + 1), dataEnd);
    }
    rowsWithOffsets = Math.max(rowsWithOffsets, rows);
  }

  private void ensureData(int needed) {
    if (needed <= values.size()) {
      return;
    }
    long size = Math.min(Integer.MAX_VALUE, Math.max(needed, 2 * values.size()));
    NativeBuffer grown = NativeBuffer.allocate(size);
    ByteBuffer src = values.buffer().duplicate();
    src.limit(dataEnd);
    grown.buffer().put(0, src, 0, dataEnd);
    values.close();
    values = grown;
  }

  /** Completes the buffers for a batch of {@code rows} rows. */
  void finish(int rows) {
    if (capacity >= 0 && column.physical == ParquetSchema.PhysicalType.BYTE_ARRAY) {
      fillOffsets(rows);
    }
  }

  /** Clears every row (all null again) so the buffers can hold the next batch. */
  void reset() {
    if (capacity < 0) {
      return;
    }
    ByteBuffer v = validity.buffer();
    for (int i = 0; i < v.capacity(); i++) {
      v.put(i, (byte) 0);
    }
    rowsWithOffsets = 0;
    dataEnd = 0;
  }

  /** Native bytes held by this column's buffers. */
  long capacityInBytes() {
    long n = 0;
    for (NativeBuffer b : buffers()) {
      if (b != null) {
        n += b.size();
      }
    }
    return n;
  }

  void describe(long[] spec, int at) {
    put(spec, at, validity);
    put(spec, at + 2, values);
    put(spec, at + 4, offsets);
    put(spec, at + 6, definitionLevels);
    put(spec, at + 8, repetitionLevels);
  }

  private NativeBuffer[] buffers() {
    return new NativeBuffer[] {validity, values, offsets, definitionLevels, repetitionLevels};
  }

  private static void put(long[] spec, int at, NativeBuffer b) {
    if (b != null && b.size() > 0) {
      spec[at] = b.address();
      spec[at + 1] = b.size();
    }
  }

  @Override
  public void close() {
    for (NativeBuffer b : buffers()) {
      if (b != null) {
        b.close();
      }
    }
  }
}
