package io.vecruntime.parquet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Nested columns against parquet-java: the same records written by parquet-java's v2 writer
 * and, as levels and values read back from parquet-java's own file, by ours. The schema, the
 * chunk statistics and counts, and every data page's counts, levels and values must agree.
 */
class NestedParityTest {
  @TempDir Path dir;

  /** Spark's standard layout: a list of strings, a map, a struct holding a list. */
  static ParquetSchema schema() {
    return ParquetSchema.builder()
        .int64Column("id", false)
        .group("tags", ParquetSchema.Repetition.OPTIONAL, ParquetSchema.GroupType.LIST)
        .group("list", ParquetSchema.Repetition.REPEATED, null)
        .stringColumn("element", true)
        .endGroup().endGroup()
        .group("m", ParquetSchema.Repetition.OPTIONAL, ParquetSchema.GroupType.MAP)
        .group("key_value", ParquetSchema.Repetition.REPEATED, null)
        .stringColumn("key", false)
        .int32Column("value", true)
        .endGroup().endGroup()
        .group("s", ParquetSchema.Repetition.OPTIONAL, null)
        .int32Column("a", true)
        .group("inner", ParquetSchema.Repetition.REQUIRED, ParquetSchema.GroupType.LIST)
        .group("list", ParquetSchema.Repetition.REPEATED, null)
        .int64Column("element", false)
        .endGroup().endGroup()
        .endGroup()
        .build();
  }

  static final String SPARK_TEXT = "message spark_schema {\n"
      + "  required int64 id;\n"
      + "  optional group tags (LIST) {\n"
      + "    repeated group list {\n"
      + "      optional binary element (STRING);\n"
      + "    }\n"
      + "  }\n"
      + "  optional group m (MAP) {\n"
      + "    repeated group key_value {\n"
      + "      required binary key (STRING);\n"
      + "      optional int32 value;\n"
      + "    }\n"
      + "  }\n"
      + "  optional group s {\n"
      + "    optional int32 a;\n"
      + "    required group inner (LIST) {\n"
      + "      repeated group list {\n"
      + "        required int64 element;\n"
      + "      }\n"
      + "    }\n"
      + "  }\n"
      + "}\n";

