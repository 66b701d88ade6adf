package io.vecruntime.parquet;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A flat Parquet schema: the root group (Spark names it {@code spark_schema}) and one leaf per
 * column, each with its physical and logical type as Spark writes it.
 */
public final class ParquetSchema {
  /** Parquet physical types; the ordinal is the parquet.thrift {@code Type} id. */
  public enum PhysicalType {
    BOOLEAN, INT32, INT64, INT96, FLOAT, DOUBLE, BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY
  }

  public enum TimeUnit {
    MILLIS, MICROS
  }

  /** One column. */
  public static final class Column {
    final String name;
    final PhysicalType physical;
    final int width;
    final int logical;
    final int a;
    final int b;
    final boolean nullable;
    final Integer fieldId;

    Column(String name, PhysicalType physical, int width, int logical, int a, int b,
        boolean nullable, Integer fieldId) {
      this.name = Objects.requireNonNull(name, "column name");
      this.physical = physical;
      this.width = width;
      this.logical = logical;
      this.a = a;
      this.b = b;
      this.nullable = nullable;
      this.fieldId = fieldId;
    }

    public String name() {
      return name;
    }

    public PhysicalType physicalType() {
      return physical;
    }

    /** Bytes per value of a FIXED_LEN_BYTE_ARRAY (12 for INT96, 0 for other types). */
    public int typeLength() {
      return physical == PhysicalType.INT96 ? 12 : width;
    }

    public boolean nullable() {
      return nullable;
    }

    public Integer fieldId() {
      return fieldId;
    }

    @Override
    public String toString() {
      return name + ":" + physical + (nullable ? "" : " not null");
    }
  }

  static final int LOGICAL_NONE = 0;
  static final int LOGICAL_STRING = 1;
  static final int LOGICAL_INT = 2;
  static final int LOGICAL_DATE = 3;
  static final int LOGICAL_DECIMAL = 4;
  static final int LOGICAL_TIMESTAMP = 5;

  private final String rootName;
  private final List<Column> columns;

  private ParquetSchema(String rootName, List<Column> columns) {
    this.rootName = rootName;
    this.columns = Collections.unmodifiableList(new ArrayList<>(columns));
  }

  public static Builder builder() {
    return new Builder("spark_schema");
  }

  public static Builder builder(String rootName) {
    return new Builder(rootName);
  }

  public String rootName() {
    return rootName;
  }

  public List<Column> columns() {
    return columns;
  }

  public Column column(int i) {
    return columns.get(i);
  }

  public int size() {
    return columns.size();
  }

  String[] names() {
    return columns.stream().map(c -> c.name).toArray(String[]::new);
  }

  int[] spec() {
    int[] spec = new int[columns.size() * NativeBridge.INTS_PER_FIELD];
    int i = 0;
    for (Column c : columns) {
      spec[i++] = c.physical.ordinal();
      spec[i++] = c.width;
      spec[i++] = c.logical;
      spec[i++] = c.a;
      spec[i++] = c.b;
      spec[i++] = c.nullable ? 1 : 0;
      spec[i++] = c.fieldId != null ? 1 : 0;
      spec[i++] = c.fieldId != null ? c.fieldId : 0;
    }
    return spec;
  }

  /** Adds columns in order. Each method takes the column name and whether it may hold nulls. */
  public static final class Builder {
    private final String rootName;
    private final List<Column> columns = new ArrayList<>();
    private final Set<String> names = new HashSet<>();
    private Integer nextFieldId;

    private Builder(String rootName) {
      this.rootName = Objects.requireNonNull(rootName, "root name");
    }

    /** Gives the next column added this field id. */
    public Builder fieldId(int id) {
      nextFieldId = id;
      return this;
    }

    private Builder add(String name, PhysicalType t, int width, int logical, int a, int b, boolean nullable) {
      if (name == null || name.isEmpty()) {
        throw new IllegalArgumentException("a column name is empty");
      }
      if (!names.add(name)) {
        throw new IllegalArgumentException("column '" + name + "' appears twice");
      }
      columns.add(new Column(name, t, width, logical, a, b, nullable, nextFieldId));
      nextFieldId = null;
      return this;
    }

    public Builder booleanColumn(String name, boolean nullable) {
      return add(name, PhysicalType.BOOLEAN, 0, LOGICAL_NONE, 0, 0, nullable);
    }

