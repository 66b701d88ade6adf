package io.vecruntime.parquet;

import java.lang.reflect.Field;
import sun.misc.Unsafe;

/**
 * Rows in a binary row format (Spark's UnsafeRow) copied back to back into off-heap memory, one
 * copy per row, for {@link ColumnarParquetWriter#writeRows}: native code turns them into
 * columns. Holds the row bytes and {@code rows + 1} int offsets.
 */
public final class RowBatch implements AutoCloseable {
  private static final Unsafe UNSAFE = unsafe();

  private final int maxRows;
  private NativeBuffer data;
  private NativeBuffer offsets;
  private int rows;
  private int used;

  /** Room for {@code maxRows} rows; the byte buffer starts at {@code initialBytes} and grows. */
  public RowBatch(int maxRows, int initialBytes) {
    if (maxRows <= 0) {
      throw new IllegalArgumentException("maxRows must be positive, got " + maxRows);
    }
    this.maxRows = maxRows;
    this.data = NativeBuffer.allocate(Math.max(64, initialBytes));
    // Offsets for as many rows as the first bytes hold at 64 bytes a row, growing from there:
    // a partitioned write holds thousands of batches, most of them small.
    this.offsets = NativeBuffer.allocate(4L * (Math.min(maxRows, Math.max(64, initialBytes) / 64) + 1));
  }

  public int rowCount() {
    return rows;
  }

  public boolean isFull() {
    return rows == maxRows;
  }

  public boolean isEmpty() {
    return rows == 0;
  }

  /** Bytes of row data in the batch. */
  public int sizeInBytes() {
    return used;
  }

  /** Native bytes this batch holds. */
  public long capacityInBytes() {
    return data.size() + offsets.size();
  }

  /**
   * Copies {@code size} bytes at ({@code base}, {@code offset}) as the next row, as Spark's
   * UnsafeRow keeps them: a {@code byte[]} or {@code long[]} (Spark's on-heap memory pages) and
   * the Unsafe offset into it, which is checked against the array. Rows in off-heap memory have
   * no array to check against: copy them into a byte[] first.
   */
  public void append(Object base, long offset, int size) {
    if (rows == maxRows) {
      throw new IllegalStateException("row batch is full (" + maxRows + " rows)");
    }
    if (size < 0) {
      throw new IllegalArgumentException("row size " + size + " is negative");
    }
    checkSource(base, offset, size);
    long end = (long) used + size;
    if (end > data.size()) {
      grow(end);
    }
    if (4L * (rows + 2) > offsets.size()) {
      growOffsets();
    }
    UNSAFE.copyMemory(base, offset, null, data.address() + used, size);
    used = (int) end;
    rows++;
    // Within the offsets, checked above; no view of them per row (a JNI call per buffer).
    UNSAFE.putInt(offsets.address() + 4L * rows, used);
  }

  /**
   * Copies rows {@code start} to {@code start + count} of {@code src} as the next rows: one
   * copy of their bytes, their offsets moved to where they land.
   */
  public void appendRows(RowBatch src, int start, int count) {
    if (start < 0 || count < 0 || start + count > src.rows) {
      throw new IndexOutOfBoundsException(
          "rows " + start + "+" + count + " of a batch of " + src.rows);
    }
    if (count > maxRows - rows) {
      throw new IllegalStateException(
          "row batch of " + rows + " rows has no room for " + count + " more (" + maxRows + " at most)");
    }
    if (count == 0) {
      return;
    }
    int from = UNSAFE.getInt(src.offsets.address() + 4L * start);
    int to = UNSAFE.getInt(src.offsets.address() + 4L * (start + count));
    long end = (long) used + (to - from);
    if (end > data.size()) {
      grow(end);
    }
    while (4L * (rows + count + 1) > offsets.size()) {
      growOffsets();
    }
    UNSAFE.copyMemory(null, src.data.address() + from, null, data.address() + used, to - from);
    int shift = used - from;
    long in = src.offsets.address() + 4L * (start + 1);
    long out = offsets.address() + 4L * (rows + 1);
    for (int i = 0; i < count; i++) {
      UNSAFE.putInt(out + 4L * i, UNSAFE.getInt(in + 4L * i) + shift);
    }
    used = (int) end;
    rows += count;
  }

