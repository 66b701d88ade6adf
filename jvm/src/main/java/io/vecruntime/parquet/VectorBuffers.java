package io.vecruntime.parquet;

/**
 * A batch of rows as off-heap column buffers, one {@link ColumnBuffers} per schema column, in
 * exactly the layout native/parquet reads. Native memory is freed on {@link #close()}.
 */
public final class VectorBuffers implements AutoCloseable {
  private final ParquetSchema schema;
  private final ColumnBuffers[] columns;
  private final int capacity;
  private int rowCount;
  private boolean closed;

  private VectorBuffers(ParquetSchema schema, ColumnBuffers[] columns, int capacity, int rowCount) {
    this.schema = schema;
    this.columns = columns;
    this.capacity = capacity;
    this.rowCount = rowCount;
  }

  /** Buffers for up to {@code capacity} rows of {@code schema}, every row null until set. */
  public static VectorBuffers allocate(ParquetSchema schema, int capacity) {
    if (capacity < 0) {
      throw new IllegalArgumentException("capacity " + capacity + " is negative");
    }
    ColumnBuffers[] cols = new ColumnBuffers[schema.size()];
    try {
      for (int i = 0; i < cols.length; i++) {
        cols[i] = ColumnBuffers.allocate(schema.column(i), capacity);
      }
    } catch (RuntimeException e) {
      for (ColumnBuffers c : cols) {
        if (c != null) {
          c.close();
        }
      }
      throw e;
    }
    return new VectorBuffers(schema, cols, capacity, 0);
  }

  /**
   * A batch over caller-filled buffers; the native writer checks them against the row count and
   * the schema. The buffers are closed with this batch.
   */
  public static VectorBuffers wrap(ParquetSchema schema, int rowCount, ColumnBuffers... columns) {
    if (columns.length != schema.size()) {
      throw new IllegalArgumentException(
          "batch has " + columns.length + " columns, schema has " + schema.size());
    }
    return new VectorBuffers(schema, columns.clone(), -1, rowCount);
  }

  public ParquetSchema schema() {
    return schema;
  }

  public ColumnBuffers column(int i) {
    checkOpen();
    return columns[i];
  }

  public ColumnBuffers column(String name) {
    checkOpen();
    for (ColumnBuffers c : columns) {
      if (c.column().name().equals(name)) {
        return c;
      }
    }
    throw new IllegalArgumentException("no column '" + name + "' in the schema");
  }

  public int capacity() {
    return capacity;
  }

  public int rowCount() {
    return rowCount;
  }

  /** The number of rows of this batch (rows [0, n) are written). */
  public void setRowCount(int n) {
    checkOpen();
    if (n < 0 || (capacity >= 0 && n > capacity)) {
      throw new IllegalArgumentException("row count " + n + " outside 0.." + capacity);
    }
    rowCount = n;
  }

  /** Clears every row so the buffers take the next batch. */
  public void reset() {
    checkOpen();
    for (ColumnBuffers c : columns) {
      c.reset();
    }
    rowCount = 0;
  }

  /** The (address, length) pairs the native writer reads, three per column. */
  long[] describe(ParquetSchema writerSchema) {
    checkOpen();
    if (schema.size() != writerSchema.size()) {
      throw new IllegalArgumentException("batch has " + schema.size()
          + " columns, the writer's schema has " + writerSchema.size());
    }
    for (int i = 0; i < columns.length; i++) {
      ParquetSchema.Column mine = schema.column(i);
      ParquetSchema.Column theirs = writerSchema.column(i);
      if (mine.physical != theirs.physical || mine.typeLength() != theirs.typeLength()) {
        throw new IllegalArgumentException("column '" + theirs.name + "' is " + describe(theirs)
            + " in the writer's schema, the batch holds " + describe(mine));
      }
    }
    long[] spec = new long[columns.length * NativeBridge.LONGS_PER_COLUMN];
    for (int i = 0; i < columns.length; i++) {
      columns[i].finish(rowCount);
      columns[i].describe(spec, i * NativeBridge.LONGS_PER_COLUMN);
    }
    return spec;
  }

  private static String describe(ParquetSchema.Column c) {
    return c.physical == ParquetSchema.PhysicalType.FIXED_LEN_BYTE_ARRAY
        ? c.physical + "(" + c.typeLength() + ")" : c.physical.toString();
  }

  /** Native bytes held by the batch's buffers. */
  public long capacityInBytes() {
    checkOpen();
    long n = 0;
    for (ColumnBuffers c : columns) {
      n += c.capacityInBytes();
    }
    return n;
  }

  public boolean isClosed() {
    return closed;
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("VectorBuffers is closed");
    }
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      for (ColumnBuffers c : columns) {
        if (c != null) {
          c.close();
        }
      }
    }
  }
}
