package io.vecruntime.parquet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The schema spec's codes are the same on both sides of JNI, name for name. */
class SchemaCodesTest {
  @Test
  void everyJavaCodeMatchesTheNativeOne() throws IllegalAccessException {
    Map<String, Integer> java = new TreeMap<>();
    for (Field f : SchemaCodes.class.getDeclaredFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class) {
        java.put(f.getName(), f.getInt(null));
      }
    }
    Map<String, Integer> rust = new TreeMap<>();
    for (String line : NativeBridge.schemaCodes().split("\n")) {
      String[] kv = line.split("=");
      rust.put(kv[0], Integer.parseInt(kv[1]));
    }
    assertEquals(rust, java);
  }

  @Test
  void enumsCarryTheirCodes() {
    assertEquals(SchemaCodes.PHYSICAL_FIXED_LEN_BYTE_ARRAY,
        ParquetSchema.PhysicalType.FIXED_LEN_BYTE_ARRAY.code);
    assertEquals(SchemaCodes.REPETITION_REPEATED, ParquetSchema.Repetition.REPEATED.code);
    assertEquals(SchemaCodes.LOGICAL_MAP_KEY_VALUE, ParquetSchema.GroupType.MAP_KEY_VALUE.code);
    assertEquals(SchemaCodes.LOGICAL_VARIANT, ParquetSchema.GroupType.VARIANT.code);
    assertEquals(SchemaCodes.UNIT_MICROS, ParquetSchema.TimeUnit.MICROS.code);
    assertEquals(SchemaCodes.REBASE_EXCEPTION, ColumnarParquetWriter.RebaseMode.EXCEPTION.code);
    assertEquals(SchemaCodes.EDGE_KARNEY, ParquetSchema.EdgeAlgorithm.KARNEY.code);
  }

  @Test
  void geospatialColumnsSendTheirCrsAndAreReadAsGeospatialRows() {
    // The CRS strings travel after the node names; the native side decodes them by index.
    ParquetSchema s = ParquetSchema.builder()
        .geometryColumn("g", "EPSG:3857", true)
        .geographyColumn("h", "OGC:CRS84", ParquetSchema.EdgeAlgorithm.SPHERICAL, true)
        .geometryColumn("n", null, false)
        .build();
    assertArrayEquals(new String[] {"g", "h", "n", "EPSG:3857", "OGC:CRS84"}, s.names());
    assertArrayEquals(new RowType[] {RowType.GEOMETRY, RowType.GEOGRAPHY, RowType.GEOMETRY},
        s.rowTypes());
  }

  @Test
  void decimalsTakeTheLayoutSparkGivesThem() {
    // Spark's SparkToParquetSchemaConverter: INT32 up to 9 digits, INT64 up to 18, else the
    // minimal FIXED_LEN_BYTE_ARRAY (Decimal.minBytesForPrecision).
    int[][] want = {{1, 1, 0}, {9, 1, 0}, {10, 2, 0}, {18, 2, 0}, {19, 7, 9}, {30, 7, 13}, {38, 7, 16}};
    for (int[] w : want) {
      ParquetSchema s = ParquetSchema.builder().decimalColumn("d", w[0], 0, true).build();
      assertEquals(w[1], s.column(0).physicalType().code, "precision " + w[0]);
      assertEquals(w[2], s.column(0).typeLength(), "precision " + w[0]);
    }
  }
}
