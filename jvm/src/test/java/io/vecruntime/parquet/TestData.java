package io.vecruntime.parquet;

import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

/**
 * Rows held column by column (null or Boolean, Integer, Long, Float, Double, byte[]), written by
 * our writer and by parquet-java's, and read back by parquet-java.
 */
final class TestData {
  final ParquetSchema schema;
  final Object[][] columns;
  final int rows;

  TestData(ParquetSchema schema, Object[][] columns) {
    this.schema = schema;
    this.columns = columns;
    this.rows = columns.length == 0 ? 0 : columns[0].length;
  }

  /** A column generator: row index and random source to a value (null allowed). */
  interface Gen {
    Object value(int row, Random r);
  }

  static TestData generate(ParquetSchema schema, int rows, long seed, Gen... gens) {
    Random r = new Random(seed);
    Object[][] cols = new Object[schema.size()][rows];
    for (int i = 0; i < rows; i++) {
      for (int c = 0; c < cols.length; c++) {
        cols[c][i] = gens[c].value(i, r);
      }
    }
    return new TestData(schema, cols);
  }

  static Gen nulls(double rate, Gen g) {
    return (i, r) -> r.nextDouble() < rate ? null : g.value(i, r);
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** A decimal's unscaled value as a big-endian two's complement of {@code width} bytes. */
  static byte[] decimalBytes(BigInteger unscaled, int width) {
    byte[] raw = unscaled.toByteArray();
    byte[] out = new byte[width];
    byte pad = (byte) (unscaled.signum() < 0 ? 0xff : 0);
    Arrays.fill(out, 0, width - raw.length, pad);
    System.arraycopy(raw, 0, out, width - raw.length, raw.length);
    return out;
  }

  // ---- parquet-java's view of the schema

  static MessageType messageType(ParquetSchema s) {
    Types.MessageTypeBuilder b = Types.buildMessage();
    for (ParquetSchema.Column c : s.columns()) {
      b.addField(type(c));
    }
    return b.named(s.rootName());
  }

  static Type type(ParquetSchema.Column c) {
    PrimitiveTypeName t = c.physical == ParquetSchema.PhysicalType.BYTE_ARRAY ? PrimitiveTypeName.BINARY
        : PrimitiveTypeName.valueOf(c.physical.name());
    Types.PrimitiveBuilder<org.apache.parquet.schema.PrimitiveType> b =
        c.nullable() ? Types.optional(t) : Types.required(t);
    if (c.physical == ParquetSchema.PhysicalType.FIXED_LEN_BYTE_ARRAY) {
      b = b.length(c.width);
    }
    switch (c.logical) {
      case SchemaCodes.LOGICAL_STRING:
        b = b.as(LogicalTypeAnnotation.stringType());
        break;
      case SchemaCodes.LOGICAL_INT:
        b = b.as(LogicalTypeAnnotation.intType(c.a, true));
        break;
      case SchemaCodes.LOGICAL_DATE:
        b = b.as(LogicalTypeAnnotation.dateType());
        break;
      case SchemaCodes.LOGICAL_DECIMAL:
        b = b.as(LogicalTypeAnnotation.decimalType(c.b, c.a));
        break;
      case SchemaCodes.LOGICAL_TIMESTAMP:
        b = b.as(LogicalTypeAnnotation.timestampType(c.b != 0,
            c.a == 0 ? LogicalTypeAnnotation.TimeUnit.MILLIS : LogicalTypeAnnotation.TimeUnit.MICROS));
        break;
      case SchemaCodes.LOGICAL_TIME:
        b = b.as(LogicalTypeAnnotation.timeType(c.b != 0,
            c.a == 0 ? LogicalTypeAnnotation.TimeUnit.MILLIS : LogicalTypeAnnotation.TimeUnit.MICROS));
        break;
      case SchemaCodes.LOGICAL_UUID:
        b = b.as(LogicalTypeAnnotation.uuidType());
        break;
      default:
        break;
    }
    if (c.fieldId != null) {
      b = b.id(c.fieldId);
    }
    if (c.logical == SchemaCodes.LOGICAL_UNKNOWN) {
      // As Spark's converter: the builder refuses UNKNOWN, the type takes it.
      return b.named(c.name).withLogicalTypeAnnotation(LogicalTypeAnnotation.unknownType());
    }
    return b.named(c.name);
  }

  // ---- our writer

  FooterSummary writeOurs(Path file, WriterOptions options, int batchRows) throws IOException {
    try (OutputStream out = Files.newOutputStream(file)) {
      return writeOurs(out, options, batchRows);
    }
  }

  FooterSummary writeOurs(OutputStream out, WriterOptions options, int batchRows) throws IOException {
    try (ColumnarParquetWriter w = new ColumnarParquetWriter(out, schema, options);
        VectorBuffers batch = VectorBuffers.allocate(schema, batchRows)) {
      for (int start = 0; start < rows; start += batchRows) {
        int n = Math.min(batchRows, rows - start);
        batch.reset();
        fill(batch, start, n);
        w.write(batch);
      }
      return w.finish();
    }
  }

  void fill(VectorBuffers batch, int start, int n) {
    for (int c = 0; c < columns.length; c++) {
      ColumnBuffers col = batch.column(c);
      for (int i = 0; i < n; i++) {
        Object v = columns[c][start + i];
        if (v == null) {
          col.setNull(i);
        } else if (v instanceof Boolean) {
          col.setBoolean(i, (Boolean) v);
        } else if (v instanceof Integer) {
          col.setInt(i, (Integer) v);
        } else if (v instanceof Long) {
          col.setLong(i, (Long) v);
        } else if (v instanceof Float) {
          col.setFloat(i, (Float) v);
        } else if (v instanceof Double) {
          col.setDouble(i, (Double) v);
        } else {
          col.setBytes(i, (byte[]) v);
        }
      }
    }
    batch.setRowCount(n);
  }

  // ---- parquet-java's writer

  void writeParquetJava(Path file, Consumer<ExampleParquetWriter.Builder> configure) throws IOException {
    MessageType type = messageType(schema);
    ExampleParquetWriter.Builder b = ExampleParquetWriter.builder(new LocalOutputFile(file))
        .withType(type)
        .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_2_0)
        .withWriteMode(org.apache.parquet.hadoop.ParquetFileWriter.Mode.OVERWRITE);
    configure.accept(b);
    SimpleGroupFactory f = new SimpleGroupFactory(type);
    try (ParquetWriter<Group> w = b.build()) {
      for (int i = 0; i < rows; i++) {
        Group g = f.newGroup();
        for (int c = 0; c < columns.length; c++) {
          Object v = columns[c][i];
          if (v == null) {
            continue;
          }
          if (v instanceof Boolean) {
            g.add(c, (Boolean) v);
          } else if (v instanceof Integer) {
            g.add(c, (Integer) v);
          } else if (v instanceof Long) {
            g.add(c, (Long) v);
          } else if (v instanceof Float) {
            g.add(c, (Float) v);
          } else if (v instanceof Double) {
            g.add(c, (Double) v);
          } else {
            g.add(c, Binary.fromConstantByteArray((byte[]) v));
          }
        }
        w.write(g);
      }
    }
  }

