package io.vecruntime.parquet;

/**
 * The codes of the schema spec that {@link ParquetSchema#spec} sends across JNI; they mirror
 * native/jni's {@code schema_spec} constants name for name (SchemaCodesTest checks every one
 * against the native library). Bump {@link #VERSION} with any change to the layout.
 */
final class SchemaCodes {
  private SchemaCodes() {}

  static final int VERSION = 2;
  static final int INTS_PER_NODE = 10;

  static final int KIND_LEAF = 1;
  static final int KIND_GROUP = 2;

  static final int REPETITION_REQUIRED = 0;
  static final int REPETITION_OPTIONAL = 1;
  static final int REPETITION_REPEATED = 2;

  static final int PHYSICAL_BOOLEAN = 0;
  static final int PHYSICAL_INT32 = 1;
  static final int PHYSICAL_INT64 = 2;
  static final int PHYSICAL_INT96 = 3;
  static final int PHYSICAL_FLOAT = 4;
  static final int PHYSICAL_DOUBLE = 5;
  static final int PHYSICAL_BYTE_ARRAY = 6;
  static final int PHYSICAL_FIXED_LEN_BYTE_ARRAY = 7;

  static final int LOGICAL_NONE = 0;
  static final int LOGICAL_STRING = 1;
  static final int LOGICAL_INT = 2;
  static final int LOGICAL_DATE = 3;
  static final int LOGICAL_DECIMAL = 4;
  static final int LOGICAL_TIMESTAMP = 5;
  static final int LOGICAL_TIME = 6;
  static final int LOGICAL_UNKNOWN = 7;
  static final int LOGICAL_GEOMETRY = 8;
  static final int LOGICAL_GEOGRAPHY = 9;
  static final int LOGICAL_LIST = 10;
  static final int LOGICAL_MAP = 11;
  static final int LOGICAL_MAP_KEY_VALUE = 12;
  static final int LOGICAL_VARIANT = 13;
  static final int LOGICAL_UUID = 14;

  static final int EDGE_SPHERICAL = 0;
  static final int EDGE_VINCENTY = 1;
  static final int EDGE_THOMAS = 2;
  static final int EDGE_ANDOYER = 3;
  static final int EDGE_KARNEY = 4;

  static final int UNIT_MILLIS = 0;
  static final int UNIT_MICROS = 1;

  static final int ROW_BOOLEAN = 0;
  static final int ROW_BYTE = 1;
  static final int ROW_SHORT = 2;
  static final int ROW_INT = 3;
  static final int ROW_LONG = 4;
  static final int ROW_FLOAT = 5;
  static final int ROW_DOUBLE = 6;
  static final int ROW_DATE = 7;
  static final int ROW_TIMESTAMP_INT96 = 8;
  static final int ROW_TIMESTAMP_MICROS = 9;
  static final int ROW_TIMESTAMP_MILLIS = 10;
  static final int ROW_TIMESTAMP_NTZ = 11;
  static final int ROW_TIME = 16;

  static final int REBASE_CORRECTED = 0;
  static final int REBASE_LEGACY = 1;
  static final int REBASE_EXCEPTION = 2;
  static final int ROW_DECIMAL = 12;
  static final int ROW_STRING = 13;
  static final int ROW_BINARY = 14;
  static final int ROW_LEGACY_DECIMAL = 15;
  static final int ROW_GEOMETRY = 17;
  static final int ROW_GEOGRAPHY = 18;
  static final int ROW_FIXED_BINARY = 19;

  /** Key columns of {@link RowSplitter}: role, position, row type, precision, scale each. */
  static final int INTS_PER_KEY = 5;
  static final int KEY_PARTITION = 0;
  static final int KEY_BUCKET = 1;
  static final int HASH_MURMUR3 = 0;
  static final int HASH_HIVE = 1;
}
