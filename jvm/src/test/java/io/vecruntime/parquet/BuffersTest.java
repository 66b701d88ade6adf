package io.vecruntime.parquet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JVM side's buffers and options on their own: the bounds they refuse, the bits and bytes
 * they leave where the native writer reads them, and the native memory they hold and free.
 */
class BuffersTest {
  @TempDir Path dir;

  static void refused(Class<? extends Throwable> type, String message, Executable call) {
    Throwable e = assertThrows(type, call);
    assertTrue(e.getMessage().contains(message), e.getMessage());
  }

  // ---- NativeBuffer ----

  @Test
  void nativeBufferChecksEveryAccessAndCountsItsBytes() {
    long before = NativeBuffer.allocatedBytes();
    NativeBuffer b = NativeBuffer.allocate(1000);
    assertEquals(before + 1000, NativeBuffer.allocatedBytes());
    assertEquals(1000, b.size());
    assertFalse(b.isClosed());
    b.putLong(992, -2L);
    b.putInt(4, 7);
    b.putByte(0, (byte) 9);
    assertEquals(-2L, b.getLong(992));
    assertEquals(7, b.getInt(4));
    assertEquals(9, b.getByte(0));
    assertEquals(0, b.getInt(8), "zeroed");
    byte[] out = new byte[3];
    b.put(997, new byte[] {1, 2, 3, 4}, 1, 3);
    b.get(997, out, 0, 3);
    assertArrayEquals(new byte[] {2, 3, 4}, out);
    refused(IndexOutOfBoundsException.class, "bytes [997, 1001) outside a native buffer of 1000",
        () -> b.getInt(997));
    refused(IndexOutOfBoundsException.class, "bytes [-1, 0)", () -> b.getByte(-1));
    refused(IndexOutOfBoundsException.class, "bytes [993, 1001)", () -> b.putLong(993, 1));
    refused(IndexOutOfBoundsException.class, "bytes [1000, 1001)", () -> b.putByte(1000, (byte) 1));
    b.get(1000, out, 0, 0);
    b.put(1000, out, 3, 0);
    b.close();
    b.close();
    assertTrue(b.isClosed());
    assertEquals(before, NativeBuffer.allocatedBytes());
    refused(IllegalStateException.class, "closed", b::address);
    refused(IllegalStateException.class, "closed", () -> b.getByte(0));
  }

  @Test
  void nativeBufferSizesFromZeroUpTo2GiB() {
    try (NativeBuffer empty = NativeBuffer.allocate(0)) {
      assertEquals(0, empty.size());
      refused(IndexOutOfBoundsException.class, "bytes [0, 1)", () -> empty.getByte(0));
    }
    refused(IllegalArgumentException.class, "out of range", () -> NativeBuffer.allocate(-1));
    refused(IllegalArgumentException.class, "out of range",
        () -> NativeBuffer.allocate(Integer.MAX_VALUE + 1L));
  }

  // ---- ColumnBuffers and VectorBuffers ----

  static ParquetSchema allPhysical() {
    return ParquetSchema.builder().booleanColumn("b", true).int32Column("i", true)
        .int64Column("l", true).floatColumn("f", true).doubleColumn("d", true)
        .stringColumn("s", true).fixedBinaryColumn("x", 3, true).int96Column("t", true).build();
  }

  static boolean valid(ColumnBuffers c, int row) {
    return (c.validity().getByte(row >>> 3) & (1 << (row & 7))) != 0;
  }

