package io.vecruntime.parquet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Rows in Spark's UnsafeRow layout (built here by hand) through writeRows, read by parquet-java. */
class RowBatchTest {
  @TempDir Path dir;

  /** An UnsafeRow of (long id, string name, timestamp ts): bitset word, 3 slots, var region. */
  static byte[] row(Long id, String name, Long micros) {
    byte[] s = name == null ? new byte[0] : TestData.utf8(name);
    int varLen = (s.length + 7) / 8 * 8;
    ByteBuffer b = ByteBuffer.allocate(8 + 3 * 8 + varLen).order(ByteOrder.LITTLE_ENDIAN);
    long nulls = (id == null ? 1 : 0) | (name == null ? 2 : 0) | (micros == null ? 4 : 0);
    b.putLong(0, nulls);
    b.putLong(8, id == null ? 0 : id);
    b.putLong(16, name == null ? 0 : ((long) 32 << 32) | s.length);
    b.putLong(24, micros == null ? 0 : micros);
    b.position(32);
    b.put(s);
    return b.array();
  }

  @Test
  void unsafeRowsBecomeColumns() throws IOException {
    ParquetSchema schema = ParquetSchema.builder().int64Column("id", true).stringColumn("name", true)
        .timestampColumn("ts", ParquetSchema.TimeUnit.MILLIS, true, true).build();
    Path file = dir.resolve("rows.parquet");
    try (OutputStream out = Files.newOutputStream(file);
        ColumnarParquetWriter w = new ColumnarParquetWriter(out, schema, WriterOptions.defaults());
        RowBatch batch = new RowBatch(3, 16)) {
      w.configureRows();
      for (int i = 0; i < 10; i++) {
        byte[] r = row(i % 4 == 3 ? null : (long) i, i % 5 == 4 ? null : "näme " + i, -1501L + i);
        batch.append(r, 0, r.length);
        if (batch.isFull()) {
          w.writeRows(batch);
          batch.clear();
        }
      }
      w.writeRows(batch);
      assertTrue(batch.capacityInBytes() > 16, "the byte buffer grew");
      long kernel = w.rowKernelNanos();
      assertTrue(kernel > 0, "row kernel time counted");
      w.finish();
      assertEquals(kernel, w.rowKernelNanos(), "kept once finished");
      assertTrue(w.nativeNanos() > kernel, "native time holds the kernel's and the encoding's");
    }
    Object[][] read = TestData.read(file);
    for (int i = 0; i < 10; i++) {
      assertEquals(i % 4 == 3 ? null : (long) i, read[0][i]);
      if (i % 5 == 4) {
        assertNull(read[1][i]);
      } else {
        assertArrayEquals(TestData.utf8("näme " + i), (byte[]) read[1][i]);
      }
      assertEquals(Math.floorDiv(-1501L + i, 1000), read[2][i]);
    }
  }

  @Test
  void columnsAreReadAtTheirPositionsInWiderRows() throws IOException {
    // Rows of (id, name, ts); the file holds ts then id, and the name is not read.
    ParquetSchema schema = ParquetSchema.builder()
        .timestampColumn("ts", ParquetSchema.TimeUnit.MICROS, true, true)
        .int64Column("id", true).build();
    Path file = dir.resolve("wide.parquet");
    try (OutputStream out = Files.newOutputStream(file);
        ColumnarParquetWriter w = new ColumnarParquetWriter(out, schema, WriterOptions.defaults());
        RowBatch batch = new RowBatch(8, 64)) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> w.configureRows(3, new int[] {2, 3}, true));
      assertTrue(e.getMessage().contains("position 3 outside rows of 3 fields"), e.getMessage());
      w.configureRows(3, new int[] {2, 0}, true);
      fill(batch, row(7L, "not written", 1000L));
      fill(batch, row(null, null, null));
      w.writeRows(batch);
      w.finish();
    }
    Object[][] read = TestData.read(file);
    assertArrayEquals(new Object[] {1000L, null}, read[0]);
    assertArrayEquals(new Object[] {7L, null}, read[1]);
  }

  @Test
  void malformedRowsAreRejectedNamingTheColumn() throws IOException {
    ParquetSchema schema = ParquetSchema.builder().int64Column("id", true).stringColumn("name", true)
        .timestampColumn("ts", ParquetSchema.TimeUnit.MICROS, true, true).build();
    try (ColumnarParquetWriter w = new ColumnarParquetWriter(OutputStream.nullOutputStream(), schema,
            WriterOptions.defaults());
        RowBatch batch = new RowBatch(4, 64)) {
      assertThrows(IllegalStateException.class, () -> w.writeRows(fill(batch, row(1L, "x", 0L))),
          "rows before configureRows");
      batch.clear();
      w.configureRows();
      byte[] bad = row(1L, "abc", 0L);
      ByteBuffer.wrap(bad).order(ByteOrder.LITTLE_ENDIAN).putLong(16, ((long) 4096 << 32) | 3);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> w.writeRows(fill(batch, bad)));
      assertTrue(e.getMessage().contains("column 'name'") && e.getMessage().contains("runs past"),
          e.getMessage());
      batch.clear();
      byte[] shortRow = new byte[16];
      e = assertThrows(IllegalArgumentException.class, () -> w.writeRows(fill(batch, shortRow)));
      assertTrue(e.getMessage().contains("at least 32"), e.getMessage());
    }
  }

  static RowBatch fill(RowBatch b, byte[] r) {
    b.append(r, 0, r.length);
    return b;
  }
}