  /** Copies a row held in a byte array. */
  public void append(byte[] row, int off, int len) {
    if (off < 0 || len < 0) {
      throw new IndexOutOfBoundsException("row range " + off + "+" + len + " of " + row.length);
    }
    append(row, Unsafe.ARRAY_BYTE_BASE_OFFSET + (long) off, len);
  }

  /** Refuses a source the copy could read outside of. */
  private static void checkSource(Object base, long offset, int size) {
    long start;
    long length;
    if (base instanceof byte[]) {
      start = offset - Unsafe.ARRAY_BYTE_BASE_OFFSET;
      length = ((byte[]) base).length;
    } else if (base instanceof long[]) {
      start = offset - Unsafe.ARRAY_LONG_BASE_OFFSET;
      length = 8L * ((long[]) base).length;
    } else {
      throw new IllegalArgumentException("a row must be held in a byte[] or long[], not "
          + (base == null ? "off-heap memory" : base.getClass().getName()));
    }
    if (start < 0 || start + size > length) {
      throw new IndexOutOfBoundsException(
          "row bytes [" + start + ", " + (start + size) + ") outside an array of " + length + " bytes");
    }
  }

  private void growOffsets() {
    long size = 4L * (Math.min(maxRows, 2L * (offsets.size() / 4 - 1)) + 1);
    NativeBuffer bigger = NativeBuffer.allocate(size);
    UNSAFE.copyMemory(null, offsets.address(), null, bigger.address(), 4L * (rows + 1));
    offsets.close();
    offsets = bigger;
  }

  private void grow(long needed) {
    if (needed > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("row batch exceeds 2 GiB");
    }
    long size = Math.min(Integer.MAX_VALUE, Math.max(needed, 2 * data.size()));
    NativeBuffer bigger = NativeBuffer.allocate(size);
    UNSAFE.copyMemory(null, data.address(), null, bigger.address(), used);
    data.close();
    data = bigger;
  }

  /**
   * Turns the batch into column buffers natively and drops them (no encoding): the row path
   * alone, for measurements and checks. Returns a value that depends on the work done.
   */
  public long transposeOnly(RowType[] types, int[] rowArguments) {
    return NativeBridge.transposeRows(RowType.codes(types, rowArguments), dataAddress(),
        used, offsetsAddress(), rows);
  }

  /**
   * Makes room for {@code bytes} row bytes and {@code rows} rows, dropping the rows held (the
   * batch a {@link RowSplitter} copies into).
   */
  void reset(long bytes, int rows) {
    clear();
    if (bytes > data.size()) {
      grow(bytes);
    }
    while (4L * (rows + 1) > offsets.size()) {
      growOffsets();
    }
  }

  /** Marks {@code rows} rows of {@code bytes} bytes as filled natively. */
  void filled(int rows, int bytes) {
    this.rows = rows;
    this.used = bytes;
  }

  /**
   * The address of row {@code i}'s bytes and their count (for a view of the row in place, valid
   * until the batch changes).
   */
  public long rowAddress(int i) {
    checkRow(i);
    return data.address() + UNSAFE.getInt(offsets.address() + 4L * i);
  }

  public int rowSize(int i) {
    checkRow(i);
    return UNSAFE.getInt(offsets.address() + 4L * (i + 1)) - UNSAFE.getInt(offsets.address() + 4L * i);
  }

  private void checkRow(int i) {
    if (i < 0 || i >= rows) {
      throw new IndexOutOfBoundsException("row " + i + " of a batch of " + rows);
    }
  }

  public void clear() {
    rows = 0;
    used = 0;
  }

  long dataAddress() {
    return data.address();
  }

  long offsetsAddress() {
    return offsets.address();
  }

  @Override
  public void close() {
    data.close();
    offsets.close();
  }

  private static Unsafe unsafe() {
    try {
      Field f = Unsafe.class.getDeclaredField("theUnsafe");
      f.setAccessible(true);
      return (Unsafe) f.get(null);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }
}