  @Test
  void everySetterRefusesRowsOutsideTheBatchAndOtherTypes() {
    int cap = 13;
    try (VectorBuffers v = VectorBuffers.allocate(allPhysical(), cap)) {
      ColumnBuffers b = v.column("b");
      ColumnBuffers i = v.column("i");
      ColumnBuffers l = v.column("l");
      ColumnBuffers f = v.column("f");
      ColumnBuffers d = v.column("d");
      ColumnBuffers s = v.column("s");
      ColumnBuffers x = v.column("x");
      for (int row : new int[] {-1, cap}) {
        String where = "row " + row + " outside capacity " + cap;
        refused(IndexOutOfBoundsException.class, "column 'b': " + where, () -> b.setBoolean(row, true));
        refused(IndexOutOfBoundsException.class, "column 'i': " + where, () -> i.setInt(row, 1));
        refused(IndexOutOfBoundsException.class, "column 'l': " + where, () -> l.setLong(row, 1));
        refused(IndexOutOfBoundsException.class, "column 'f': " + where, () -> f.setFloat(row, 1));
        refused(IndexOutOfBoundsException.class, "column 'd': " + where, () -> d.setDouble(row, 1));
        refused(IndexOutOfBoundsException.class, "column 's': " + where, () -> s.setBytes(row, new byte[1]));
        refused(IndexOutOfBoundsException.class, "column 'x': " + where, () -> x.setBytes(row, new byte[3]));
        refused(IndexOutOfBoundsException.class, "column 'i': " + where, () -> i.setNull(row));
      }
      refused(IllegalArgumentException.class, "column 'i' is INT32, not BOOLEAN", () -> i.setBoolean(0, true));
      refused(IllegalArgumentException.class, "column 'l' is INT64, not INT32", () -> l.setInt(0, 1));
      refused(IllegalArgumentException.class, "column 'i' is INT32, not INT64", () -> i.setLong(0, 1));
      refused(IllegalArgumentException.class, "column 'd' is DOUBLE, not FLOAT", () -> d.setFloat(0, 1));
      refused(IllegalArgumentException.class, "column 'f' is FLOAT, not DOUBLE", () -> f.setDouble(0, 1));
      refused(IllegalArgumentException.class, "column 'i' is INT32, not BYTE_ARRAY", () -> i.setBytes(0, new byte[4]));
      refused(IllegalArgumentException.class, "value of 4 bytes, the column holds 3", () -> x.setBytes(0, new byte[4]));
      refused(IllegalArgumentException.class, "column 'l' is INT64, not INT32",
          () -> l.setInts(0, new int[1], 0, 1));
      // A range: its first and its last row are checked; an empty one anywhere up to the end.
      i.setInts(cap, new int[0], 0, 0);
      i.setInts(cap - 3, new int[] {1, 2, 3}, 0, 3);
      refused(IndexOutOfBoundsException.class, "row -1 outside", () -> i.setInts(-1, new int[2], 0, 2));
      refused(IndexOutOfBoundsException.class, "row 13 outside", () -> i.setInts(cap - 2, new int[3], 0, 3));
      refused(IllegalArgumentException.class, "negative count -1", () -> i.setInts(0, new int[1], 0, -1));
      assertTrue(!valid(i, 0) && valid(i, cap - 3) && valid(i, cap - 1), "only the rows set");
    }
  }

  @Test
  void valuesAndValidityLandWhereTheWriterReadsThem() {
    int cap = 21;
    try (VectorBuffers v = VectorBuffers.allocate(allPhysical(), cap)) {
      ColumnBuffers b = v.column(0);
      ColumnBuffers i = v.column(1);
      ColumnBuffers l = v.column(2);
      ColumnBuffers f = v.column(3);
      ColumnBuffers d = v.column(4);
      ColumnBuffers x = v.column(6);
      ColumnBuffers t = v.column(7);
      assertEquals("x", x.column().name());
      for (int r = 0; r < cap; r++) {
        b.setBoolean(r, r % 3 == 0);
        i.setInt(r, 100 + r);
        l.setLong(r, -r * 1_000_000_007L);
        f.setFloat(r, r / 4f);
        d.setDouble(r, -r / 8.0);
        x.setBytes(r, new byte[] {(byte) r, 0, (byte) -r});
        t.setBytes(r, new byte[] {(byte) r, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, (byte) -r});
      }
      b.setBoolean(6, false);
      for (int r = 0; r < cap; r++) {
        assertEquals(r % 3 == 0 && r != 6, (b.values().getByte(r >>> 3) & (1 << (r & 7))) != 0, "bit " + r);
        assertEquals(100 + r, i.values().getInt(4L * r));
        assertEquals(-r * 1_000_000_007L, l.values().getLong(8L * r));
        assertEquals(Float.floatToIntBits(r / 4f), f.values().getInt(4L * r));
        assertEquals(Double.doubleToLongBits(-r / 8.0), d.values().getLong(8L * r));
        assertEquals((byte) -r, x.values().getByte(3L * r + 2));
        assertEquals((byte) r, t.values().getByte(12L * r));
        for (ColumnBuffers c : new ColumnBuffers[] {b, i, l, f, d, x, t}) {
          assertTrue(valid(c, r), c.column().name() + " row " + r);
        }
      }
      for (int r : new int[] {0, 7, 8, 20}) {
        i.setNull(r);
      }
      for (int r = 0; r < cap; r++) {
        assertEquals(r != 0 && r != 7 && r != 8 && r != 20, valid(i, r), "row " + r);
      }
    }
  }

