package io.vecruntime.parquet;

import java.nio.ByteBuffer;

/**
 * The JNI entry points of libvecruntime (native/jni). Every method checks its arguments in Rust
 * and throws IllegalArgumentException (bad input, naming the column), IllegalStateException
 * (closed or unknown handle, freed buffer) or VecRuntimeException; none can crash the JVM.
 */
final class NativeBridge {
  static {
    NativeLibrary.load();
  }

  private NativeBridge() {}

  /**
   * Longs per column in {@link #write}'s buffer spec: validity, values, offsets, definition
   * levels, repetition levels as (address, length).
   */
  static final int LONGS_PER_COLUMN = 10;

  static native String createdBy();

  /** The native schema spec codes as {@code NAME=value} lines. */
  static native String schemaCodes();

  /** The physical type code and FIXED_LEN_BYTE_ARRAY width of a decimal of this precision. */
  static native int[] decimalLayout(int precision);

  static native long open(
      String root,
      String[] names,
      int[] spec,
      String[] optionKeys,
      String[] optionValues,
      String[] metaKeys,
      String[] metaValues);

  /** Returns the bytes of output now pending. */
  static native long write(long handle, long numRows, long[] buffers);

  static native void configureRows(long handle, int rowFields, int[] positions,
      boolean manyFiles);

  static native void configureRebase(long handle, int datetime, int int96, long[] switches,
      long[] diffs, long zoneOffset, long calendarOffset, long threshold);

  /** {@code [code, precision]} per column: how rows are read into the schema's columns. */
  static native int[] rowTypes(String root, String[] names, int[] spec);

  /** Returns the bytes of output now pending. */
  static native long writeRows(long handle, long rows, long rowsLen, long offsets, long numRows);

  static native long transposeRows(int[] codes, long rows, long rowsLen, long offsets, long numRows);

  /** The writer's option keys: {@code key}, and {@code key#} for a column's ({@link WriterOptions#takes}). */
  static native String[] optionKeys();

  /** Reads option pairs as an opening writer would; returns their codec's name. */
  static native String checkOptions(String[] keys, String[] values);

  /** Whether a bucket column of this row type is hashed natively ({@link RowSplitter#hashes}). */
  static native boolean hashable(int rowType, int precision, int hash);

  /** Splits a row batch by key into a second one; returns the group count ({@link RowSplitter}). */
  static native int splitRows(int numFields, String[] names, int[] spec, int hash, int buckets,
      long rows, long rowsLen, long offsets, long numRows, long out, long outLen,
      long outOffsets, int[] groups);

  /** Copies pending output into dst from index 0; returns the count, 0 when none is pending. */
  static native int drain(long handle, byte[] dst);

  /** Writes the file's tail as pending output; returns the encoded footer summary. */
  static native byte[] close(long handle);

  static native void release(long handle);

  static native long nativeBytes(long handle);

  static native long rowKernelNanos(long handle);

  static native long endRowGroup(long handle);

  static native long openWriters();

  static native long allocate(long size);

  static native void free(long address);

  static native ByteBuffer view(long address, long size);

  static native long allocatedBytes();

  static native void panicForTest();
}
