package io.vecruntime.parquet;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Map;
import java.util.Objects;

/**
 * Writes one Parquet file to an {@link OutputStream} from batches of off-heap column buffers,
 * through the native writer. Finished row groups reach the stream as they complete, so a writer
 * holds about one row group of native memory ({@link #nativeBytesHeld()}).
 *
 * <p>Input problems (a short buffer, bad offsets, a null in a required column) throw
 * IllegalArgumentException naming the column, and the writer stays usable. Anything else thrown
 * while writing (a failing stream, an {@code Error} such as Hadoop's {@code FSError} for a full
 * disk, a native failure) leaves the writer failed, its native memory released, and every later
 * call refused, so that no file is finished over lost rows. Not thread-safe.
 */
public final class ColumnarParquetWriter implements AutoCloseable {
  private static final int DRAIN_CHUNK = 1 << 20;
  /**
   * One drain buffer per thread, shared by the writers on it (a drain finishes within the call
   * that starts it): a partitioned write may hold thousands of writers open.
   */
  private static final ThreadLocal<byte[]> CHUNK = ThreadLocal.withInitial(() -> new byte[DRAIN_CHUNK]);

  private final OutputStream out;
  private final ParquetSchema schema;
  private long handle;
  private long bytesWritten;
  private State state = State.OPEN;
  private FooterSummary summary;
  private boolean rowsConfigured;

  private enum State {
    OPEN, CLOSED, FAILED
  }

  /** Opens a file on {@code out} and writes its leading magic. */
  public ColumnarParquetWriter(OutputStream out, ParquetSchema schema, WriterOptions options)
      throws IOException {
    this.out = Objects.requireNonNull(out, "output stream");
    this.schema = Objects.requireNonNull(schema, "schema");
    Map<String, String> props = options.toProperties();
    Map<String, String> meta = options.keyValueMetadata();
    this.handle = NativeBridge.open(schema.rootName(), schema.names(), schema.spec(),
        props.keySet().toArray(new String[0]), props.values().toArray(new String[0]),
        meta.keySet().toArray(new String[0]), meta.values().toArray(new String[0]));
    try {
      drain();
    } catch (Throwable t) {
      fail();
      throw t;
    }
  }

  /** The writer's {@code created_by}: {@code vecruntime version X.Y.Z (build id)}. */
  public static String createdBy() {
    return NativeBridge.createdBy();
  }

  public ParquetSchema schema() {
    return schema;
  }

  /** Appends the first {@code batch.rowCount()} rows of the batch. */
  public void write(VectorBuffers batch) throws IOException {
    checkOpen();
    long[] spec = batch.describe(schema);
    try {
      long pending = NativeBridge.write(handle, batch.rowCount(), spec);
      if (pending > 0) {
        drain();
      }
    } catch (IllegalArgumentException e) {
      throw e; // rejected before anything was written: still usable
    } catch (Throwable t) {
      fail();
      throw t;
    }
  }

  /**
   * Declares how the fields of {@link RowBatch} rows are read (one {@link RowType} per column,
   * with the decimal precisions); needed once before {@link #writeRows}.
   */
  public void configureRows(RowType[] types, int[] decimalPrecisions) {
    checkOpen();
    if (types.length != schema.size() || decimalPrecisions.length != schema.size()) {
      throw new IllegalArgumentException("row layout has " + types.length + " fields, the schema "
          + schema.size() + " columns");
    }
    NativeBridge.configureRows(handle, RowType.codes(types, decimalPrecisions));
    rowsConfigured = true;
  }

  /** Appends the rows of the batch (native code turns them into columns). */
  public void writeRows(RowBatch batch) throws IOException {
    checkOpen();
    if (!rowsConfigured) {
      throw new IllegalStateException("writeRows before configureRows");
    }
    if (batch.isEmpty()) {
      return;
    }
    try {
      long pending = NativeBridge.writeRows(handle, batch.dataAddress(), batch.sizeInBytes(),
          batch.offsetsAddress(), batch.rowCount());
      if (pending > 0) {
        drain();
      }
    } catch (IllegalArgumentException e) {
      throw e;
    } catch (Throwable t) {
      fail();
      throw t;
    }
  }

  /** Finishes the file (page indexes, bloom filters, footer) and returns what the footer holds. */
  public FooterSummary finish() throws IOException {
    checkOpen();
    try {
      byte[] encoded = NativeBridge.close(handle);
      drain();
      out.flush();
      summary = FooterSummary.decode(encoded);
      state = State.CLOSED;
      releaseNative();
      return summary;
    } catch (Throwable t) {
      fail();
      throw t;
    }
  }

  /**
   * Finishes the file if it is still open ({@link #finish()}); does nothing on a finished writer
   * or one that failed (its failure was thrown where it happened and its memory is released).
   */
  @Override
  public void close() throws IOException {
    if (state == State.OPEN) {
      finish();
    }
  }

  /** Drops the file being written without finishing it and releases native memory. Idempotent. */
  public void abort() {
    if (state == State.OPEN) {
      fail();
    }
  }

  /** The footer summary once finished, else null. */
  public FooterSummary summary() {
    return summary;
  }

  /** Bytes handed to the stream so far. */
  public long bytesWritten() {
    return bytesWritten;
  }

  /** Native bytes this writer holds now: the open row group's pages and output not yet drained. */
  public long nativeBytesHeld() {
    return state == State.OPEN ? NativeBridge.nativeBytes(handle) : 0;
  }

  /** Writers open in this process (native handles not yet released). */
  public static long openWriters() {
    return NativeBridge.openWriters();
  }

  private void drain() throws IOException {
    byte[] chunk = CHUNK.get();
    int n;
    while ((n = NativeBridge.drain(handle, chunk)) > 0) {
      try {
        out.write(chunk, 0, n);
      } catch (IOException e) {
        throw new IOException("vecruntime: writing Parquet output to the stream failed after "
            + bytesWritten + " bytes: " + e.getMessage(), e);
      }
      bytesWritten += n;
    }
  }

  private void checkOpen() {
    if (state == State.CLOSED) {
      throw new IllegalStateException("the Parquet writer is closed");
    }
    if (state == State.FAILED) {
      throw new IllegalStateException("the Parquet writer failed earlier and cannot be used");
    }
  }

  private void fail() {
    state = State.FAILED;
    releaseNative();
  }

  private void releaseNative() {
    if (handle != 0) {
      long h = handle;
      handle = 0;
      NativeBridge.release(h);
    }
  }
}