  @Test
  void bulkSettersMarkExactlyTheirRowsValid() {
    int cap = 40;
    int[][] ranges = {{0, 40}, {3, 13}, {8, 8}, {5, 2}, {9, 23}, {16, 0}, {31, 9}};
    for (int[] range : ranges) {
      try (VectorBuffers v = VectorBuffers.allocate(
          ParquetSchema.builder().int32Column("i", true).int64Column("l", true)
              .floatColumn("f", true).doubleColumn("d", true).build(), cap)) {
        int row = range[0];
        int n = range[1];
        int[] ints = new int[n + 2];
        long[] longs = new long[n + 2];
        float[] floats = new float[n + 2];
        double[] doubles = new double[n + 2];
        for (int k = 0; k < n + 2; k++) {
          ints[k] = k * 3;
          longs[k] = -k;
          floats[k] = k + 0.5f;
          doubles[k] = k - 0.25;
        }
        v.column(0).setInts(row, ints, 2, n);
        v.column(1).setLongs(row, longs, 2, n);
        v.column(2).setFloats(row, floats, 2, n);
        v.column(3).setDoubles(row, doubles, 2, n);
        for (int r = 0; r < cap; r++) {
          boolean in = r >= row && r < row + n;
          for (int c = 0; c < 4; c++) {
            assertEquals(in, valid(v.column(c), r), "range " + row + "+" + n + " column " + c + " row " + r);
          }
          if (in) {
            int k = r - row + 2;
            assertEquals(k * 3, v.column(0).values().getInt(4L * r));
            assertEquals(-k, v.column(1).values().getLong(8L * r));
            assertEquals(Float.floatToIntBits(k + 0.5f), v.column(2).values().getInt(4L * r));
            assertEquals(Double.doubleToLongBits(k - 0.25), v.column(3).values().getLong(8L * r));
          }
        }
      }
    }
  }

  @Test
  void stringsGrowTheirBufferAndResetStartsTheBatchAgain() throws IOException {
    ParquetSchema schema = ParquetSchema.builder().stringColumn("s", true).int32Column("i", true).build();
    Path file = dir.resolve("strings.parquet");
    try (OutputStream out = Files.newOutputStream(file);
        ColumnarParquetWriter w = new ColumnarParquetWriter(out, schema, WriterOptions.defaults())) {
      long before = NativeBuffer.allocatedBytes();
      try (VectorBuffers v = VectorBuffers.allocate(schema, 10)) {
        assertEquals(v.capacityInBytes(), NativeBuffer.allocatedBytes() - before, "every buffer counted");
        ColumnBuffers s = v.column("s");
        // Rows 0, 2 and 9 set, 1 and 3..8 empty (null); 3 KiB against 80 bytes to start with.
        s.setBytes(0, TestData.utf8("a".repeat(1000)));
        s.setBytes(2, TestData.utf8("b".repeat(1000)));
        refused(IllegalArgumentException.class, "row 1 set after row 2", () -> s.setBytes(1, new byte[1]));
        s.setBytes(9, TestData.utf8("c".repeat(1000)), 0, 1000);
        v.column("i").setInt(1, 5);
        v.setRowCount(10);
        assertEquals(v.capacityInBytes(), NativeBuffer.allocatedBytes() - before, "the grown buffer, the old one freed");
        w.write(v);
        v.reset();
        assertEquals(0, v.rowCount());
        for (int r = 0; r < 10; r++) {
          assertFalse(valid(s, r) || valid(v.column("i"), r), "row " + r + " null again");
        }
        s.setBytes(0, TestData.utf8("again"));
        v.setRowCount(1);
        w.write(v);
      }
      assertEquals(before, NativeBuffer.allocatedBytes());
      w.finish();
    }
    Object[][] read = TestData.read(file);
    assertArrayEquals(TestData.utf8("a".repeat(1000)), (byte[]) read[0][0]);
    assertNull(read[0][1]);
    assertArrayEquals(TestData.utf8("b".repeat(1000)), (byte[]) read[0][2]);
    assertNull(read[0][8]);
    assertArrayEquals(TestData.utf8("c".repeat(1000)), (byte[]) read[0][9]);
    assertArrayEquals(TestData.utf8("again"), (byte[]) read[0][10]);
    assertEquals(5, read[1][1]);
    assertNull(read[1][10]);
  }

