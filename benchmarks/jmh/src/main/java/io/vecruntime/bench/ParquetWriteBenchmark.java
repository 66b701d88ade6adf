package io.vecruntime.bench;

import io.vecruntime.parquet.ColumnBuffers;
import io.vecruntime.parquet.ColumnarParquetWriter;
import io.vecruntime.parquet.ParquetSchema;
import io.vecruntime.parquet.VectorBuffers;
import io.vecruntime.parquet.WriterOptions;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * 262,144 TPC-DS store_sales-shaped rows written to a discarding stream: ColumnarParquetWriter
 * (off-heap column batches of 4,096 rows) against parquet-java 1.17.0 with WriterVersion
 * PARQUET_1_0 (Spark's default) and PARQUET_2_0, fed the way Spark's ParquetWriteSupport feeds
 * it (a RecordConsumer call per non-null value). Scores are rows per millisecond.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 10, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class ParquetWriteBenchmark {
  static final int ROWS = 262_144;
  static final int BATCH = 4096;

  @Param({"UNCOMPRESSED", "SNAPPY"})
  public String codec;

  StoreSales data;
  ParquetSchema schema;
  MessageType messageType;
  List<VectorBuffers> batches;
  long lastBytes;

  @Setup(Level.Trial)
  public void setup() {
    data = new StoreSales(ROWS, 42);
    ParquetSchema.Builder b = ParquetSchema.builder();
    Types.MessageTypeBuilder m = Types.buildMessage();
    for (String k : StoreSales.INT_KEYS) {
      b.int32Column(k, true);
      m.optional(PrimitiveTypeName.INT32).named(k);
    }
    b.int64Column("ss_ticket_number", true);
    m.optional(PrimitiveTypeName.INT64).named("ss_ticket_number");
    b.int32Column("ss_quantity", true);
    m.optional(PrimitiveTypeName.INT32).named("ss_quantity");
    for (String a : StoreSales.AMOUNTS) {
      b.decimalColumn(a, 7, 2, true);
      m.optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.decimalType(2, 7)).named(a);
    }
    schema = b.build();
    messageType = m.named("spark_schema");
    batches = new ArrayList<>();
    for (int start = 0; start < ROWS; start += BATCH) {
      VectorBuffers v = VectorBuffers.allocate(schema, BATCH);
      for (int i = 0; i < BATCH; i++) {
        int row = start + i;
        for (int c = 0; c < 9; c++) {
          setInt(v.column(c), i, data.ints[c][row], data.intNulls[c][row]);
        }
        v.column(9).setLong(i, data.ticket[row]);
        setInt(v.column(10), i, data.ints[9][row], data.intNulls[9][row]);
        for (int c = 0; c < 12; c++) {
          setInt(v.column(11 + c), i, data.amounts[c][row], data.amountNulls[c][row]);
        }
      }
      v.setRowCount(BATCH);
      batches.add(v);
    }
  }

  private static void setInt(ColumnBuffers c, int i, int v, boolean isNull) {
    if (isNull) {
      c.setNull(i);
    } else {
      c.setInt(i, v);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    batches.forEach(VectorBuffers::close);
    System.out.println("\n[bytes] " + codec + " file size: " + lastBytes);
  }

  @Benchmark
  @OperationsPerInvocation(ROWS)
  public long vecruntime() throws IOException {
    Discard out = new Discard();
    try (ColumnarParquetWriter w = new ColumnarParquetWriter(out, schema,
        WriterOptions.builder().property("parquet.compression", codec).build())) {
      for (VectorBuffers b : batches) {
        w.write(b);
      }
    }
    lastBytes = out.count;
    return out.count;
  }

  @Benchmark
  @OperationsPerInvocation(ROWS)
  public long parquetJavaV1() throws IOException {
    return parquetJava(ParquetProperties.WriterVersion.PARQUET_1_0);
  }

  @Benchmark
  @OperationsPerInvocation(ROWS)
  public long parquetJavaV2() throws IOException {
    return parquetJava(ParquetProperties.WriterVersion.PARQUET_2_0);
  }

  long parquetJava(ParquetProperties.WriterVersion version) throws IOException {
    DiscardFile file = new DiscardFile();
    try (ParquetWriter<Integer> w = new Builder(file, this)
        .withWriterVersion(version)
        .withCompressionCodec(CompressionCodecName.valueOf(codec))
        .build()) {
      for (int i = 0; i < ROWS; i++) {
        w.write(i);
      }
    }
    lastBytes = file.out.count;
    return file.out.count;
  }

  /** Writes row i of the data, as Spark's ParquetWriteSupport writes an InternalRow. */
  static final class RowWriteSupport extends WriteSupport<Integer> {
    final ParquetWriteBenchmark b;
    RecordConsumer consumer;

    RowWriteSupport(ParquetWriteBenchmark b) {
      this.b = b;
    }

    @Override
    public WriteContext init(org.apache.hadoop.conf.Configuration configuration) {
      return new WriteContext(b.messageType, new HashMap<>());
    }

    @Override
    public void prepareForWrite(RecordConsumer recordConsumer) {
      consumer = recordConsumer;
    }

    @Override
    public void write(Integer boxed) {
      int row = boxed;
      StoreSales d = b.data;
      consumer.startMessage();
      for (int c = 0; c < 9; c++) {
        writeInt(c, c, d.ints[c][row], d.intNulls[c][row]);
      }
      consumer.startField("ss_ticket_number", 9);
      consumer.addLong(d.ticket[row]);
      consumer.endField("ss_ticket_number", 9);
      writeInt(10, 9, d.ints[9][row], d.intNulls[9][row]);
      for (int c = 0; c < 12; c++) {
        writeInt(11 + c, -1, d.amounts[c][row], d.amountNulls[c][row]);
      }
      consumer.endMessage();
    }

    private void writeInt(int field, int unused, int v, boolean isNull) {
      if (!isNull) {
        String name = b.messageType.getFieldName(field);
        consumer.startField(name, field);
        consumer.addInteger(v);
        consumer.endField(name, field);
      }
    }
  }

  static final class Builder extends ParquetWriter.Builder<Integer, Builder> {
    final ParquetWriteBenchmark b;

    Builder(OutputFile file, ParquetWriteBenchmark b) {
      super(file);
      this.b = b;
    }

    @Override
    protected Builder self() {
      return this;
    }

    @Override
    protected WriteSupport<Integer> getWriteSupport(org.apache.hadoop.conf.Configuration conf) {
      return new RowWriteSupport(b);
    }
  }

  static final class Discard extends OutputStream {
    long count;

    @Override
    public void write(int b) {
      count++;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      count += len;
    }
  }

  static final class DiscardFile implements OutputFile {
    final Discard out = new Discard();

    @Override
    public PositionOutputStream create(long blockSizeHint) {
      return new PositionOutputStream() {
        @Override
        public long getPos() {
          return out.count;
        }

        @Override
        public void write(int b) {
          out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
          out.write(b, off, len);
        }
      };
    }

    @Override
    public PositionOutputStream createOrOverwrite(long blockSizeHint) {
      return create(blockSizeHint);
    }

    @Override
    public boolean supportsBlockSize() {
      return false;
    }

    @Override
    public long defaultBlockSize() {
      return 0;
    }
  }
}
