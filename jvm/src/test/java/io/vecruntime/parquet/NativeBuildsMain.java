package io.vecruntime.parquet;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Run in a child JVM by {@link NativeLibraryTest}: writes the same files with whichever native
 * build this JVM loads (every codec through column buffers, and UnsafeRow batches through the
 * row kernel), then prints the build's name.
 */
public final class NativeBuildsMain {
  private NativeBuildsMain() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    TestData data = ParquetJavaParityTest.allTypes(30_000, 42);
    for (Codec codec : Codec.values()) {
      data.writeOurs(dir.resolve(codec.name() + ".parquet"),
          WriterOptions.builder().codec(codec).build(), 4096);
    }
    ParquetSchema schema = ParquetSchema.builder().int64Column("id", true).stringColumn("name", true)
        .timestampColumn("ts", ParquetSchema.TimeUnit.MILLIS, true, true).build();
    try (OutputStream out = Files.newOutputStream(dir.resolve("rows.parquet"));
        ColumnarParquetWriter w = new ColumnarParquetWriter(out, schema, WriterOptions.defaults());
        RowBatch batch = new RowBatch(4096, 1 << 20)) {
      w.configureRows();
      for (int i = 0; i < 50_000; i++) {
        byte[] r = RowBatchTest.row(i % 11 == 3 ? null : (long) i * 7919 % 10_007,
            i % 13 == 4 ? null : "name " + i % 977, -1_501_000L + 37L * i);
        batch.append(r, 0, r.length);
        if (batch.isFull()) {
          w.writeRows(batch);
          batch.clear();
        }
      }
      w.writeRows(batch);
    }
    System.out.println("build=" + NativeLibrary.loadedBuild());
  }
}