  @Test
  void vectorBuffersRefuseWhatTheWriterCouldNotRead() {
    refused(IllegalArgumentException.class, "capacity -1 is negative",
        () -> VectorBuffers.allocate(allPhysical(), -1));
    // A column that cannot be allocated (8 bytes a row past 2 GiB) frees the ones before it.
    long before = NativeBuffer.allocatedBytes();
    refused(IllegalArgumentException.class, "out of range", () -> VectorBuffers.allocate(
        ParquetSchema.builder().booleanColumn("b", true).int64Column("l", true).build(), 300_000_000));
    assertEquals(before, NativeBuffer.allocatedBytes());
    try (VectorBuffers none = VectorBuffers.allocate(allPhysical(), 0)) {
      refused(IndexOutOfBoundsException.class, "row 0 outside capacity 0", () -> none.column(1).setInt(0, 1));
      refused(IllegalArgumentException.class, "row count 1 outside 0..0", () -> none.setRowCount(1));
    }
    VectorBuffers v = VectorBuffers.allocate(allPhysical(), 4);
    assertFalse(v.isClosed());
    assertEquals(4, v.capacity());
    assertEquals(8, v.schema().size());
    v.setRowCount(4);
    refused(IllegalArgumentException.class, "row count 5 outside 0..4", () -> v.setRowCount(5));
    refused(IllegalArgumentException.class, "row count -1", () -> v.setRowCount(-1));
    refused(IllegalArgumentException.class, "no column 'nope'", () -> v.column("nope"));
    ParquetSchema other = ParquetSchema.builder().booleanColumn("b", true).int64Column("i", true)
        .int64Column("l", true).floatColumn("f", true).doubleColumn("d", true)
        .stringColumn("s", true).fixedBinaryColumn("x", 3, true).int96Column("t", true).build();
    refused(IllegalArgumentException.class, "column 'i' is INT64 in the writer's schema, the batch holds INT32",
        () -> v.describe(other));
    ParquetSchema wider = ParquetSchema.builder().booleanColumn("b", true).int32Column("i", true)
        .int64Column("l", true).floatColumn("f", true).doubleColumn("d", true)
        .stringColumn("s", true).fixedBinaryColumn("x", 4, true).int96Column("t", true).build();
    refused(IllegalArgumentException.class,
        "column 'x' is FIXED_LEN_BYTE_ARRAY(4) in the writer's schema, the batch holds FIXED_LEN_BYTE_ARRAY(3)",
        () -> v.describe(wider));
    refused(IllegalArgumentException.class, "the writer's schema has 1",
        () -> v.describe(ParquetSchema.builder().int32Column("i", true).build()));
    assertEquals(8 * NativeBridge.LONGS_PER_COLUMN, v.describe(allPhysical()).length);
    v.close();
    v.close();
    assertTrue(v.isClosed());
    refused(IllegalStateException.class, "closed", v::reset);
    refused(IllegalStateException.class, "closed", () -> v.setRowCount(0));
    refused(IllegalStateException.class, "closed", () -> v.column(0));
    refused(IllegalStateException.class, "closed", () -> v.column("b"));
    refused(IllegalStateException.class, "closed", v::capacityInBytes);
  }

  // ---- RowBatch ----