    /** Spark's ByteType: INT32 annotated INT(8, signed). */
    public Builder int8Column(String name, boolean nullable) {
      return add(name, PhysicalType.INT32, 0, LOGICAL_INT, 8, 0, nullable);
    }

    /** Spark's ShortType: INT32 annotated INT(16, signed). */
    public Builder int16Column(String name, boolean nullable) {
      return add(name, PhysicalType.INT32, 0, LOGICAL_INT, 16, 0, nullable);
    }

    public Builder int32Column(String name, boolean nullable) {
      return add(name, PhysicalType.INT32, 0, LOGICAL_NONE, 0, 0, nullable);
    }

    public Builder int64Column(String name, boolean nullable) {
      return add(name, PhysicalType.INT64, 0, LOGICAL_NONE, 0, 0, nullable);
    }

    public Builder floatColumn(String name, boolean nullable) {
      return add(name, PhysicalType.FLOAT, 0, LOGICAL_NONE, 0, 0, nullable);
    }

    public Builder doubleColumn(String name, boolean nullable) {
      return add(name, PhysicalType.DOUBLE, 0, LOGICAL_NONE, 0, 0, nullable);
    }

    /** Days since 1970-01-01 in INT32. */
    public Builder dateColumn(String name, boolean nullable) {
      return add(name, PhysicalType.INT32, 0, LOGICAL_DATE, 0, 0, nullable);
    }

    /** TIMESTAMP(unit, isAdjustedToUTC) in INT64. */
    public Builder timestampColumn(String name, TimeUnit unit, boolean adjustedToUtc, boolean nullable) {
      return add(name, PhysicalType.INT64, 0, LOGICAL_TIMESTAMP, unit.ordinal(), adjustedToUtc ? 1 : 0,
          nullable);
    }

    /** Spark's legacy timestamp: INT96 (nanos of day, Julian day), no logical type. */
    public Builder int96Column(String name, boolean nullable) {
      return add(name, PhysicalType.INT96, 0, LOGICAL_NONE, 0, 0, nullable);
    }

    /**
     * A decimal in the physical type Spark picks: INT32 up to 9 digits, INT64 up to 18, else a
     * big-endian FIXED_LEN_BYTE_ARRAY of the minimal width.
     */
    public Builder decimalColumn(String name, int precision, int scale, boolean nullable) {
      if (precision < 1 || precision > 38 || scale < 0 || scale > precision) {
        throw new IllegalArgumentException(
            "column '" + name + "': DECIMAL(" + precision + "," + scale + ") is not valid");
      }
      if (precision <= 9) {
        return add(name, PhysicalType.INT32, 0, LOGICAL_DECIMAL, precision, scale, nullable);
      }
      if (precision <= 18) {
        return add(name, PhysicalType.INT64, 0, LOGICAL_DECIMAL, precision, scale, nullable);
      }
      return add(name, PhysicalType.FIXED_LEN_BYTE_ARRAY, decimalBytes(precision), LOGICAL_DECIMAL,
          precision, scale, nullable);
    }

    /** UTF-8 text: BYTE_ARRAY annotated STRING. */
    public Builder stringColumn(String name, boolean nullable) {
      return add(name, PhysicalType.BYTE_ARRAY, 0, LOGICAL_STRING, 0, 0, nullable);
    }

    public Builder binaryColumn(String name, boolean nullable) {
      return add(name, PhysicalType.BYTE_ARRAY, 0, LOGICAL_NONE, 0, 0, nullable);
    }

    public Builder fixedBinaryColumn(String name, int width, boolean nullable) {
      if (width <= 0) {
        throw new IllegalArgumentException("column '" + name + "': width " + width + " is not valid");
      }
      return add(name, PhysicalType.FIXED_LEN_BYTE_ARRAY, width, LOGICAL_NONE, 0, 0, nullable);
    }

    public ParquetSchema build() {
      return new ParquetSchema(rootName, columns);
    }
  }

  /** Bytes that hold every unscaled value of {@code precision} digits (Spark's minBytesForPrecision). */
  public static int decimalBytes(int precision) {
    int bytes = 1;
    while (Math.pow(2.0, 8 * bytes - 1) < Math.pow(10.0, precision)) {
      bytes++;
    }
    return bytes;
  }
}
