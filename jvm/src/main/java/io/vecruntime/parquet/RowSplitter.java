package io.vecruntime.parquet;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits batches of whole input rows (Spark UnsafeRows) by the file each goes to in a
 * partitioned or bucketed write, natively: rows go together exactly when their partition
 * values' bytes are equal and their bucket ids (Spark's {@code Murmur3Hash} or Hive's hash,
 * {@code pmod} the bucket count) are. {@link #split} copies the rows grouped by file, each group
 * in input order, so that each file reads its rows as one run of the copy.
 */
public final class RowSplitter {
  /** How bucket ids are hashed: Spark's bucketing or Hive-compatible bucketing. */
  public enum Hash {
    MURMUR3(SchemaCodes.HASH_MURMUR3),
    HIVE(SchemaCodes.HASH_HIVE);

    final int code;

    Hash(int code) {
      this.code = code;
    }
  }

  private final int numFields;
  private final List<String> names = new ArrayList<>();
  private final List<int[]> keys = new ArrayList<>();
  private final Hash hash;
  private final int buckets;
  private String[] nameArray;
  private int[] spec;
  private int[] groups = new int[0];

  /** Rows of {@code numFields} fields, bucketed into {@code buckets} by {@code hash} (0: none). */
  public RowSplitter(int numFields, Hash hash, int buckets) {
    this.numFields = numFields;
    this.hash = hash;
    this.buckets = buckets;
  }

  /**
   * Whether {@code hash} buckets a column of {@code type} natively as Spark does: the native
   * splitter's own rule, asked before a split is planned (it refuses the others).
   */
  public static boolean hashes(RowType type, int precision, Hash hash) {
    return NativeBridge.hashable(type.code, precision, hash.code);
  }

  /** A partition column: field {@code position}, read as {@code type}. */
  public RowSplitter partitionBy(String name, int position, RowType type, int precision) {
    return key(SchemaCodes.KEY_PARTITION, name, position, type, precision, 0);
  }

  /** A bucket column, in the order of the bucket spec. */
  public RowSplitter bucketBy(String name, int position, RowType type, int precision, int scale) {
    return key(SchemaCodes.KEY_BUCKET, name, position, type, precision, scale);
  }

  private RowSplitter key(int role, String name, int position, RowType type, int precision,
      int scale) {
    names.add(name);
    keys.add(new int[] {role, position, type.code, precision, scale});
    nameArray = null;
    return this;
  }

  /**
   * Copies the rows of {@code in} into {@code out} grouped by file and returns the group count;
   * group {@code g} is then {@link #bucket}, {@link #firstRow}, {@link #start} and
   * {@link #count}. {@code out} may not be {@code in}.
   */
  public int split(RowBatch in, RowBatch out) {
    if (in == out) {
      throw new IllegalArgumentException("a batch cannot be split into itself");
    }
    if (nameArray == null) {
      nameArray = names.toArray(new String[0]);
      spec = new int[SchemaCodes.INTS_PER_KEY * keys.size()];
      for (int i = 0; i < keys.size(); i++) {
        System.arraycopy(keys.get(i), 0, spec, SchemaCodes.INTS_PER_KEY * i,
            SchemaCodes.INTS_PER_KEY);
      }
    }
    int rows = in.rowCount();
    if (groups.length < 4 * rows) {
      groups = new int[Math.max(4 * rows, 2 * groups.length)];
    }
    out.reset(in.sizeInBytes(), rows);
    int n = NativeBridge.splitRows(numFields, nameArray, spec, hash.code, buckets,
        in.dataAddress(), in.sizeInBytes(), in.offsetsAddress(), rows, out.dataAddress(),
        in.sizeInBytes(), out.offsetsAddress(), groups);
    out.filled(rows, in.sizeInBytes());
    return n;
  }

  /** Group {@code g}'s bucket id (-1 without buckets). */
  public int bucket(int g) {
    return groups[4 * g];
  }

  /** The index in the input batch of group {@code g}'s first row. */
  public int firstRow(int g) {
    return groups[4 * g + 1];
  }

  /** Group {@code g}'s first row in the grouped copy. */
  public int start(int g) {
    return groups[4 * g + 2];
  }

  public int count(int g) {
    return groups[4 * g + 3];
  }
}