  @Test
  void rowBatchBoundsAndSources() {
    refused(IllegalArgumentException.class, "maxRows must be positive, got 0", () -> new RowBatch(0, 64));
    try (RowBatch batch = new RowBatch(2, 64)) {
      assertTrue(batch.isEmpty());
      assertFalse(batch.isFull());
      batch.append(new byte[0], 0, 0);
      assertFalse(batch.isEmpty());
      assertFalse(batch.isFull(), "one row of two");
      byte[] held = new byte[40];
      refused(IndexOutOfBoundsException.class, "row range -1+8", () -> batch.append(held, -1, 8));
      refused(IndexOutOfBoundsException.class, "row range 0+-1", () -> batch.append(held, 0, -1));
      refused(IndexOutOfBoundsException.class, "row bytes [36, 44) outside an array of 40 bytes",
          () -> batch.append(held, 36, 8));
      refused(IndexOutOfBoundsException.class, "row bytes [8, 40) outside an array of 32 bytes",
          () -> batch.append(new long[4], sun.misc.Unsafe.ARRAY_LONG_BASE_OFFSET + 8, 32));
      refused(IllegalArgumentException.class, "not off-heap memory",
          () -> batch.append((Object) null, 1024L, 8));
      refused(IllegalArgumentException.class, "row size -8 is negative", () -> batch.append(held, 16L, -8));
      batch.append(new long[4], sun.misc.Unsafe.ARRAY_LONG_BASE_OFFSET + 8, 24);
      assertTrue(batch.isFull());
      assertEquals(24, batch.sizeInBytes());
      refused(IllegalStateException.class, "row batch is full (2 rows)", () -> batch.append(held, 0, 8));
      batch.clear();
      assertTrue(batch.isEmpty());
      assertEquals(0, batch.sizeInBytes());
    }
  }

  @Test
  void rowBatchGrowsWithinTwiceWhatItsRowsNeedAndFreesAll() throws IOException {
    ParquetSchema schema = ParquetSchema.builder().int64Column("id", true).stringColumn("name", true)
        .timestampColumn("ts", ParquetSchema.TimeUnit.MICROS, true, true).build();
    Path file = dir.resolve("grow.parquet");
    int n = 300;
    try (OutputStream out = Files.newOutputStream(file);
        ColumnarParquetWriter w = new ColumnarParquetWriter(out, schema, WriterOptions.defaults())) {
      w.configureRows();
      long before = NativeBuffer.allocatedBytes();
      try (RowBatch batch = new RowBatch(100_000, 64)) {
        assertEquals(batch.capacityInBytes(), NativeBuffer.allocatedBytes() - before);
        for (int i = 0; i < n; i++) {
          // Rows from 32 bytes to 5 KB, some from the middle of a larger array.
          String name = i % 50 == 7 ? "x".repeat(5000 + i) : (i % 2 == 0 ? null : "n" + i);
          byte[] r = RowBatchTest.row((long) i, name, (long) -i);
          byte[] padded = new byte[r.length + 11];
          System.arraycopy(r, 0, padded, 5, r.length);
          batch.append(padded, 5, r.length);
          long need = batch.sizeInBytes() + 4L * (batch.rowCount() + 1);
          assertEquals(batch.capacityInBytes(), NativeBuffer.allocatedBytes() - before, "old buffers freed");
          assertTrue(batch.capacityInBytes() <= 2 * need + 128,
              batch.capacityInBytes() + " bytes held for " + need + " needed, row " + i);
        }
        w.writeRows(batch);
      }
      assertEquals(before, NativeBuffer.allocatedBytes());
      w.finish();
    }
    Object[][] read = TestData.read(file);
    for (int i = 0; i < n; i++) {
      assertEquals((long) i, read[0][i]);
      String name = i % 50 == 7 ? "x".repeat(5000 + i) : (i % 2 == 0 ? null : "n" + i);
      if (name == null) {
        assertNull(read[1][i]);
      } else {
        assertArrayEquals(TestData.utf8(name), (byte[]) read[1][i], "row " + i);
      }
      assertEquals((long) -i, read[2][i]);
    }
  }

  // ---- WriterOptions ----

