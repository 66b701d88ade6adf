package io.vecruntime.parquet;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A Parquet schema: the root group (Spark names it {@code spark_schema}) and a tree of groups
 * whose leaves are the columns, each with its physical and logical type as Spark writes it.
 * The native side receives it as one versioned int array ({@link #spec}, codes in
 * {@link SchemaCodes}).
 */
public final class ParquetSchema {
  /** Parquet physical types. */
  public enum PhysicalType {
    BOOLEAN(SchemaCodes.PHYSICAL_BOOLEAN),
    INT32(SchemaCodes.PHYSICAL_INT32),
    INT64(SchemaCodes.PHYSICAL_INT64),
    INT96(SchemaCodes.PHYSICAL_INT96),
    FLOAT(SchemaCodes.PHYSICAL_FLOAT),
    DOUBLE(SchemaCodes.PHYSICAL_DOUBLE),
    BYTE_ARRAY(SchemaCodes.PHYSICAL_BYTE_ARRAY),
    FIXED_LEN_BYTE_ARRAY(SchemaCodes.PHYSICAL_FIXED_LEN_BYTE_ARRAY);

    final int code;

    PhysicalType(int code) {
      this.code = code;
    }

    static PhysicalType of(int code) {
      for (PhysicalType t : values()) {
        if (t.code == code) {
          return t;
        }
      }
      throw new IllegalArgumentException("unknown physical type code " + code);
    }
  }

  public enum TimeUnit {
    MILLIS(SchemaCodes.UNIT_MILLIS), MICROS(SchemaCodes.UNIT_MICROS);

    final int code;

    TimeUnit(int code) {
      this.code = code;
    }
  }

  public enum Repetition {
    REQUIRED(SchemaCodes.REPETITION_REQUIRED),
    OPTIONAL(SchemaCodes.REPETITION_OPTIONAL),
    REPEATED(SchemaCodes.REPETITION_REPEATED);

    final int code;

    Repetition(int code) {
      this.code = code;
    }
  }

  /** Annotations of a group. */
  public enum GroupType {
    LIST(SchemaCodes.LOGICAL_LIST),
    MAP(SchemaCodes.LOGICAL_MAP),
    MAP_KEY_VALUE(SchemaCodes.LOGICAL_MAP_KEY_VALUE),
    /** A Variant's group, of version 1 of the Variant specification (the only one). */
    VARIANT(SchemaCodes.LOGICAL_VARIANT);

    final int code;

    GroupType(int code) {
      this.code = code;
    }
  }

  /** How a GEOGRAPHY's edges run (parquet.thrift's {@code EdgeInterpolationAlgorithm}). */
  public enum EdgeAlgorithm {
    SPHERICAL(SchemaCodes.EDGE_SPHERICAL),
    VINCENTY(SchemaCodes.EDGE_VINCENTY),
    THOMAS(SchemaCodes.EDGE_THOMAS),
    ANDOYER(SchemaCodes.EDGE_ANDOYER),
    KARNEY(SchemaCodes.EDGE_KARNEY);

    final int code;

    EdgeAlgorithm(int code) {
      this.code = code;
    }
  }

  /** One leaf column. */
  public static final class Column {
    final List<String> path;
    final String name;
    final PhysicalType physical;
    final int width;
    final int logical;
    final int a;
    final int b;
    /** A geospatial column's coordinate reference system, or null. */
    final String crs;
    final Repetition repetition;
    final Integer fieldId;
    final int maxDefinitionLevel;
    final int maxRepetitionLevel;

    Column(List<String> path, PhysicalType physical, int width, int logical, int a, int b,
        String crs, Repetition repetition, Integer fieldId, int maxDef, int maxRep) {
      this.path = Collections.unmodifiableList(new ArrayList<>(path));
      this.name = String.join(".", path);
      this.physical = physical;
      this.width = width;
      this.logical = logical;
      this.a = a;
      this.b = b;
      this.crs = crs;
      this.repetition = repetition;
      this.fieldId = fieldId;
      this.maxDefinitionLevel = maxDef;
      this.maxRepetitionLevel = maxRep;
    }

    /** The path joined by dots (parquet-java's {@code ColumnPath.toDotString}). */
    public String name() {
      return name;
    }

    /** Names from the root's child down to the leaf. */
    public List<String> path() {
      return path;
    }

    public PhysicalType physicalType() {
      return physical;
    }

    /** Bytes per value of a FIXED_LEN_BYTE_ARRAY (12 for INT96, 0 for other types). */
    public int typeLength() {
      return physical == PhysicalType.INT96 ? 12 : width;
    }

    /** A top-level optional column (levels from a validity bitmap). */
    public boolean nullable() {
      return maxDefinitionLevel > 0;
    }

    /** Whether the column's batches carry explicit definition and repetition levels. */
    public boolean nested() {
      return maxRepetitionLevel > 0 || maxDefinitionLevel > 1;
    }

    public int maxDefinitionLevel() {
      return maxDefinitionLevel;
    }

    public int maxRepetitionLevel() {
      return maxRepetitionLevel;
    }

    public Repetition repetition() {
      return repetition;
    }

    public Integer fieldId() {
      return fieldId;
    }

    /** A TIMESTAMP's unit, null for other columns. */
    public TimeUnit timestampUnit() {
      if (logical != SchemaCodes.LOGICAL_TIMESTAMP) {
        return null;
      }
      return a == TimeUnit.MILLIS.code ? TimeUnit.MILLIS : TimeUnit.MICROS;
    }

    /**
     * The second int of the column's row type code ({@link RowType#codes}): a decimal's
     * precision, a FIXED_LEN_BYTE_ARRAY binary's width, else 0.
     */
    public int rowArgument() {
      if (logical == SchemaCodes.LOGICAL_DECIMAL) {
        return a;
      }
      return physical == PhysicalType.FIXED_LEN_BYTE_ARRAY ? width : 0;
    }

    @Override
    public String toString() {
      return name + ":" + physical + (nullable() ? "" : " not null");
    }
  }

  /** A node of the tree: a group (with children) or a leaf (with its column). */
  private static final class Node {
    final String name;
    final Repetition repetition;
    final Integer fieldId;
    final GroupType annotation;
    final List<Node> children;
    final Column leaf;

    Node(String name, Repetition repetition, Integer fieldId, GroupType annotation,
        List<Node> children, Column leaf) {
      this.name = name;
      this.repetition = repetition;
      this.fieldId = fieldId;
      this.annotation = annotation;
      this.children = children;
      this.leaf = leaf;
    }
  }

  private final String rootName;
  private final List<Node> fields;
  private final List<Column> columns;

  private ParquetSchema(String rootName, List<Node> fields) {
    this.rootName = rootName;
    this.fields = fields;
    List<Column> leaves = new ArrayList<>();
    collect(fields, leaves);
    this.columns = Collections.unmodifiableList(leaves);
  }

  private static void collect(List<Node> nodes, List<Column> out) {
    for (Node n : nodes) {
      if (n.leaf != null) {
        out.add(n.leaf);
      } else {
        collect(n.children, out);
      }
    }
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

  /** The leaf columns in the order of their chunks (depth-first). */
  public List<Column> columns() {
    return columns;
  }

  public Column column(int i) {
    return columns.get(i);
  }

  private RowType[] rowTypes;

  /**
   * How each column is filled from Spark's rows, as the native row kernel decides it from the
   * column's Parquet type; null for a leaf of a struct, list or map (shredded from its field as
   * a whole). A column rows cannot fill is an IllegalArgumentException naming it.
   */
  public synchronized RowType[] rowTypes() {
    if (rowTypes == null) {
      int[] codes = NativeBridge.rowTypes(rootName, names(), spec());
      RowType[] out = new RowType[codes.length / 2];
      for (int i = 0; i < out.length; i++) {
        out[i] = codes[2 * i] < 0 ? null : RowType.of(codes[2 * i]);
      }
      rowTypes = out;
    }
    return rowTypes.clone();
  }

  /** Number of leaf columns. */
  public int size() {
    return columns.size();
  }

  /** Node names, depth-first, then the strings nodes refer to by index (CRSs). */
  String[] names() {
    List<String> out = new ArrayList<>();
    walk(fields, n -> out.add(n.name));
    walk(fields, n -> {
      if (n.leaf != null && n.leaf.crs != null) {
        out.add(n.leaf.crs);
      }
    });
    return out.toArray(new String[0]);
  }

  /** The tree as native/jni's schema_spec reads it. */
  int[] spec() {
    List<Node> nodes = new ArrayList<>();
    walk(fields, nodes::add);
    int[] spec = new int[2 + nodes.size() * SchemaCodes.INTS_PER_NODE];
    spec[0] = SchemaCodes.VERSION;
    spec[1] = nodes.size();
    int i = 2;
    int nextString = nodes.size();
    for (Node n : nodes) {
      Column c = n.leaf;
      boolean geo = c != null
          && (c.logical == SchemaCodes.LOGICAL_GEOMETRY || c.logical == SchemaCodes.LOGICAL_GEOGRAPHY);
      spec[i++] = c == null ? SchemaCodes.KIND_GROUP : SchemaCodes.KIND_LEAF;
      spec[i++] = n.repetition.code;
      spec[i++] = c == null ? n.children.size() : 0;
      spec[i++] = c == null ? 0 : c.physical.code;
      spec[i++] = c == null ? 0 : c.width;
      spec[i++] = c == null ? (n.annotation == null ? SchemaCodes.LOGICAL_NONE : n.annotation.code)
          : c.logical;
      // A Variant group's specification version; a geospatial column's CRS (see names()).
      spec[i++] = geo ? (c.crs == null ? -1 : nextString++)
          : c != null ? c.a : n.annotation == GroupType.VARIANT ? 1 : 0;
      spec[i++] = c == null ? 0 : c.b;
      spec[i++] = n.fieldId != null ? 1 : 0;
      spec[i++] = n.fieldId != null ? n.fieldId : 0;
    }
    return spec;
  }

  private static void walk(List<Node> nodes, java.util.function.Consumer<Node> f) {
    for (Node n : nodes) {
      f.accept(n);
      if (n.leaf == null) {
        walk(n.children, f);
      }
    }
  }

  /**
   * Adds fields in order. Each column method takes the column name and whether it may hold
   * nulls; {@link #repetition} overrides that for the next field (a repeated leaf), and
   * {@link #group} / {@link #endGroup} nest fields in a group.
   */
  public static final class Builder {
    private final String rootName;
    private final List<Node> top = new ArrayList<>();
    /** Open groups: their fields so far, name, repetition, annotation and id. */
    private final Deque<Object[]> open = new ArrayDeque<>();
    private List<Node> current = top;
    private final Deque<Set<String>> names = new ArrayDeque<>();
    private Integer nextFieldId;
    private Repetition nextRepetition;

    private Builder(String rootName) {
      this.rootName = Objects.requireNonNull(rootName, "root name");
      names.push(new HashSet<>());
    }

    /** Gives the next field added this field id. */
    public Builder fieldId(int id) {
      nextFieldId = id;
      return this;
    }

    /** Gives the next field added this repetition, whatever its nullable flag says. */
    public Builder repetition(Repetition r) {
      nextRepetition = Objects.requireNonNull(r, "repetition");
      return this;
    }

    private String path(String name) {
      StringBuilder b = new StringBuilder();
      java.util.Iterator<Object[]> it = open.descendingIterator();
      while (it.hasNext()) {
        b.append(it.next()[1]).append('.');
      }
      return b.append(name).toString();
    }

    private List<String> pathList(String name) {
      List<String> p = new ArrayList<>();
      java.util.Iterator<Object[]> it = open.descendingIterator();
      while (it.hasNext()) {
        p.add((String) it.next()[1]);
      }
      p.add(name);
      return p;
    }

    /** Names may be empty, as in Spark's schemas and parquet-java's; not missing or repeated. */
    private void checkName(String name) {
      if (name == null) {
        throw new IllegalArgumentException("a column has no name");
      }
      if (!names.peek().add(name)) {
        throw new IllegalArgumentException("column '" + path(name) + "' appears twice");
      }
    }

    private int[] levels(Repetition leaf) {
      int def = 0;
      int rep = 0;
      java.util.Iterator<Object[]> it = open.descendingIterator();
      List<Repetition> reps = new ArrayList<>();
      while (it.hasNext()) {
        reps.add((Repetition) it.next()[2]);
      }
      reps.add(leaf);
      for (Repetition r : reps) {
        if (r != Repetition.REQUIRED) {
          def++;
        }
        if (r == Repetition.REPEATED) {
          rep++;
        }
      }
      return new int[] {def, rep};
    }

    private Builder add(String name, PhysicalType t, int width, int logical, int a, int b, boolean nullable) {
      return add(name, t, width, logical, a, b, null, nullable);
    }

    private Builder add(String name, PhysicalType t, int width, int logical, int a, int b, String crs,
        boolean nullable) {
      checkName(name);
      Repetition r = nextRepetition != null ? nextRepetition
          : nullable ? Repetition.OPTIONAL : Repetition.REQUIRED;
      int[] lv = levels(r);
      Column c = new Column(pathList(name), t, width, logical, a, b, crs, r, nextFieldId, lv[0], lv[1]);
      current.add(new Node(name, r, nextFieldId, null, null, c));
      nextFieldId = null;
      nextRepetition = null;
      return this;
    }

    /** Opens a group; the fields added until {@link #endGroup} are its children. */
    public Builder group(String name, Repetition repetition, GroupType annotation) {
      checkName(name);
      open.push(new Object[] {current, name, Objects.requireNonNull(repetition, "repetition"),
          annotation, nextFieldId});
      names.push(new HashSet<>());
      current = new ArrayList<>();
      nextFieldId = null;
      nextRepetition = null;
      return this;
    }

    @SuppressWarnings("unchecked")
    public Builder endGroup() {
      if (open.isEmpty()) {
        throw new IllegalStateException("endGroup without an open group");
      }
      Object[] g = open.pop();
      names.pop();
      List<Node> children = current;
      if (children.isEmpty()) {
        throw new IllegalArgumentException("group '" + path((String) g[1]) + "' has no fields");
      }
      current = (List<Node>) g[0];
      current.add(new Node((String) g[1], (Repetition) g[2], (Integer) g[4], (GroupType) g[3],
          Collections.unmodifiableList(children), null));
      return this;
    }

    /**
     * A decimal stored as {@code physical} (INT32, INT64 or FIXED_LEN_BYTE_ARRAY of
     * {@code width} bytes), as the schema converter chose it.
     */
    public Builder decimalColumn(String name, int precision, int scale, PhysicalType physical,
        int width, boolean nullable) {
      if (precision < 1 || scale < 0 || scale > precision) {
        throw new IllegalArgumentException(
            "column '" + name + "': DECIMAL(" + precision + "," + scale + ") is not valid");
      }
      return add(name, physical, physical == PhysicalType.FIXED_LEN_BYTE_ARRAY ? width : 0,
          SchemaCodes.LOGICAL_DECIMAL, precision, scale, nullable);
    }

    public Builder booleanColumn(String name, boolean nullable) {
      return add(name, PhysicalType.BOOLEAN, 0, SchemaCodes.LOGICAL_NONE, 0, 0, nullable);
    }

    /** Spark's ByteType: INT32 annotated INT(8, signed). */
    public Builder int8Column(String name, boolean nullable) {
      return add(name, PhysicalType.INT32, 0, SchemaCodes.LOGICAL_INT, 8, 0, nullable);
    }

    /** Spark's ShortType: INT32 annotated INT(16, signed). */
    public Builder int16Column(String name, boolean nullable) {
      return add(name, PhysicalType.INT32, 0, SchemaCodes.LOGICAL_INT, 16, 0, nullable);
    }

    public Builder int32Column(String name, boolean nullable) {
      return add(name, PhysicalType.INT32, 0, SchemaCodes.LOGICAL_NONE, 0, 0, nullable);
    }

    public Builder int64Column(String name, boolean nullable) {
      return add(name, PhysicalType.INT64, 0, SchemaCodes.LOGICAL_NONE, 0, 0, nullable);
    }

    public Builder floatColumn(String name, boolean nullable) {
      return add(name, PhysicalType.FLOAT, 0, SchemaCodes.LOGICAL_NONE, 0, 0, nullable);
    }

    public Builder doubleColumn(String name, boolean nullable) {
      return add(name, PhysicalType.DOUBLE, 0, SchemaCodes.LOGICAL_NONE, 0, 0, nullable);
    }

    /** Days since 1970-01-01 in INT32. */
    public Builder dateColumn(String name, boolean nullable) {
      return add(name, PhysicalType.INT32, 0, SchemaCodes.LOGICAL_DATE, 0, 0, nullable);
    }

    /** TIMESTAMP(unit, isAdjustedToUTC) in INT64. */
    public Builder timestampColumn(String name, TimeUnit unit, boolean adjustedToUtc, boolean nullable) {
      return add(name, PhysicalType.INT64, 0, SchemaCodes.LOGICAL_TIMESTAMP, unit.code, adjustedToUtc ? 1 : 0,
          nullable);
    }

    /** TIME(unit, isAdjustedToUTC): millis in INT32, micros in INT64. */
    public Builder timeColumn(String name, TimeUnit unit, boolean adjustedToUtc, boolean nullable) {
      PhysicalType physical = unit == TimeUnit.MILLIS ? PhysicalType.INT32 : PhysicalType.INT64;
      return add(name, physical, 0, SchemaCodes.LOGICAL_TIME, unit.code, adjustedToUtc ? 1 : 0,
          nullable);
    }

    /** A column whose values are all null (Spark's void type): optional BOOLEAN, UNKNOWN. */
    public Builder nullColumn(String name) {
      return add(name, PhysicalType.BOOLEAN, 0, SchemaCodes.LOGICAL_UNKNOWN, 0, 0, true);
    }

    /** Spark's legacy timestamp: INT96 (nanos of day, Julian day), no logical type. */
    public Builder int96Column(String name, boolean nullable) {
      return add(name, PhysicalType.INT96, 0, SchemaCodes.LOGICAL_NONE, 0, 0, nullable);
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
      int[] layout = NativeBridge.decimalLayout(precision);
      return decimalColumn(name, precision, scale, PhysicalType.of(layout[0]), layout[1], nullable);
    }

    /** UTF-8 text: BYTE_ARRAY annotated STRING. */
    public Builder stringColumn(String name, boolean nullable) {
      return add(name, PhysicalType.BYTE_ARRAY, 0, SchemaCodes.LOGICAL_STRING, 0, 0, nullable);
    }

    /** WKB geometries in the coordinate reference system {@code crs} (null: none named). */
    public Builder geometryColumn(String name, String crs, boolean nullable) {
      return add(name, PhysicalType.BYTE_ARRAY, 0, SchemaCodes.LOGICAL_GEOMETRY, 0, 0, crs, nullable);
    }

    /** WKB geographies in {@code crs} whose edges follow {@code algorithm} (either may be null). */
    public Builder geographyColumn(String name, String crs, EdgeAlgorithm algorithm, boolean nullable) {
      return add(name, PhysicalType.BYTE_ARRAY, 0, SchemaCodes.LOGICAL_GEOGRAPHY, 0,
          algorithm == null ? -1 : algorithm.code, crs, nullable);
    }

    public Builder binaryColumn(String name, boolean nullable) {
      return add(name, PhysicalType.BYTE_ARRAY, 0, SchemaCodes.LOGICAL_NONE, 0, 0, nullable);
    }

    public Builder fixedBinaryColumn(String name, int width, boolean nullable) {
      if (width <= 0) {
        throw new IllegalArgumentException("column '" + name + "': width " + width + " is not valid");
      }
      return add(name, PhysicalType.FIXED_LEN_BYTE_ARRAY, width, SchemaCodes.LOGICAL_NONE, 0, 0, nullable);
    }

    /** A UUID: its 16 bytes, big-endian, annotated UUID. */
    public Builder uuidColumn(String name, boolean nullable) {
      return add(name, PhysicalType.FIXED_LEN_BYTE_ARRAY, 16, SchemaCodes.LOGICAL_UUID, 0, 0, nullable);
    }

    public ParquetSchema build() {
      if (!open.isEmpty()) {
        throw new IllegalStateException("group '" + path("").replaceAll("\\.$", "")
            + "' is still open");
      }
      return new ParquetSchema(rootName, Collections.unmodifiableList(new ArrayList<>(top)));
    }
  }
}
