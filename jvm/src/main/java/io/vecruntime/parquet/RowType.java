package io.vecruntime.parquet;

/**
 * How each field of a {@link RowBatch} row is read and converted (native/kernels
 * {@code SparkType}): the row format is Spark's UnsafeRow, the conversions those of Spark's
 * ParquetWriteSupport.
 */
public enum RowType {
  BOOLEAN, BYTE, SHORT, INT, LONG, FLOAT, DOUBLE, DATE,
  /** Timestamp micros written as INT96. */
  TIMESTAMP_INT96,
  /** Timestamp micros written as INT64 micros. */
  TIMESTAMP_MICROS,
  /** Timestamp micros written as INT64 millis (floor division). */
  TIMESTAMP_MILLIS,
  TIMESTAMP_NTZ,
  /** Needs a precision: {@link #codes}. */
  DECIMAL,
  STRING,
  BINARY;

  /** The {@code [code, precision]} pairs native code reads; precision only for DECIMAL. */
  public static int[] codes(RowType[] types, int[] decimalPrecisions) {
    int[] out = new int[2 * types.length];
    for (int i = 0; i < types.length; i++) {
      out[2 * i] = types[i].ordinal();
      out[2 * i + 1] = types[i] == DECIMAL ? decimalPrecisions[i] : 0;
    }
    return out;
  }
}
