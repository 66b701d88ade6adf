package io.vecruntime.parquet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import sun.misc.Unsafe;

/** Batches of UnsafeRows (built by hand, as in RowBatchTest) split by key natively, and moved. */
class RowSplitterTest {
  private static final String[] NAMES = {"a", "b", "a", null, "b", "a", ""};

  private static RowBatch batch() {
    RowBatch in = new RowBatch(16, 64);
    for (int i = 0; i < NAMES.length; i++) {
      byte[] r = RowBatchTest.row((long) i, NAMES[i], 7L);
      in.append(r, 0, r.length);
    }
    return in;
  }

  private static final Unsafe UNSAFE = unsafe();

  /** The id (field 0) of row i of a batch. */
  private static long id(RowBatch b, int i) {
    return UNSAFE.getLong(b.rowAddress(i) + 8);
  }

  private static Unsafe unsafe() {
    try {
      Field f = Unsafe.class.getDeclaredField("theUnsafe");
      f.setAccessible(true);
      return (Unsafe) f.get(null);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void rowsAreGroupedByPartitionValueInInputOrder() {
    RowSplitter s = new RowSplitter(3, RowSplitter.Hash.MURMUR3, 0)
        .partitionBy("name", 1, RowType.STRING, 0);
    try (RowBatch in = batch(); RowBatch out = new RowBatch(16, 8)) {
      int groups = s.split(in, out);
      assertEquals(4, groups);
      List<Long> ids = new ArrayList<>();
      for (int i = 0; i < out.rowCount(); i++) {
        ids.add(id(out, i));
      }
      assertEquals(List.of(0L, 2L, 5L, 1L, 4L, 3L, 6L), ids);
      int[] firsts = new int[groups];
      int[] counts = new int[groups];
      for (int g = 0; g < groups; g++) {
        firsts[g] = s.firstRow(g);
        counts[g] = s.count(g);
        assertEquals(-1, s.bucket(g));
      }
      assertArrayEquals(new int[] {0, 1, 3, 6}, firsts);
      assertArrayEquals(new int[] {3, 2, 1, 1}, counts);
      assertEquals(0, s.start(0));
      assertEquals(3, s.start(1));
      assertEquals(in.sizeInBytes(), out.sizeInBytes());
    }
  }

  @Test
  void runsOfRowsAreAppendedWithTheirOffsetsMoved() {
    try (RowBatch in = batch(); RowBatch to = new RowBatch(8, 16)) {
      byte[] first = RowBatchTest.row(99L, "first", 1L);
      to.append(first, 0, first.length);
      to.appendRows(in, 2, 3);
      assertEquals(4, to.rowCount());
      assertEquals(99L, id(to, 0));
      for (int i = 1; i < 4; i++) {
        assertEquals(i + 1, id(to, i));
        assertEquals(in.rowSize(i + 1), to.rowSize(i));
      }
      assertEquals(first.length + in.rowSize(2) + in.rowSize(3) + in.rowSize(4), to.sizeInBytes());
      assertThrows(IndexOutOfBoundsException.class, () -> to.appendRows(in, 5, 3));
      assertThrows(IllegalStateException.class, () -> to.appendRows(in, 0, 5));
    }
  }

  @Test
  void badSplitsAreClearErrors() {
    try (RowBatch in = batch(); RowBatch out = new RowBatch(16, 8)) {
      RowSplitter s = new RowSplitter(3, RowSplitter.Hash.MURMUR3, 0);
      assertThrows(IllegalArgumentException.class, () -> s.split(in, in));
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> new RowSplitter(3, RowSplitter.Hash.MURMUR3, 0)
              .partitionBy("beyond", 3, RowType.INT, 0).split(in, out));
      assertTrue(e.getMessage().contains("'beyond'"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class,
          () -> new RowSplitter(3, RowSplitter.Hash.HIVE, 4)
              .bucketBy("ts", 2, RowType.TIMESTAMP_NTZ, 0, 0).split(in, out));
      assertTrue(e.getMessage().contains("'ts'"), e.getMessage());
    }
  }

  /**
   * The JVM plans a native split only for bucket columns {@link RowSplitter#hashes} accepts:
   * its answer is the splitter's own, for every row type and hash (a refused column fails the
   * split naming it).
   */
  @Test
  void hashesAnswersAsTheSplitterRefuses() {
    try (RowBatch in = batch(); RowBatch out = new RowBatch(16, 8)) {
      int refused = 0;
      for (RowSplitter.Hash hash : RowSplitter.Hash.values()) {
        for (RowType t : RowType.values()) {
          int precision = t == RowType.DECIMAL || t == RowType.LEGACY_DECIMAL ? 9
              : t == RowType.FIXED_BINARY ? 16 : 0;
          RowSplitter s = new RowSplitter(3, hash, 4).bucketBy("k", 2, t, precision, 0);
          boolean hashes = RowSplitter.hashes(t, precision, hash);
          if (hashes) {
            s.split(in, out);
          } else {
            refused++;
            IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> s.split(in, out), t + "");
            assertTrue(e.getMessage().contains("'k'"), e.getMessage());
          }
        }
      }
      // TIME, LEGACY_DECIMAL, GEOMETRY, GEOGRAPHY, FIXED_BINARY by either hash; TIMESTAMP_NTZ
      // by Hive's.
      assertEquals(11, refused);
      assertTrue(RowSplitter.hashes(RowType.TIMESTAMP_NTZ, 0, RowSplitter.Hash.MURMUR3));
      assertTrue(!RowSplitter.hashes(RowType.TIMESTAMP_NTZ, 0, RowSplitter.Hash.HIVE));
    }
  }
}