  /** Random records: null and empty lists and maps, null elements and values, one huge list. */
  static void writeParquetJava(Path file, MessageType type, int rows, CompressionCodecName codec,
      int version) throws IOException {
    Random r = new Random(11);
    SimpleGroupFactory f = new SimpleGroupFactory(type);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(file))
        .withType(type)
        .withWriterVersion(version == 1 ? ParquetProperties.WriterVersion.PARQUET_1_0
            : ParquetProperties.WriterVersion.PARQUET_2_0)
        .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
        .withCompressionCodec(codec)
        .withPageSize(16 * 1024).withDictionaryPageSize(8 * 1024).withRowGroupSize(256 * 1024L)
        .build()) {
      for (int i = 0; i < rows; i++) {
        Group g = f.newGroup();
        g.add("id", (long) i);
        int kind = r.nextInt(6);
        if (kind > 0) {
          Group tags = g.addGroup("tags");
          int n = i == rows / 2 ? 10_000 : kind == 1 ? 0 : r.nextInt(6);
          for (int e = 0; e < n; e++) {
            Group l = tags.addGroup("list");
            if (r.nextInt(5) > 0) {
              l.add("element", "t" + r.nextInt(i == rows / 2 ? 100_000 : 40));
            }
          }
        }
        if (r.nextInt(4) > 0) {
          Group m = g.addGroup("m");
          int n = r.nextInt(4);
          for (int e = 0; e < n; e++) {
            Group kv = m.addGroup("key_value");
            kv.add("key", "k" + e);
            if (r.nextInt(3) > 0) {
              kv.add("value", r.nextInt(1000) - 500);
            }
          }
        }
        if (r.nextInt(3) > 0) {
          Group s = g.addGroup("s");
          if (r.nextBoolean()) {
            s.add("a", r.nextInt());
          }
          Group inner = s.addGroup("inner");
          int n = r.nextInt(3);
          for (int e = 0; e < n; e++) {
            inner.addGroup("list").add("element", r.nextLong());
          }
        }
        w.write(g);
      }
    }
  }

  /** One leaf column's levels and defined values, in file order. */
  static final class Leaf {
    final List<Short> def = new ArrayList<>();
    final List<Short> rep = new ArrayList<>();
    final List<Object> values = new ArrayList<>();
  }

  static List<Leaf> readLevels(Path file) throws IOException {
    List<Leaf> leaves = new ArrayList<>();
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
      MessageType type = reader.getFooter().getFileMetaData().getSchema();
      for (int c = 0; c < type.getColumns().size(); c++) {
        leaves.add(new Leaf());
      }
      PageReadStore pages;
      while ((pages = reader.readNextRowGroup()) != null) {
        ColumnReadStoreImpl store = new ColumnReadStoreImpl(pages,
            new GroupRecordConverter(type).getRootConverter(), type, "parquet-mr version 1.17.0");
        for (int c = 0; c < type.getColumns().size(); c++) {
          ColumnDescriptor d = type.getColumns().get(c);
          ColumnReader cr = store.getColumnReader(d);
          Leaf leaf = leaves.get(c);
          for (long v = 0; v < cr.getTotalValueCount(); v++) {
            int def = cr.getCurrentDefinitionLevel();
            leaf.def.add((short) def);
            leaf.rep.add((short) cr.getCurrentRepetitionLevel());
            if (def == d.getMaxDefinitionLevel()) {
              switch (d.getPrimitiveType().getPrimitiveTypeName()) {
                case INT32:
                  leaf.values.add(cr.getInteger());
                  break;
                case INT64:
                  leaf.values.add(cr.getLong());
                  break;
                default:
                  leaf.values.add(cr.getBinary().getBytes());
              }
            }
            cr.consume();
          }
        }
      }
    }
    return leaves;
  }

  /** Writes the leaves with our writer, `batch` records per batch. */
  static void writeOurs(Path file, ParquetSchema schema, List<Leaf> leaves, int rows, int batch,
      Codec codec, int version) throws IOException {
    WriterOptions opts = WriterOptions.builder().codec(codec).writerVersion(version).pageSize(16 * 1024)
        .dictionaryPageSize(8 * 1024).rowGroupSize(256 * 1024).parquetJavaRuns(true).build();
    int[] levelAt = new int[leaves.size()];
    int[] valueAt = new int[leaves.size()];
    try (OutputStream out = Files.newOutputStream(file);
        ColumnarParquetWriter w = new ColumnarParquetWriter(out, schema, opts)) {
      for (int start = 0; start < rows; start += batch) {
        int n = Math.min(batch, rows - start);
        ColumnBuffers[] cols = new ColumnBuffers[leaves.size()];
        for (int c = 0; c < leaves.size(); c++) {
          Leaf leaf = leaves.get(c);
          // Entries of records start..start+n: up to the n-th repetition level 0 after levelAt.
          int from = levelAt[c];
          int to = from;
          int records = 0;
          while (to < leaf.rep.size() && (leaf.rep.get(to) != 0 || records < n)) {
            if (leaf.rep.get(to) == 0) {
              records++;
            }
            to++;
          }
          int vfrom = valueAt[c];
          int vto = vfrom;
          for (int i = from; i < to; i++) {
            if (leaf.def.get(i) == schema.column(c).maxDefinitionLevel()) {
              vto++;
            }
          }
          cols[c] = buffers(schema.column(c), leaf, from, to, vfrom, vto);
          levelAt[c] = to;
          valueAt[c] = vto;
        }
        try (VectorBuffers b = VectorBuffers.wrap(schema, n, cols)) {
          w.write(b);
        }
      }
      w.finish();
    }
  }

  static ColumnBuffers buffers(ParquetSchema.Column c, Leaf leaf, int from, int to, int vfrom,
      int vto) {
    NativeBuffer values;
    NativeBuffer offsets = null;
    int n = vto - vfrom;
    switch (c.physicalType()) {
      case INT32:
        values = NativeBuffer.allocate(4L * n);
        for (int i = 0; i < n; i++) {
          values.buffer().order(ByteOrder.LITTLE_ENDIAN).putInt(4 * i, (Integer) leaf.values.get(vfrom + i));
        }
        break;
      case INT64:
        values = NativeBuffer.allocate(8L * n);
        for (int i = 0; i < n; i++) {
          values.buffer().order(ByteOrder.LITTLE_ENDIAN).putLong(8 * i, (Long) leaf.values.get(vfrom + i));
        }
        break;
      default:
        int bytes = 0;
        for (int i = 0; i < n; i++) {
          bytes += ((byte[]) leaf.values.get(vfrom + i)).length;
        }
        values = NativeBuffer.allocate(bytes);
        offsets = NativeBuffer.allocate(4L * (n + 1));
        ByteBuffer o = offsets.buffer().order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer v = values.buffer();
        int at = 0;
        for (int i = 0; i < n; i++) {
          byte[] b = (byte[]) leaf.values.get(vfrom + i);
          o.putInt(4 * i, at);
          for (int k = 0; k < b.length; k++) {
            v.put(at + k, b[k]);
          }
          at += b.length;
        }
        o.putInt(4 * n, at);
    }
    if (!c.nested()) {
      return new ColumnBuffers(c, null, values, offsets);
    }
    NativeBuffer def = NativeBuffer.allocate(2L * (to - from));
    NativeBuffer rep = NativeBuffer.allocate(2L * (to - from));
    for (int i = from; i < to; i++) {
      def.buffer().order(ByteOrder.LITTLE_ENDIAN).putShort(2 * (i - from), leaf.def.get(i));
      rep.buffer().order(ByteOrder.LITTLE_ENDIAN).putShort(2 * (i - from), leaf.rep.get(i));
    }
    return new ColumnBuffers(c, values, offsets, def, rep);
  }

  @ParameterizedTest(name = "{0} v{1}")
  @CsvSource({"UNCOMPRESSED, 2", "SNAPPY, 2", "UNCOMPRESSED, 1", "SNAPPY, 1"})
  void samePagesLevelsAndStatisticsAsParquetJava(Codec codec, int version) throws IOException {
    ParquetSchema schema = schema();
    Path theirs = dir.resolve("theirs.parquet");
    Path ours = dir.resolve("ours.parquet");
    int rows = 20_000;
    MessageType type = org.apache.parquet.schema.MessageTypeParser.parseMessageType(SPARK_TEXT);
    writeParquetJava(theirs, type, rows, CompressionCodecName.valueOf(codec.name()), version);
    List<Leaf> leaves = readLevels(theirs);
    writeOurs(ours, schema, leaves, rows, 3000, codec, version);

    ParquetMetadata o = TestData.footer(ours);
    ParquetMetadata t = TestData.footer(theirs);
    assertEquals(t.getFileMetaData().getSchema(), o.getFileMetaData().getSchema());
    assertEquals(SPARK_TEXT, o.getFileMetaData().getSchema().toString());
    ParquetJavaParityTest.assertChunksMatch(t, o, true);
    assertEquals(t.getBlocks().size(), o.getBlocks().size(), "row groups");
    // Records read back by parquet-java's record reader: the same, record for record.
    List<String> tr = records(theirs);
    List<String> or = records(ours);
    for (int i = 0; i < tr.size(); i++) {
      assertEquals(tr.get(i), or.get(i), "record " + i);
    }
    assertSamePages(theirs, ours);
  }

  /** Every data page: counts, levels, encoding and values (compressed as they lie). */
  static void assertSamePages(Path theirs, Path ours) throws IOException {
    try (ParquetFileReader t = ParquetFileReader.open(new LocalInputFile(theirs));
        ParquetFileReader o = ParquetFileReader.open(new LocalInputFile(ours))) {
      MessageType type = t.getFooter().getFileMetaData().getSchema();
      PageReadStore tp;
      int g = 0;
      while ((tp = t.readNextRowGroup()) != null) {
        PageReadStore op = o.readNextRowGroup();
        for (ColumnDescriptor d : type.getColumns()) {
          PageReader tr = tp.getPageReader(d);
          PageReader or = op.getPageReader(d);
          String where = "row group " + g + " " + String.join(".", d.getPath());
          int page = 0;
          for (DataPage a = tr.readPage(); a != null; a = tr.readPage(), page++) {
            DataPage p = or.readPage();
            if (a instanceof DataPageV1) {
              // Levels and values are one (decompressed) body: compared as a whole.
              DataPageV1 x = (DataPageV1) a;
              DataPageV1 y = (DataPageV1) p;
              String at = where + " page " + page;
              assertEquals(x.getValueCount(), y.getValueCount(), at + " values");
              assertEquals(x.getRlEncoding(), y.getRlEncoding(), at + " repetition level encoding");
              assertEquals(x.getDlEncoding(), y.getDlEncoding(), at + " definition level encoding");
              assertEquals(x.getValueEncoding(), y.getValueEncoding(), at + " encoding");
              assertArrayEquals(x.getBytes().toByteArray(), y.getBytes().toByteArray(), at + " body");
              continue;
            }
            DataPageV2 b = (DataPageV2) p;
            DataPageV2 x = (DataPageV2) a;
            String at = where + " page " + page;
            assertEquals(x.getValueCount(), b.getValueCount(), at + " values");
            assertEquals(x.getNullCount(), b.getNullCount(), at + " nulls");
            assertEquals(x.getRowCount(), b.getRowCount(), at + " rows");
            assertArrayEquals(x.getRepetitionLevels().toByteArray(),
                b.getRepetitionLevels().toByteArray(), at + " repetition levels");
            assertArrayEquals(x.getDefinitionLevels().toByteArray(),
                b.getDefinitionLevels().toByteArray(), at + " definition levels");
            if (d.getPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.BOOLEAN) {
              continue; // booleans: PLAIN values instead of parquet-java's RLE, by design
            }
            assertEquals(x.getDataEncoding(), b.getDataEncoding(), at + " encoding");
            assertArrayEquals(x.getData().toByteArray(), b.getData().toByteArray(), at + " values");
          }
          assertEquals(null, or.readPage(), where + ": more pages than parquet-java's");
        }
        g++;
      }
    }
  }

  static List<String> records(Path file) throws IOException {
    List<String> out = new ArrayList<>();
    try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(file))) {
      MessageType type = r.getFooter().getFileMetaData().getSchema();
      PageReadStore pages;
      while ((pages = r.readNextRowGroup()) != null) {
        RecordReader<Group> rr = new ColumnIOFactory().getColumnIO(type)
            .getRecordReader(pages, new GroupRecordConverter(type));
        for (long i = 0; i < pages.getRowCount(); i++) {
          out.add(rr.read().toString());
        }
      }
    }
    return out;
  }
}
