package io.vecruntime.parquet;

/**
 * How each field of a {@link RowBatch} row is read and converted (native/kernels
 * {@code SparkType}): the row format is Spark's UnsafeRow, the conversions those of Spark's
 * ParquetWriteSupport. The native side decides it from each column's Parquet type
 * ({@link ParquetSchema#rowTypes}); the codes are checked against it by SchemaCodesTest.
 */
public enum RowType {
  BOOLEAN(SchemaCodes.ROW_BOOLEAN),
  BYTE(SchemaCodes.ROW_BYTE),
  SHORT(SchemaCodes.ROW_SHORT),
  INT(SchemaCodes.ROW_INT),
  LONG(SchemaCodes.ROW_LONG),
  FLOAT(SchemaCodes.ROW_FLOAT),
  DOUBLE(SchemaCodes.ROW_DOUBLE),
  DATE(SchemaCodes.ROW_DATE),
  /** Timestamp micros written as INT96. */
  TIMESTAMP_INT96(SchemaCodes.ROW_TIMESTAMP_INT96),
  /** Timestamp micros written as INT64 micros. */
  TIMESTAMP_MICROS(SchemaCodes.ROW_TIMESTAMP_MICROS),
  /** Timestamp micros written as INT64 millis (floor division). */
  TIMESTAMP_MILLIS(SchemaCodes.ROW_TIMESTAMP_MILLIS),
  TIMESTAMP_NTZ(SchemaCodes.ROW_TIMESTAMP_NTZ),
  /** Spark's TimeType (nanos of day) written as INT64 TIME micros (floor division). */
  TIME(SchemaCodes.ROW_TIME),
  /** Needs a precision: {@link #codes}. */
  DECIMAL(SchemaCodes.ROW_DECIMAL),
  STRING(SchemaCodes.ROW_STRING),
  BINARY(SchemaCodes.ROW_BINARY),
  /** A decimal of up to 18 digits in writeLegacyFormat's FIXED_LEN_BYTE_ARRAY; needs a precision. */
  LEGACY_DECIMAL(SchemaCodes.ROW_LEGACY_DECIMAL),
  /** SRID header and WKB, re-encoded as Spark's writer does (little-endian ISO WKB). */
  GEOMETRY(SchemaCodes.ROW_GEOMETRY),
  GEOGRAPHY(SchemaCodes.ROW_GEOGRAPHY),
  /**
   * BinaryType as FIXED_LEN_BYTE_ARRAY (a table format's fixed type, a UUID's bytes); needs its
   * width: {@link #codes}. A value of another length fails the write, naming the column.
   */
  FIXED_BINARY(SchemaCodes.ROW_FIXED_BINARY);

  final int code;

  RowType(int code) {
    this.code = code;
  }

  static RowType of(int code) {
    for (RowType t : values()) {
      if (t.code == code) {
        return t;
      }
    }
    throw new IllegalArgumentException("unknown row type code " + code);
  }

  /**
   * The {@code [code, argument]} pairs native code reads; the argument ({@link
   * ParquetSchema.Column#rowArgument}) only for decimals (their precision) and FIXED_BINARY
   * (its width).
   */
  public static int[] codes(RowType[] types, int[] arguments) {
    int[] out = new int[2 * types.length];
    for (int i = 0; i < types.length; i++) {
      out[2 * i] = types[i].code;
      boolean argued = types[i] == DECIMAL || types[i] == LEGACY_DECIMAL || types[i] == FIXED_BINARY;
      out[2 * i + 1] = argued ? arguments[i] : 0;
    }
    return out;
  }
}