  @Test
  void everyOptionIsParquetJavasKeyAndTheNativeWriterTakesIt() throws IOException {
    WriterOptions o = WriterOptions.builder()
        .codec(Codec.ZSTD, 5)
        .pageSize(Integer.MAX_VALUE)
        .dictionaryPageSize(1)
        .rowGroupSize(64L << 20)
        .pageRowCountLimit(1000)
        .dictionaryEnabled(false)
        .dictionaryEnabled("s", true)
        .byteStreamSplit("d", true)
        .statisticsEnabled(false)
        .writerVersion(1)
        .pageChecksum(false)
        .parquetJavaRuns(true)
        .deltaBinaryPacked(false)
        .columnIndexTruncateLength(16)
        .statisticsTruncateLength(8)
        .bloomFilterMaxBytes(4096)
        .bloomFilter("s", new BloomFilterSettings(null, 0.05, true, 3))
        .property("parquet.block.row.count.limit", "50")
        .keyValueMetadata("k", "v")
        .build();
    Map<String, String> want = new LinkedHashMap<>();
    want.put("parquet.compression", "ZSTD");
    want.put("parquet.compression.codec.zstd.level", "5");
    want.put("parquet.page.size", String.valueOf(Integer.MAX_VALUE));
    want.put("parquet.dictionary.page.size", "1");
    want.put("parquet.block.size", String.valueOf(64L << 20));
    want.put("parquet.page.row.count.limit", "1000");
    want.put("parquet.enable.dictionary", "false");
    want.put("parquet.enable.dictionary#s", "true");
    want.put("parquet.enable.bytestreamsplit#d", "true");
    want.put("parquet.column.statistics.enabled", "false");
    want.put("parquet.writer.version", "v1");
    want.put("parquet.page.write-checksum.enabled", "false");
    want.put("vecruntime.rle.parquet-java-runs", "true");
    want.put("vecruntime.delta-binary-packed", "false");
    want.put("parquet.columnindex.truncate.length", "16");
    want.put("parquet.statistics.truncate.length", "8");
    want.put("parquet.bloom.filter.max.bytes", "4096");
    want.put("parquet.bloom.filter.enabled#s", "true");
    want.put("parquet.bloom.filter.fpp#s", "0.05");
    want.put("parquet.bloom.filter.adaptive.enabled#s", "true");
    want.put("parquet.bloom.filter.candidates.number#s", "3");
    want.put("parquet.block.row.count.limit", "50");
    assertEquals(want, o.toProperties());
    assertEquals(Codec.ZSTD, o.codec());
    assertEquals(Map.of("k", "v"), o.keyValueMetadata());
    // The native side knows every key the JVM side writes.
    ParquetSchema schema = ParquetSchema.builder().stringColumn("s", true).doubleColumn("d", true).build();
    try (ColumnarParquetWriter w = new ColumnarParquetWriter(OutputStream.nullOutputStream(), schema, o)) {
      w.finish();
    }
    // A Hadoop configuration's keys are passed on where parquet-java reads them: all of the
    // builder's, but the two it sets per column that parquet-java's configuration has per file.
    for (String key : o.toProperties().keySet()) {
      boolean perFileInHadoop = key.startsWith("parquet.enable.bytestreamsplit#")
          || key.startsWith("parquet.bloom.filter.adaptive.enabled#");
      assertEquals(!perFileInHadoop, WriterOptions.takes(key), key);
    }
    assertTrue(WriterOptions.takes("parquet.bloom.filter.fpp#any"));
    assertTrue(WriterOptions.takes("parquet.bloom.filter.enabled"));
    // Keys parquet-java reads per column only, or not at all.
    assertFalse(WriterOptions.takes("parquet.bloom.filter.fpp"));
    assertFalse(WriterOptions.takes("parquet.page.size#c"));
    assertFalse(WriterOptions.takes("parquet.pagesize"));
    refused(IllegalArgumentException.class, "parquet.page.size must be in 1..=2147483647, got 0",
        () -> WriterOptions.builder().pageSize(0).build());
    refused(IllegalArgumentException.class, "'parquet.writer.version' = 'v3'",
        () -> WriterOptions.builder().writerVersion(3).build());
    refused(IllegalArgumentException.class, "'parquet.compression' = 'brotli': unknown codec",
        () -> WriterOptions.builder().property("parquet.compression", "brotli").build());
    refused(IllegalArgumentException.class, "codec SNAPPY has no level",
        () -> WriterOptions.builder().codec(Codec.SNAPPY, 1));
    // A row group cut at every size check (parquet-java's reading of 0 and less), or past 2 GiB.
    WriterOptions.builder().rowGroupSize(0).build();
    WriterOptions.builder().rowGroupSize(Integer.MAX_VALUE + 1L).build();
    // Each codec by its name, and Spark's names for them.
    for (Codec c : Codec.values()) {
      assertEquals(c, WriterOptions.builder().codec(c).build().codec());
    }
    assertEquals(Codec.UNCOMPRESSED,
        WriterOptions.builder().property("parquet.compression", "none").build().codec());
    assertEquals(Codec.LZ4_RAW,
        WriterOptions.builder().property("parquet.compression", "lz4_raw").build().codec());
    assertEquals(Map.of("parquet.compression", "GZIP", "zlib.compress.level", "9"),
        WriterOptions.builder().codec(Codec.ZSTD, 1).codec(Codec.GZIP, 9).build().toProperties());
  }
}
