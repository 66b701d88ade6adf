package io.vecruntime.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input, misuse and failing streams: each is a Java exception naming the column and the
 * problem, the JVM keeps running, and no native memory or writer handle is left behind.
 */
class ErrorHandlingTest {
  @TempDir Path dir;

  static final ParquetSchema SCHEMA = ParquetSchema.builder()
      .int32Column("id", false)
      .stringColumn("name", true)
      .decimalColumn("amount", 30, 2, true)
      .build();

  long memoryBefore;
  long writersBefore;

  @BeforeEach
  void baseline() {
    memoryBefore = NativeBuffer.allocatedBytes();
    writersBefore = ColumnarParquetWriter.openWriters();
  }

  @AfterEach
  void nothingLeaks() {
    assertEquals(memoryBefore, NativeBuffer.allocatedBytes(), "native buffers left allocated");
    assertEquals(writersBefore, ColumnarParquetWriter.openWriters(), "native writers left open");
  }

  static VectorBuffers goodBatch(int rows) {
    VectorBuffers b = VectorBuffers.allocate(SCHEMA, rows);
    for (int i = 0; i < rows; i++) {
      b.column(0).setInt(i, i);
      b.column(1).setBytes(i, TestData.utf8("n" + i));
      b.column(2).setBytes(i, new byte[SCHEMA.column(2).typeLength()]);
    }
    b.setRowCount(rows);
    return b;
  }

  /** A batch over caller buffers: id values, name offsets and bytes, amount bytes. */
  static VectorBuffers wrapped(int rows, long idBytes, int[] nameOffsets, long nameBytes, long amountBytes) {
    NativeBuffer ids = NativeBuffer.allocate(idBytes);
    NativeBuffer offsets = NativeBuffer.allocate(4L * nameOffsets.length);
    for (int i = 0; i < nameOffsets.length; i++) {
      offsets.putInt(4 * i, nameOffsets[i]);
    }
    NativeBuffer names = NativeBuffer.allocate(nameBytes);
    NativeBuffer amounts = NativeBuffer.allocate(amountBytes);
    return VectorBuffers.wrap(SCHEMA, rows,
        new ColumnBuffers(SCHEMA.column(0), null, ids, null),
        new ColumnBuffers(SCHEMA.column(1), null, names, offsets),
        new ColumnBuffers(SCHEMA.column(2), null, amounts, null));
  }

