package io.vecruntime.parquet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ColumnarParquetWriterTest {
  @TempDir Path dir;

  @Test
  void rowGroupsReachTheStreamAsTheyCompleteAndMemoryStaysAboutOneRowGroup() throws IOException {
    ParquetSchema schema = ParquetSchema.builder().int64Column("id", false).stringColumn("s", true).build();
    long rowGroup = 256 * 1024;
    List<Long> streamed = new ArrayList<>();
    long maxHeld = 0;
    Path file = dir.resolve("f.parquet");
    try (OutputStream out = Files.newOutputStream(file);
        ColumnarParquetWriter w = new ColumnarParquetWriter(out, schema,
            WriterOptions.builder().codec(Codec.UNCOMPRESSED).rowGroupSize(rowGroup).build());
        VectorBuffers b = VectorBuffers.allocate(schema, 10_000)) {
      for (int batch = 0; batch < 40; batch++) {
        b.reset();
        for (int i = 0; i < 10_000; i++) {
          long id = batch * 10_000L + i;
          b.column(0).setLong(i, id);
          if (i % 7 != 0) {
            b.column(1).setBytes(i, TestData.utf8("row " + id));
          }
        }
        b.setRowCount(10_000);
        w.write(b);
        streamed.add(w.bytesWritten());
        maxHeld = Math.max(maxHeld, w.nativeBytesHeld());
      }
      FooterSummary s = w.finish();
      assertEquals(400_000, s.numRows());
      assertTrue(s.rowGroups().size() > 10, "row groups: " + s.rowGroups().size());
    }
    // Bytes reached the stream batch after batch, not only at close.
    assertTrue(streamed.get(10) > 4 && streamed.get(39) > streamed.get(10), streamed.toString());
    // 40 batches of ~150 KB each went through; the writer never held more than a few row groups.
    assertTrue(maxHeld < 4 * rowGroup, "held " + maxHeld);
    Object[][] read = TestData.read(file);
    assertEquals(400_000, read[0].length);
    for (int r = 0; r < 400_000; r += 9973) {
      assertEquals((long) r, read[0][r]);
      assertArrayEquals(r % 10_000 % 7 == 0 ? null : TestData.utf8("row " + r), (byte[]) read[1][r]);
    }
  }

  @Test
  void keyValueMetadataAndCodecReachTheFooter() throws IOException {
    ParquetSchema schema = ParquetSchema.builder().int32Column("x", true).build();
    Path file = dir.resolve("kv.parquet");
    try (OutputStream out = Files.newOutputStream(file);
        ColumnarParquetWriter w = new ColumnarParquetWriter(out, schema, WriterOptions.builder()
            .codec(Codec.ZSTD, 9).keyValueMetadata("org.apache.spark.version", "4.2.0")
            .keyValueMetadata("k", "v").build());
        VectorBuffers b = VectorBuffers.allocate(schema, 3)) {
      b.column(0).setInt(0, 5);
      b.column(0).setInt(2, -5);
      b.setRowCount(3);
      w.write(b);
    }
    ParquetMetadata footer = TestData.footer(file);
    assertEquals("4.2.0", footer.getFileMetaData().getKeyValueMetaData().get("org.apache.spark.version"));
    assertEquals("v", footer.getFileMetaData().getKeyValueMetaData().get("k"));
    assertEquals("ZSTD", footer.getBlocks().get(0).getColumns().get(0).getCodec().name());
    assertEquals(ColumnarParquetWriter.createdBy(), footer.getFileMetaData().getCreatedBy());
    Object[][] read = TestData.read(file);
    assertEquals(5, read[0][0]);
    assertNull(read[0][1]);
    assertEquals(-5, read[0][2]);
  }

  @Test
  void summaryKeepsWholeBoundsWhereTheFooterLeavesThemOut() throws IOException {
    ParquetSchema schema = ParquetSchema.builder().stringColumn("s", true).int32Column("i", true)
        .build();
    String low = "a".repeat(3000);
    String high = "b".repeat(3000);
    try (OutputStream out = Files.newOutputStream(dir.resolve("long.parquet"));
        ColumnarParquetWriter w = new ColumnarParquetWriter(out, schema, WriterOptions.defaults());
        VectorBuffers b = VectorBuffers.allocate(schema, 3)) {
      b.column(0).setBytes(0, TestData.utf8(high));
      b.column(0).setBytes(2, TestData.utf8(low));
      b.column(1).setInt(0, 7);
      b.column(1).setInt(1, -3);
      b.setRowCount(3);
      w.write(b);
      FooterSummary.ColumnChunk s = w.finish().rowGroups().get(0).columns().get(0);
      assertNull(s.min(), "min + max over 4 KiB are not in the footer");
      assertArrayEquals(TestData.utf8(low), s.wholeMin());
      assertArrayEquals(TestData.utf8(high), s.wholeMax());
      assertEquals(1, s.nullCount());
      FooterSummary.ColumnChunk i = w.summary().rowGroups().get(0).columns().get(1);
      assertArrayEquals(i.min(), i.wholeMin(), "the footer's where it has them");
      assertArrayEquals(new byte[] {-3, -1, -1, -1}, i.wholeMin());
      assertArrayEquals(new byte[] {7, 0, 0, 0}, i.wholeMax());
    }
  }

  @Test
  void buffersGrowAndRejectOutOfOrderBinaryRows() {
    ParquetSchema schema = ParquetSchema.builder().binaryColumn("b", true).int32Column("i", true).build();
    try (VectorBuffers b = VectorBuffers.allocate(schema, 4)) {
      byte[] big = new byte[100_000];
      big[99_999] = 7;
      b.column(0).setBytes(1, big);
      b.column(0).setBytes(3, new byte[] {1});
      assertThrows(IllegalArgumentException.class, () -> b.column(0).setBytes(2, new byte[] {2}));
      assertThrows(IllegalArgumentException.class, () -> b.column(1).setLong(0, 1L));
      assertThrows(IndexOutOfBoundsException.class, () -> b.column(1).setInt(4, 1));
      assertThrows(IllegalArgumentException.class, () -> b.setRowCount(5));
      assertEquals(0, b.column(0).offsets().getInt(4), "row 0 is empty");
      assertEquals(100_000, b.column(0).offsets().getInt(8));
      assertEquals(100_000, b.column(0).offsets().getInt(12), "row 2 is empty");
      assertEquals(7, b.column(0).values().getByte(99_999));
    }
  }

  @Test
  void bulkSettersMarkTheirRowsValid() throws IOException {
    ParquetSchema schema = ParquetSchema.builder().int32Column("i", true).int64Column("l", true)
        .floatColumn("f", true).doubleColumn("d", true).build();
    Path file = dir.resolve("bulk.parquet");
    try (OutputStream out = Files.newOutputStream(file);
        ColumnarParquetWriter w = new ColumnarParquetWriter(out, schema, WriterOptions.defaults());
        VectorBuffers b = VectorBuffers.allocate(schema, 40)) {
      int[] ints = new int[30];
      long[] longs = new long[30];
      float[] floats = new float[30];
      double[] doubles = new double[30];
      for (int i = 0; i < 30; i++) {
        ints[i] = i;
        longs[i] = -i;
        floats[i] = i / 2f;
        doubles[i] = i / 4.0;
      }
      // Rows 3..27 (unaligned both ends) from index 5 of the arrays; row 10 null afterwards.
      b.column(0).setInts(3, ints, 5, 25);
      b.column(1).setLongs(3, longs, 5, 25);
      b.column(2).setFloats(3, floats, 5, 25);
      b.column(3).setDoubles(3, doubles, 5, 25);
      for (int c = 0; c < 4; c++) {
        b.column(c).setNull(10);
      }
      assertThrows(IndexOutOfBoundsException.class, () -> b.column(0).setInts(30, ints, 0, 11));
      assertThrows(IllegalArgumentException.class, () -> b.column(0).setLongs(0, longs, 0, 1));
      b.setRowCount(31);
      w.write(b);
    }
    Object[][] read = TestData.read(file);
    for (int r = 0; r < 31; r++) {
      boolean valid = r >= 3 && r < 28 && r != 10;
      assertEquals(valid ? (Object) (r + 2) : null, read[0][r], "row " + r);
      assertEquals(valid ? (Object) (long) -(r + 2) : null, read[1][r]);
      assertEquals(valid ? (Object) ((r + 2) / 2f) : null, read[2][r]);
      assertEquals(valid ? (Object) ((r + 2) / 4.0) : null, read[3][r]);
    }
  }

  @Test
  void platformNamesAndAMissingLibrary() {
    assertEquals("linux-x86_64", NativeLibrary.platform("Linux", "amd64"));
    assertEquals("linux-aarch64", NativeLibrary.platform("Linux", "aarch64"));
    assertEquals("darwin-aarch64", NativeLibrary.platform("Mac OS X", "arm64"));
    VecRuntimeException e = assertThrows(VecRuntimeException.class, () -> NativeLibrary.extract("plan9-mips", NativeLibrary.BASELINE));
    assertTrue(e.getMessage().contains("'plan9-mips'") && e.getMessage().contains("/plan9-mips/libvecruntime.so"),
        e.getMessage());
  }

  /** endRowGroup ends the open row group at once and frees its pages; with no rows, nothing. */
  @Test
  void endRowGroupCutsTheRowGroupAndFreesItsPages() throws IOException {
    ParquetSchema schema = ParquetSchema.builder().int64Column("id", false).build();
    Path file = dir.resolve("ended.parquet");
    try (OutputStream out = Files.newOutputStream(file);
        ColumnarParquetWriter w = new ColumnarParquetWriter(out, schema, WriterOptions.defaults());
        VectorBuffers b = VectorBuffers.allocate(schema, 1000)) {
      for (int round = 0; round < 3; round++) {
        b.reset();
        for (int i = 0; i < 1000; i++) {
          b.column(0).setLong(i, round * 1000L + i);
        }
        b.setRowCount(1000);
        w.write(b);
        long held = w.nativeBytesHeld();
        long written = w.bytesWritten();
        w.endRowGroup();
        w.endRowGroup(); // nothing buffered: no empty row group
        assertTrue(w.nativeBytesHeld() < held, "pages freed: " + held + " -> " + w.nativeBytesHeld());
        assertTrue(w.bytesWritten() > written, "pages reached the stream");
      }
      FooterSummary s = w.finish();
      assertEquals(3, s.rowGroups().size());
      s.rowGroups().forEach(g -> assertEquals(1000, g.numRows()));
    }
    Object[][] read = TestData.read(file);
    for (int r = 0; r < 3000; r++) {
      assertEquals((long) r, read[0][r]);
    }
  }
}

