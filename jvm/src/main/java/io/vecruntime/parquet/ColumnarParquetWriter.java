package io.vecruntime.parquet;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.ref.Cleaner;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

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
 *
 * <p>A writer must be finished ({@link #finish()}, {@link #close()}) or dropped ({@link
 * #abort()}); one that is garbage-collected still open has its native memory released then, and
 * a warning is logged (once per process).
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
  private static final Cleaner CLEANER = Cleaner.create();
  private static final AtomicBoolean WARNED_UNCLOSED = new AtomicBoolean();
  private final NativeHandle nativeHandle;
  private final Cleaner.Cleanable cleanable;
  private long handle;
  private long bytesWritten;
  private long rowKernelNanos;
  private long nativeNanos;
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
    this.nativeHandle = new NativeHandle(handle);
    this.cleanable = CLEANER.register(this, nativeHandle);
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
      long started = System.nanoTime();
      long pending = NativeBridge.write(handle, batch.rowCount(), spec);
      nativeNanos += System.nanoTime() - started;
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
   * Prepares {@link #writeRows}: each field of the rows is read as its column's Parquet type
   * says ({@link ParquetSchema#rowTypes}); needed once before the first rows.
   */
  public void configureRows() {
    configureRows(0, null, false);
  }

  /**
   * As {@link #configureRows()}. With {@code positions} (else null), for rows that hold more
   * fields than the schema: rows of {@code rowFields} fields, column field {@code i} of the
   * schema at {@code positions[i]}; the other fields are not read (a partitioned write's
   * partition columns). With {@code manyFiles}, this writer is one of many open on its thread
   * (a partitioned write's files), which then share the buffers rows are turned into.
   */
  public void configureRows(int rowFields, int[] positions, boolean manyFiles) {
    checkOpen();
    NativeBridge.configureRows(handle, rowFields, positions == null ? null : positions.clone(),
        manyFiles);
    rowsConfigured = true;
  }

  /** A calendar rebase mode in write (Spark's {@code LegacyBehaviorPolicy}), by its wire code. */
  public enum RebaseMode {
    /** Values as they are (Proleptic Gregorian). */
    CORRECTED(SchemaCodes.REBASE_CORRECTED),
    /** Values moved to the hybrid Julian/Gregorian calendar, as Spark 2.x wrote them. */
    LEGACY(SchemaCodes.REBASE_LEGACY),
    /** Values whose calendars differ are refused ({@link ValueRefusedException}). */
    EXCEPTION(SchemaCodes.REBASE_EXCEPTION);

    final int code;

    RebaseMode(int code) {
      this.code = code;
    }
  }

  /**
   * The calendar rebase of the rows' datetime values, as Spark's rebase modes in write: {@code
   * datetime} for dates and timestamps, {@code int96} for INT96 timestamps. LEGACY timestamps
   * need the session zone's table ({@code switches}, {@code diffs}: micros, as Spark's
   * {@code gregorian-julian-rebase-micros.json} holds them in seconds) and the zone's offsets
   * (micros) before its first transition by {@code java.time} and by {@code java.util.TimeZone};
   * empty switches and diffs for a zone of one fixed offset (Spark's calendar path for every
   * value); null switches when no LEGACY timestamp is written. EXCEPTION refuses timestamps before
   * {@code thresholdMicros} and dates before 1582-10-15. After {@link #configureRows}.
   */
  public void configureRebase(RebaseMode datetime, RebaseMode int96, long[] switches, long[] diffs,
      long zoneOffsetMicros, long calendarOffsetMicros, long thresholdMicros) {
    checkOpen();
    if (!rowsConfigured) {
      throw new IllegalStateException("configureRebase before configureRows");
    }
    NativeBridge.configureRebase(handle, datetime.code, int96.code, switches, diffs,
        zoneOffsetMicros, calendarOffsetMicros, thresholdMicros);
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
      long started = System.nanoTime();
      long pending = NativeBridge.writeRows(handle, batch.dataAddress(), batch.sizeInBytes(),
          batch.offsetsAddress(), batch.rowCount());
      nativeNanos += System.nanoTime() - started;
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

  /**
   * Ends the open row group now and hands its pages to the stream, freeing the native memory
   * they held (for a caller short of memory); the next rows start a new row group. Does
   * nothing without buffered rows.
   */
  public void endRowGroup() throws IOException {
    checkOpen();
    try {
      long started = System.nanoTime();
      long pending = NativeBridge.endRowGroup(handle);
      nativeNanos += System.nanoTime() - started;
      if (pending > 0) {
        drain();
      }
    } catch (Throwable t) {
      fail();
      throw t;
    }
  }

  /** Whether the writer takes more rows (neither finished nor failed). */
  public boolean isOpen() {
    return state == State.OPEN;
  }

  /** Finishes the file (page indexes, bloom filters, footer) and returns what the footer holds. */
  public FooterSummary finish() throws IOException {
    checkOpen();
    try {
      long started = System.nanoTime();
      byte[] encoded = NativeBridge.close(handle);
      nativeNanos += System.nanoTime() - started;
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

  /**
   * Nanoseconds spent so far in native code writing and finishing (row kernel, encoding,
   * compression), not counting the stream the bytes are handed to.
   */
  public long nativeNanos() {
    return nativeNanos;
  }

  /**
   * Nanoseconds spent so far turning {@link #writeRows} batches into columns (the row kernel),
   * part of the time in native code; kept once the writer is finished or failed.
   */
  public long rowKernelNanos() {
    return handle != 0 ? NativeBridge.rowKernelNanos(handle) : rowKernelNanos;
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
      rowKernelNanos = NativeBridge.rowKernelNanos(handle);
      long h = handle;
      handle = 0;
      nativeHandle.handle = 0;
      cleanable.clean();
      NativeBridge.release(h);
    }
  }

  /** The native side of a writer, released by the cleaner if the writer is collected open. */
  private static final class NativeHandle implements Runnable {
    volatile long handle;

    NativeHandle(long handle) {
      this.handle = handle;
    }

    @Override
    public void run() {
      long h = handle;
      if (h == 0) {
        return; // released by the writer
      }
      handle = 0;
      NativeBridge.release(h);
      if (WARNED_UNCLOSED.compareAndSet(false, true)) {
        System.getLogger(ColumnarParquetWriter.class.getName()).log(System.Logger.Level.WARNING,
            "vecruntime: a ColumnarParquetWriter was garbage-collected without finish(), close() "
                + "or abort(); its native memory was released then (logged once)");
      }
    }
  }
}