  IllegalArgumentException rejected(VectorBuffers bad) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (ColumnarParquetWriter w = new ColumnarParquetWriter(out, SCHEMA, WriterOptions.defaults());
        VectorBuffers b = bad;
        VectorBuffers good = goodBatch(10)) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> w.write(b));
      // Rejected before anything was written: the writer goes on and the file is complete.
      w.write(good);
      FooterSummary s = w.finish();
      assertEquals(10, s.numRows());
      assertEquals(out.size(), s.fileSize());
      return e;
    }
  }

  @Test
  void valuesShorterThanTheRowCount() throws IOException {
    IllegalArgumentException e = rejected(wrapped(10, 4 * 9, new int[11], 0, 14 * 10));
    assertTrue(e.getMessage().contains("column 'id'") && e.getMessage().contains("values holds 9"),
        e.getMessage());
  }

  @Test
  void offsetsNotMonotone() throws IOException {
    IllegalArgumentException e =
        rejected(wrapped(3, 12, new int[] {0, 5, 2, 6}, 8, 14 * 3));
    assertTrue(e.getMessage().contains("column 'name'") && e.getMessage().contains("not monotone"),
        e.getMessage());
  }

  @Test
  void offsetsPastTheData() throws IOException {
    IllegalArgumentException e = rejected(wrapped(2, 8, new int[] {0, 3, 100}, 8, 14 * 2));
    assertTrue(e.getMessage().contains("column 'name'"), e.getMessage());
    assertTrue(e.getMessage().contains("100"), e.getMessage());
  }

  @Test
  void fixedWidthBytesNotAMultipleOfTheWidth() throws IOException {
    int width = SCHEMA.column(2).typeLength();
    IllegalArgumentException e = rejected(wrapped(2, 8, new int[3], 0, 2L * width - 1));
    assertTrue(e.getMessage().contains("column 'amount'")
        && e.getMessage().contains("holds " + (2 * width - 1)), e.getMessage());
  }

  @Test
  void nullInARequiredColumn() throws IOException {
    VectorBuffers b = goodBatch(5);
    b.column(0).setNull(3);
    IllegalArgumentException e = rejected(b);
    assertTrue(e.getMessage().contains("column 'id'") && e.getMessage().contains("required"),
        e.getMessage());
  }

  @Test
  void batchOfAnotherSchema() throws IOException {
    ParquetSchema other = ParquetSchema.builder().int32Column("x", false).build();
    VectorBuffers b = VectorBuffers.allocate(other, 1);
    b.column(0).setInt(0, 1);
    b.setRowCount(1);
    IllegalArgumentException e = rejected(b);
    assertTrue(e.getMessage().contains("1 columns"), e.getMessage());
  }

  @Test
  void unknownOptionFailsWhenBuiltAndAColumnOfNoSchemaAtOpen() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> WriterOptions.builder().property("parquet.page.sise", "1").build());
    assertTrue(e.getMessage().contains("parquet.page.sise"), e.getMessage());
    WriterOptions noColumn = WriterOptions.builder()
        .bloomFilter("missing", BloomFilterSettings.defaults()).build();
    e = assertThrows(IllegalArgumentException.class,
        () -> new ColumnarParquetWriter(new ByteArrayOutputStream(), SCHEMA, noColumn));
    assertTrue(e.getMessage().contains("'missing'"), e.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> ParquetSchema.builder().int32Column("a", true).int64Column("a", true));
  }

  @Test
  void useAfterClose() throws IOException {
    ColumnarParquetWriter w =
        new ColumnarParquetWriter(new ByteArrayOutputStream(), SCHEMA, WriterOptions.defaults());
    try (VectorBuffers b = goodBatch(3)) {
      w.write(b);
      w.finish();
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> w.write(b));
      assertTrue(e.getMessage().contains("closed"), e.getMessage());
      assertThrows(IllegalStateException.class, w::finish);
      w.close(); // closing a finished writer is allowed
      assertEquals(0, w.nativeBytesHeld());
    }
    VectorBuffers closed = goodBatch(2);
    closed.close();
    assertThrows(IllegalStateException.class, () -> closed.column(0));
    try (ColumnarParquetWriter w2 =
        new ColumnarParquetWriter(new ByteArrayOutputStream(), SCHEMA, WriterOptions.defaults())) {
      assertThrows(IllegalStateException.class, () -> w2.write(closed));
    }
    NativeBuffer buf = NativeBuffer.allocate(16);
    buf.close();
    buf.close(); // idempotent
    assertThrows(IllegalStateException.class, () -> buf.getByte(0));
  }

  @Test
  void batchOfAnotherColumnType() throws IOException {
    ParquetSchema doubles = ParquetSchema.builder()
        .doubleColumn("id", false).stringColumn("name", true).decimalColumn("amount", 30, 2, true)
        .build();
    VectorBuffers b = VectorBuffers.allocate(doubles, 1);
    b.column(0).setDouble(0, 1.5);
    b.setRowCount(1);
    IllegalArgumentException e = rejected(b);
    assertTrue(e.getMessage().contains("column 'id' is INT32")
        && e.getMessage().contains("holds DOUBLE"), e.getMessage());
    ParquetSchema narrow = ParquetSchema.builder()
        .int32Column("id", false).stringColumn("name", true).decimalColumn("amount", 20, 2, true)
        .build();
    VectorBuffers n = VectorBuffers.allocate(narrow, 1);
    n.setRowCount(0);
    e = rejected(n);
    assertTrue(e.getMessage().contains("column 'amount'"), e.getMessage());
  }

  @Test
  void noViewOfNativeMemoryOutlivesIt() {
    ParquetSchema strings = ParquetSchema.builder().stringColumn("s", true).build();
    NativeBuffer before;
    try (VectorBuffers b = VectorBuffers.allocate(strings, 1 << 17)) {
      before = b.column(0).values();
      long size = before.size();
      before.putByte(0, (byte) 1);
      assertEquals(1, before.getByte(0));
      // Growing the values frees the old memory: the old handle refuses instead of writing it.
      b.column(0).setBytes(0, new byte[9 << 20]);
      assertTrue(b.column(0).values().size() > size);
      IllegalStateException e =
          assertThrows(IllegalStateException.class, () -> before.putByte(0, (byte) 1));
      assertTrue(e.getMessage().contains("closed"), e.getMessage());
      NativeBuffer now = b.column(0).values();
      assertThrows(IndexOutOfBoundsException.class, () -> now.putInt(now.size() - 2, 7));
      assertThrows(IndexOutOfBoundsException.class, () -> now.getLong(-1));
      assertThrows(IndexOutOfBoundsException.class, () -> now.put(now.size(), new byte[1], 0, 1));
    }
    NativeBuffer validity;
    try (VectorBuffers b = VectorBuffers.allocate(strings, 8)) {
      validity = b.column(0).validity();
    }
    assertThrows(IllegalStateException.class, () -> validity.putByte(0, (byte) 1));
  }

  @Test
  void rowBatchCopiesOnlyFromArraysItCanCheck() {
    try (RowBatch batch = new RowBatch(4, 64)) {
      long byteBase = sun.misc.Unsafe.ARRAY_BYTE_BASE_OFFSET;
      long longBase = sun.misc.Unsafe.ARRAY_LONG_BASE_OFFSET;
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> batch.append(null, 4096L, 8));
      assertTrue(e.getMessage().contains("off-heap"), e.getMessage());
      assertThrows(IllegalArgumentException.class, () -> batch.append("row", byteBase, 1));
      assertThrows(IndexOutOfBoundsException.class, () -> batch.append(new byte[4], byteBase, 8));
      assertThrows(IndexOutOfBoundsException.class, () -> batch.append(new byte[4], byteBase - 1, 1));
      assertThrows(IndexOutOfBoundsException.class, () -> batch.append(new long[1], longBase + 4, 8));
      assertThrows(IndexOutOfBoundsException.class, () -> batch.append(new byte[4], 2, 3));
      assertEquals(0, batch.rowCount(), "nothing refused was appended");
      batch.append(new long[2], longBase + 8, 8);
      batch.append(new byte[8], byteBase, 8);
      assertEquals(2, batch.rowCount());
    }
  }

  /** A buffer spec for SCHEMA whose first column's values are (address, length), all else absent. */
  static long[] firstValues(long address, long length) {
    long[] spec = new long[SCHEMA.size() * NativeBridge.LONGS_PER_COLUMN];
    spec[2] = address;
    spec[3] = length;
    return spec;
  }

  @Test
  void nativeSideChecksHandlesAndAddresses() {
    // Straight at the bridge, as a buggy caller would: exceptions, never a crash.
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> NativeBridge.write(987654321L, 1, new long[0]));
    assertTrue(e.getMessage().contains("closed or unknown"), e.getMessage());
    assertThrows(IllegalStateException.class, () -> NativeBridge.release(987654321L));
    assertThrows(IllegalStateException.class, () -> NativeBridge.free(12345L));
    long handle = NativeBridge.open("spark_schema", SCHEMA.names(), SCHEMA.spec(),
        new String[0], new String[0], new String[0], new String[0]);
    try (NativeBuffer real = NativeBuffer.allocate(64)) {
      // An address outside every live buffer, a range running past one, a misaligned int
      // array, a negative length: each named, none read.
      long[][] specs = {
        firstValues(4096, 4),
        firstValues(real.address(), 128),
        firstValues(real.address() + 2, 4),
        firstValues(real.address(), -4),
        {0, 0, real.address(), 4},
      };
      String[] expected = {"not inside a live", "not inside a live", "not aligned", "negative length",
          "expected " + NativeBridge.LONGS_PER_COLUMN + " longs"};
      for (int i = 0; i < specs.length; i++) {
        long[] spec = specs[i];
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
            () -> NativeBridge.write(handle, 1, spec));
        assertTrue(x.getMessage().contains(expected[i]), x.getMessage());
        if (i < 4) {
          assertTrue(x.getMessage().contains("column 'id'"), x.getMessage());
        }
      }
      assertThrows(IllegalArgumentException.class, () -> NativeBridge.write(handle, -1, new long[18]));
    } finally {
      NativeBridge.release(handle);
    }
  }

  @Test
  void panicBecomesAnExceptionAndTheJvmGoesOn() {
    VecRuntimeException e = assertThrows(VecRuntimeException.class, NativeBridge::panicForTest);
    assertTrue(e.getMessage().contains("internal error in the native writer"), e.getMessage());
    assertNotNull(ColumnarParquetWriter.createdBy());
  }

  static final class FailingStream extends OutputStream {
    final IOException failure = new IOException("disk full");
    long accepted;
    final long failAfter;

    FailingStream(long failAfter) {
      this.failAfter = failAfter;
    }

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      if (accepted + len > failAfter) {
        throw failure;
      }
      accepted += len;
    }
  }

  @Test
  void failingStreamReachesTheCallerAndReleasesNativeMemory() throws IOException {
    FailingStream out = new FailingStream(4); // takes the leading magic, fails on the row group
    WriterOptions small = WriterOptions.builder().rowGroupSize(64 * 1024).build();
    ColumnarParquetWriter w = new ColumnarParquetWriter(out, SCHEMA, small);
    IOException e;
    try (VectorBuffers few = goodBatch(100); VectorBuffers b = goodBatch(20_000)) {
      w.write(few);
      assertTrue(w.nativeBytesHeld() > 0, "the open row group is held natively");
      e = assertThrows(IOException.class, () -> {
        for (int i = 0; i < 50; i++) {
          w.write(b);
        }
      });
    }
    assertSame(out.failure, e.getCause());
    assertTrue(e.getMessage().contains("disk full"), e.getMessage());
    assertEquals(writersBefore, ColumnarParquetWriter.openWriters(), "writer released after the failure");
    assertEquals(0, w.nativeBytesHeld(), "no native memory held after the failure");
    assertThrows(IllegalStateException.class, w::finish);
    w.close(); // a failed writer closes quietly: its failure was already thrown
    w.abort();
  }

  /** Hadoop's local file system reports a full disk as FSError, an Error. */
  static final class DiskError extends Error {
    DiskError() {
      super("No space left on device");
    }
  }

  /** Takes the leading magic, then throws a DiskError. */
  static final class ErrorStream extends OutputStream {
    final DiskError failure = new DiskError();
    long accepted;

    @Override
    public void write(int b) {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      if (accepted + len > 4) {
        throw failure;
      }
      accepted += len;
    }
  }

  @Test
  void anErrorFromTheStreamFailsTheWriter() throws IOException {
    ErrorStream out = new ErrorStream();
    DiskError failure = out.failure;
    WriterOptions small = WriterOptions.builder().rowGroupSize(64 * 1024).build();
    ColumnarParquetWriter w = new ColumnarParquetWriter(out, SCHEMA, small);
    try (VectorBuffers b = goodBatch(20_000)) {
      DiskError e = assertThrows(DiskError.class, () -> {
        for (int i = 0; i < 50; i++) {
          w.write(b);
        }
      });
      assertSame(failure, e);
      assertEquals(writersBefore, ColumnarParquetWriter.openWriters(), "writer released after the error");
      // No later call may go on as if the lost rows had been written.
      assertThrows(IllegalStateException.class, () -> w.write(b));
      assertThrows(IllegalStateException.class, w::finish);
    }
    w.close();
    // An Error while finishing (the footer's drain) fails the writer the same way.
    ColumnarParquetWriter w2 =
        new ColumnarParquetWriter(new ErrorStream(), SCHEMA, WriterOptions.defaults());
    try (VectorBuffers b = goodBatch(100)) {
      w2.write(b);
    }
    assertThrows(DiskError.class, w2::finish);
    assertThrows(IllegalStateException.class, w2::finish);
  }

  @Test
  void failingStreamAtCloseReleasesToo() throws IOException {
    FailingStream out = new FailingStream(4);
    ColumnarParquetWriter w = new ColumnarParquetWriter(out, SCHEMA, WriterOptions.defaults());
    try (VectorBuffers b = goodBatch(100)) {
      w.write(b); // stays in the open row group
      assertTrue(w.nativeBytesHeld() > 0, "the row group is held natively");
    }
    IOException e = assertThrows(IOException.class, w::finish);
    assertSame(out.failure, e.getCause());
  }

  @Test
  void abortDropsTheFileAndItsMemory() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ColumnarParquetWriter w = new ColumnarParquetWriter(out, SCHEMA, WriterOptions.defaults());
    try (VectorBuffers b = goodBatch(1000)) {
      w.write(b);
    }
    assertTrue(w.nativeBytesHeld() > 0);
    w.abort();
    w.abort();
    assertEquals(4, out.size(), "only the leading magic reached the stream");
  }

  /**
   * An error once writing began (here a page over Parquet's 2 GiB limit, found when the page is
   * cut) leaves the writer failed and its memory released at once, unlike input rejected before
   * anything is written ({@link #rejected}), after which the writer goes on.
   */
  @Test
  void anEncodingErrorLeavesTheWriterFailedAndReleased() throws IOException {
    ParquetSchema schema = ParquetSchema.builder().stringColumn("big", false).build();
    byte[] value = new byte[22 << 20];
    WriterOptions opts = WriterOptions.builder().dictionaryEnabled(false)
        .codec(Codec.UNCOMPRESSED).build();
    try (ColumnarParquetWriter w = new ColumnarParquetWriter(OutputStream.nullOutputStream(),
            schema, opts);
        VectorBuffers b = VectorBuffers.allocate(schema, 1)) {
      VecRuntimeException e = null;
      for (int i = 0; i < 200 && e == null; i++) {
        value[0] = (byte) i; // no prefix shared with the previous value: DELTA_BYTE_ARRAY keeps all
        b.reset();
        b.column(0).setBytes(0, value);
        b.setRowCount(1);
        try {
          w.write(b);
        } catch (VecRuntimeException x) {
          e = x;
        }
      }
      assertNotNull(e, "a page over 2 GiB is refused");
      assertTrue(e.getMessage().contains("big") && e.getMessage().contains("2 GiB"),
          e.getMessage());
      assertEquals(writersBefore, ColumnarParquetWriter.openWriters(), "released at once");
      IllegalStateException later = assertThrows(IllegalStateException.class, () -> w.write(b));
      assertTrue(later.getMessage().contains("failed earlier"), later.getMessage());
    }
  }

  /** A writer dropped open (no finish, close or abort) is released once it is collected. */
  @Test
  void writersDroppedOpenAreReleasedWhenCollected() throws Exception {
    ColumnarParquetWriter last = null;
    for (int i = 0; i < 1000; i++) {
      last = new ColumnarParquetWriter(new ByteArrayOutputStream(), SCHEMA,
          WriterOptions.defaults());
      try (VectorBuffers b = goodBatch(100)) {
        last.write(b);
      }
    }
    assertTrue(ColumnarParquetWriter.openWriters() > writersBefore, "open until collected");
    java.lang.ref.Reference.reachabilityFence(last);
    last = null;
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (ColumnarParquetWriter.openWriters() > writersBefore && System.nanoTime() < deadline) {
      System.gc();
      Thread.sleep(20);
    }
    assertEquals(writersBefore, ColumnarParquetWriter.openWriters(), "collected writers released");
  }
}