  // ---- reading with parquet-java

  static ParquetMetadata footer(Path file) throws IOException {
    try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(file))) {
      return r.getFooter();
    }
  }

  /** Every row of the file, column by column, in this class's value representation. */
  static Object[][] read(Path file) throws IOException {
    try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(file))) {
      MessageType type = r.getFooter().getFileMetaData().getSchema();
      int ncols = type.getFieldCount();
      List<Object[]> rows = new ArrayList<>();
      PageReadStore pages;
      while ((pages = r.readNextRowGroup()) != null) {
        RecordReader<Group> rr = new ColumnIOFactory().getColumnIO(type)
            .getRecordReader(pages, new GroupRecordConverter(type));
        for (long i = 0; i < pages.getRowCount(); i++) {
          Group g = rr.read();
          Object[] row = new Object[ncols];
          for (int c = 0; c < ncols; c++) {
            if (g.getFieldRepetitionCount(c) == 0) {
              continue;
            }
            switch (type.getType(c).asPrimitiveType().getPrimitiveTypeName()) {
              case BOOLEAN:
                row[c] = g.getBoolean(c, 0);
                break;
              case INT32:
                row[c] = g.getInteger(c, 0);
                break;
              case INT64:
                row[c] = g.getLong(c, 0);
                break;
              case FLOAT:
                row[c] = g.getFloat(c, 0);
                break;
              case DOUBLE:
                row[c] = g.getDouble(c, 0);
                break;
              case INT96:
                row[c] = g.getInt96(c, 0).getBytes();
                break;
              default:
                row[c] = g.getBinary(c, 0).getBytes();
            }
          }
          rows.add(row);
        }
      }
      Object[][] cols = new Object[ncols][rows.size()];
      for (int i = 0; i < rows.size(); i++) {
        for (int c = 0; c < ncols; c++) {
          cols[c][i] = rows.get(i)[c];
        }
      }
      return cols;
    }
  }

  /** Equality with floats and doubles compared bit for bit (NaN payloads, -0.0). */
  static boolean same(Object a, Object b) {
    if (a == null || b == null) {
      return a == b;
    }
    if (a instanceof byte[] && b instanceof byte[]) {
      return Arrays.equals((byte[]) a, (byte[]) b);
    }
    if (a instanceof Float && b instanceof Float) {
      return Float.floatToRawIntBits((Float) a) == Float.floatToRawIntBits((Float) b);
    }
    if (a instanceof Double && b instanceof Double) {
      return Double.doubleToRawLongBits((Double) a) == Double.doubleToRawLongBits((Double) b);
    }
    return a.equals(b);
  }

  static String show(Object v) {
    return v instanceof byte[] ? Arrays.toString((byte[]) v) : String.valueOf(v);
  }
}
