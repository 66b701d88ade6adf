package io.vecruntime.spark

import io.vecruntime.parquet.{ColumnarParquetWriter, ParquetSchema, RowBatch, RowType, ValueRefusedException, VectorBuffers}
import io.vecruntime.spark.shims.SparkShims
import java.io.{ByteArrayOutputStream, OutputStream}

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.Path
import org.apache.hadoop.mapreduce.TaskAttemptContext

import org.apache.spark.internal.Logging
import org.apache.spark.memory.{MemoryConsumer, MemoryMode, TaskMemoryManager}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.{OutputWriter, OutputWriterFactory}
import org.apache.spark.sql.execution.datasources.vecruntime.SparkWriteShim
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.{ColumnarBatch, ColumnarBatchRow}

/**
 * Rows that hold a file's data columns among others: the whole input row of a partitioned or
 * bucketed write (`schema`), data column `i` at `positions(i)`.
 */
case class WideRows(schema: StructType, positions: Array[Int])

/**
 * A file a table format places and lays out itself (Iceberg's): the layout it is written with,
 * and its stream, opened when the file is.
 */
case class FileTarget(layout: SparkParquetLayout, create: () => OutputStream)

object VectorParquetOutputWriterFactory extends Logging {
  /**
   * The factory a format's `prepareWrite` returns: the native one in place of `owners` (the
   * format's own, `owner` naming whose), or the owner's where the plugin is off or `reason`
   * says why its writer must write (logged).
   */
  def choose(
      owners: OutputWriterFactory,
      reason: Option[String],
      owner: String,
      manyFiles: Boolean,
      writerVersion: Option[String],
      options: Map[String, String],
      conf: org.apache.spark.sql.internal.SQLConf): OutputWriterFactory = reason match {
    case _ if !VecRuntimeConf.enabled(conf) => owners
    case None =>
      VecRuntimeConf.validate(conf)
      new VectorParquetOutputWriterFactory(owners, manyFiles, writerVersion = writerVersion,
        inferVariantShredding = SparkShims.infersVariantShredding(options, conf))
    case Some(r) =>
      logWarning(s"vecruntime: $owner's writer writes this: $r")
      owners
  }
}

/**
 * Parquet's OutputWriterFactory with the native writer behind it. File names keep Parquet's
 * extension (`.snappy.parquet`...), taken from the factory it replaces. The writers add what
 * they did to `metrics` ([[TaskWriteStats]]). With `wide`, the writers are handed whole input
 * rows and read their data columns in place.
 */
class VectorParquetOutputWriterFactory(
    sparkFactory: OutputWriterFactory,
    manyFiles: Boolean,
    metrics: Map[String, SQLMetric] = Map.empty,
    writerVersion: Option[String] = None,
    wide: Option[WideRows] = None,
    inferVariantShredding: Boolean = false)
  extends OutputWriterFactory {

  override def getFileExtension(context: TaskAttemptContext): String =
    sparkFactory.getFileExtension(context)

  /** This factory with its writers adding to `metrics` and handed rows as `wide` says. */
  def withRows(metrics: Map[String, SQLMetric], wide: Option[WideRows]): VectorParquetOutputWriterFactory =
    new VectorParquetOutputWriterFactory(sparkFactory, manyFiles, metrics, writerVersion, wide,
      inferVariantShredding)

  override def newInstance(
      path: String,
      dataSchema: StructType,
      context: TaskAttemptContext): OutputWriter =
    if (dataSchema.exists(f => SparkParquetLayout.holds(f.dataType)(SparkShims.isVariant))) {
      // Rows go through Spark's Variant shredding first, then to the native file (data only).
      SparkShims.variantFile(path, dataSchema, context.getConfiguration, inferVariantShredding,
        wide, fileSchema => new VectorParquetOutputWriter(path, dataSchema, context, manyFiles,
          metrics, writerVersion, wide = None, fileSchema = Some(fileSchema)))
    } else {
      new VectorParquetOutputWriter(path, dataSchema, context, manyFiles, metrics, writerVersion,
        wide)
    }
}

/**
 * One Parquet file: each row's UnsafeRow bytes are copied into an off-heap [[RowBatch]] (one
 * copy a row, no per-value JVM work); full batches go to native code, which turns them into
 * columns and encodes them. Finished row groups reach the Hadoop stream as they complete. The
 * native memory held is accounted with the task's memory manager.
 *
 * With `manyFiles` (a partitioned or bucketed write, which may hold thousands of files open) a
 * file starts with small buffers, and the row bytes buffered by all of a task's open files are
 * kept under `spark.vecruntime.write.taskBufferBytes` ([[TaskRowBuffers]]).
 */
class VectorParquetOutputWriter(
    val path: String,
    dataSchema: StructType,
    context: TaskAttemptContext,
    manyFiles: Boolean = false,
    metrics: Map[String, SQLMetric] = Map.empty,
    writerVersion: Option[String] = None,
    wide: Option[WideRows] = None,
    fileSchema: Option[StructType] = None,
    target: Option[FileTarget] = None)
  extends OutputWriter with ColumnarInput.Listener with Logging {

  private val conf = context.getConfiguration
  private val layout = target.fold(
    SparkParquetLayout.ofTaskFile(conf, dataSchema, writerVersion, fileSchema))(_.layout)
  // Checked when the write was planned (VecRuntimeConf.validate).
  private val batchRows = conf.getInt(VecRuntimeConf.BATCH_ROWS, VecRuntimeConf.DefaultBatchRows)
  private val batchBytes = conf.getLong(VecRuntimeConf.BATCH_BYTES, VecRuntimeConf.DefaultBatchBytes)
  private val memory = new NativeMemory(SparkWriteShim.taskMemoryManager(), () => endRowGroup())
  private val initialBatchBytes =
    if (manyFiles) VectorParquetOutputWriter.ManyFilesBatchBytes else 1 << 20
  private val buffers: Option[TaskRowBuffers] =
    if (manyFiles) TaskRowBuffers.ofTask(conf.getLong(VecRuntimeConf.TASK_BUFFER_BYTES,
      VecRuntimeConf.DefaultTaskBufferBytes)) else None
  private val stats = TaskWriteStats.ofTask(metrics)
  private val listener = NativeFileListener.get
  listener.foreach(_.opened(path, layout))
  private var rows = 0L
  // Native bytes last reported to the memory manager and the task's stats.
  private var accounted = 0L
  // The bytes written once the native writer is dropped (the whole file once closed).
  private var finalLength = 0L

  private lazy val rowAppender =
    new RowAppender(wide.fold(layout.sparkSchema)(_.schema).fields.map(_.dataType))
  private var stream: OutputStream = _
  private var batch: RowBatch = _
  private var writer: ColumnarParquetWriter = _
  // Columnar input: the batch whose rows [pendingStart, pendingEnd) this file has taken.
  private var columns: VectorBuffers = _
  private var pendingBatch: ColumnarBatch = _
  private var pendingStart = 0
  private var pendingEnd = 0

  try {
    val file = new Path(path)
    // As ParquetOutputFormat: never overwrite (an existing file fails fast with Spark's error).
    // The native writer hands its file over in 1 MiB drains; through Hadoop's default 4 KiB
    // buffer a local (checksummed) file takes one write(2) per 4.5 KB checksum batch, about
    // twice the time of a 1 MiB buffer (benchmarks/README.md, "Measurements behind design
    // choices"). Bytes unchanged. Many open files keep a small buffer each (their files are
    // small): 8 KiB, within which FileOutputStream copies from its own buffer; through a
    // larger one every write is copied through a malloc'd one.
    val bufferSize =
      if (manyFiles) VectorParquetOutputWriter.ManyFilesStreamBuffer
      else math.max(conf.getInt("io.file.buffer.size", 4096), VectorParquetOutputWriter.MinStreamBuffer)
    // A killed task creates no file (LocalFiles.create checks), also when a deferred file is
    // created late, mid-task: the job's abort may already have deleted its directory.
    val create = target.fold[() => OutputStream](
      () => LocalFiles.create(file.getFileSystem(conf), file, bufferSize))(_.create)
    stream = if (manyFiles) new DeferredFileStream(create, bufferSize) else create()
    if (!manyFiles) open()
    batch = new RowBatch(batchRows, initialBatchBytes)
    accountMemory()
    buffers.foreach(_.register(this))
    ColumnarInput.register(this)
  } catch {
    case t: Throwable =>
      release()
      throw t
  }

  override def write(row: InternalRow): Unit = {
    row match {
      // (Whole rows are copied as rows: the batch's columns are not the file's.)
      case c: ColumnarBatchRow if ColumnarInput.currentBatch != null && wide.isEmpty =>
        val b = ColumnarInput.currentBatch
        if ((pendingBatch ne b) || c.rowId != pendingEnd) {
          copyPending()
          pendingBatch = b
          pendingStart = c.rowId
        }
        pendingEnd = c.rowId + 1
      case _ =>
        copyPending()
        writeRow(row)
    }
    throwIfRefused()
  }

  // Called from the input's hasNext, where Spark takes an error as the input's, not the write's:
  // a value EXCEPTION refuses is thrown at the next write or at close.
  override def endOfBatch(b: ColumnarBatch): Unit = if (pendingBatch eq b) copyPending()

  /** A copied batch held a value EXCEPTION refuses (Some(int96 column)): the write fails. */
  private var refused: Option[Boolean] = None

  /** Spark's own error, unwrapped: its suites check the cause of TASK_WRITE_FAILED. */
  private def throwIfRefused(): Unit = refused.foreach(int96 => throw SparkRebase.refused(int96))

  /** Copies the columns of the rows taken from the current input batch, before it is reused. */
  private def copyPending(): Unit = {
    if (pendingBatch != null && pendingEnd > pendingStart) {
      flush()
      val n = pendingEnd - pendingStart
      if (columns == null || columns.capacity() < n) {
        if (columns != null) columns.close()
        columns = VectorBuffers.allocate(layout.parquetSchema, math.max(n, batchRows))
      }
      try {
        ColumnarCopy.copy(pendingBatch, pendingStart, n, columns, layout)
        open().write(columns)
        rows += n
        accountMemory()
      } catch {
        case ColumnarCopy.Ancient(int96) => refused = Some(int96)
      }
    }
    pendingBatch = null
    pendingStart = 0
    pendingEnd = 0
  }

  /**
   * The native writer, opened on first use. A file among many (`manyFiles`) opens it when its
   * first rows are encoded: most files of a partitioned write are encoded only when they are
   * closed, and then their encoder state lives from the first row to the footer in one go,
   * in memory the file before it just gave back, instead of thousands of files' state held
   * across the whole task.
   */
  private def open(): ColumnarParquetWriter = {
    if (writer == null) {
      writer = new ColumnarParquetWriter(stream, layout.parquetSchema, layout.options)
      wide match {
        case Some(w) => writer.configureRows(w.schema.length, w.positions, manyFiles)
        // (A file schema a test forces may hold fewer columns: Spark's writer writes those.)
        case None => writer.configureRows(fileSchema.getOrElse(dataSchema).length, null, manyFiles)
      }
      layout.rebase.configure(writer)
    }
    writer
  }

  /** Tells the task's memory manager what this writer holds natively now. */
  private def accountMemory(): Unit = holding(
    (if (writer == null) 0L else writer.nativeBytesHeld()) + batch.capacityInBytes() +
      (if (columns == null) 0L else columns.capacityInBytes()))

  private def holding(bytes: Long): Unit = {
    memory.update(bytes)
    stats.foreach(_.memory(bytes - accounted))
    accounted = bytes
  }

  private def writeRow(row: InternalRow): Unit = {
    val size = rowAppender.append(batch, row)
    rows += 1
    buffers.foreach(_.grew(size))
    if (batch.isFull || batch.sizeInBytes() >= batchBytes) flush()
  }

  /** Ends a killed (cancelled) task at the next batch, as Spark's own write loop would. */
  private def stopIfKilled(): Unit = SparkWriteShim.stopIfKilled()

  private def flush(): Unit = {
    if (!batch.isEmpty) {
      stopIfKilled()
      buffers.foreach(_.shrank(batch.sizeInBytes()))
      try open().writeRows(batch)
      catch { case e: ValueRefusedException => throw refusedError(e) }
      batch.clear()
      accountMemory()
    }
  }

  /** Spark's error for a value the rebase mode EXCEPTION refuses. */
  private def refusedError(e: ValueRefusedException): Throwable = {
    val int96 = layout.parquetSchema.columns().asScala.exists(c =>
      c.name() == e.column() && c.physicalType() == ParquetSchema.PhysicalType.INT96)
    SparkRebase.refused(int96)
  }

  /**
   * Takes rows `start` until `start + count` of `rows`, whole input rows of a partitioned or
   * bucketed write grouped by file, after the rows this file already took: copied into this
   * file's batch in one piece, which is encoded when full, as rows written one by one are.
   */
  def writeRun(rows: RowBatch, start: Int, count: Int): Unit = {
    copyPending()
    throwIfRefused()
    var at = start
    var left = count
    while (left > 0) {
      val n = math.min(left, batchRows - batch.rowCount())
      val before = batch.sizeInBytes()
      batch.appendRows(rows, at, n)
      this.rows += n
      at += n
      left -= n
      buffers.foreach(_.grew(batch.sizeInBytes() - before))
      if (batch.isFull || batch.sizeInBytes() >= batchBytes) flush()
    }
  }

  /** Rows taken so far, those of a columnar batch not yet copied included. */
  def rowCount: Long = rows + (pendingEnd - pendingStart)

  /**
   * The file's bytes so far, those held natively and the rows waiting in the batch (their row
   * bytes, as an estimate of their encoded size) included: what a table format rolls its files
   * by, as parquet-java's writer's length counts its buffered pages. The rows taken from a
   * columnar batch are copied first, so that they count.
   */
  def length: Long = {
    if (pendingBatch != null) copyPending()
    heldLength
  }

  private def heldLength: Long =
    if (writer == null) finalLength + bufferedBytes
    else writer.bytesWritten() + writer.nativeBytesHeld() + bufferedBytes

  /**
   * Whether [[length]] may be `target` or more, answered without copying the rows taken from a
   * columnar batch where even a generous estimate of their encoding leaves the file short of it
   * (the batch is copied whole at its end instead of at each of a table format's checks). Not a
   * strict bound: a row group's dictionary pages count only once written, so a file can roll up
   * to a batch later than by the exact length; a table format's target size is a target.
   */
  def mayReach(target: Long): Boolean =
    pendingBatch == null || maxRowBytes.forall(heldLength + (pendingEnd - pendingStart) * _ >= target)

  /**
   * Well above what a row of fixed-width columns adds to [[length]] once encoded: three times each
   * value's width and 8 bytes a column (id or plain value, levels, page headers); None with a
   * column of variable width.
   */
  private lazy val maxRowBytes: Option[Long] = {
    val widths = layout.rowTypes.indices.map { c =>
      layout.rowTypes(c) match {
        case RowType.BOOLEAN | RowType.BYTE | RowType.SHORT | RowType.INT | RowType.DATE |
            RowType.FLOAT => Some(4L)
        case RowType.LONG | RowType.DOUBLE | RowType.TIMESTAMP_MICROS | RowType.TIMESTAMP_MILLIS |
            RowType.TIMESTAMP_NTZ | RowType.TIME => Some(8L)
        case RowType.TIMESTAMP_INT96 => Some(12L)
        case RowType.DECIMAL =>
          val precision = layout.rowArguments(c)
          Some(if (precision <= 9) 4L else if (precision <= 18) 8L else 16L)
        case RowType.FIXED_BINARY => Some(layout.rowArguments(c).toLong)
        case _ => None
      }
    }
    if (widths.forall(_.isDefined)) Some(widths.map(w => 3 * w.get + 8).sum) else None
  }

  /** Ends the file's open row group early: memory is short (see [[NativeMemory]]). */
  private def endRowGroup(): Unit = if (writer != null && writer.isOpen) {
    writer.endRowGroup()
    accountMemory()
  }

  /** Row bytes waiting in this file's batch. */
  private[spark] def bufferedBytes: Long = if (batch == null) 0L else batch.sizeInBytes()

  /** Encodes the buffered rows and gives back the batch memory beyond its starting size. */
  private[spark] def encodeBuffered(): Unit = {
    flush()
    if (batch.capacityInBytes() > 2L * initialBatchBytes) {
      batch.close()
      batch = null
      batch = new RowBatch(batchRows, initialBatchBytes)
      accountMemory()
    }
  }

  override def close(): Unit = {
    try {
      // A killed task's abort closes its open files: none is finished (or created) then, since
      // the job's abort may already have deleted the directory it would be created in.
      stopIfKilled()
      if (batch != null) {
        copyPending()
        throwIfRefused()
        flush()
        val summary = open().finish()
        val fallbacks = summary.rowGroups().asScala.map(_.columns().asScala
          .count(_.dictionaryFallback())).sum
        stats.foreach(_.file(rows, writer.bytesWritten(), writer.nativeNanos(),
          writer.rowKernelNanos(), fallbacks))
        listener.foreach(_.finished(path, summary))
      }
      if (stream != null) stream.close()
      stream = null
    } finally {
      release()
    }
  }

  /** Drops the file unfinished and frees what it holds (a task ending with it still open). */
  def abortQuietly(): Unit =
    try release() catch { case e: Exception => logWarning(s"releasing $path", e) }

  /** Frees native memory and the stream whatever state the writer is in. */
  private def release(): Unit = {
    ColumnarInput.unregister(this)
    buffers.foreach(_.unregister(this))
    pendingBatch = null
    pendingStart = 0
    pendingEnd = 0
    if (columns != null) columns.close()
    columns = null
    // The native writer holds the file's stream (and its buffer) until dropped: Spark's memory
    // manager keeps this writer (NativeMemory's consumer) until the task ends.
    if (writer != null) {
      writer.abort()
      finalLength = writer.bytesWritten()
      writer = null
    }
    if (batch != null) batch.close()
    batch = null
    if (stream != null) {
      try {
        stream match {
          case d: DeferredFileStream => d.discard()
          case other => other.close()
        }
      } catch { case e: Exception => logWarning(s"closing $path", e) }
      stream = null
    }
    holding(0)
  }
}

/**
 * The file of one partition or bucket among many open ones, created only once its bytes
 * outgrow `limit` or it is finished, and never for a file dropped unfinished. A file held open
 * per partition holds its descriptors (two on the checksummed local file system) all along:
 * thousands of them per task, against the process's limit, and slow to start a process with
 * (Hadoop's local file system, without its native library, starts `chmod` for each file it
 * creates; benchmarks/README.md has the partitioned write's figures both ways).
 */
private final class DeferredFileStream(create: () => OutputStream, limit: Int) extends OutputStream {
  private var held = new ByteArrayOutputStream()
  private var out: OutputStream = _

  private def opened(): OutputStream = {
    if (out == null) {
      out = create()
      val bytes = held.toByteArray
      held = null
      write(bytes, 0, bytes.length)
    }
    out
  }

  override def write(b: Int): Unit = write(Array(b.toByte), 0, 1)

  override def write(b: Array[Byte], off: Int, len: Int): Unit =
    if (out == null && held.size() + len <= limit) held.write(b, off, len)
    else {
      // In pieces that Hadoop's checksummed stream buffers: a larger write reaches
      // FileOutputStream whole, which copies it through a malloc'd buffer (from 8 KiB on).
      val o = opened()
      var at = off
      while (at < off + len) {
        val n = math.min(DeferredFileStream.Piece, off + len - at)
        o.write(b, at, n)
        at += n
      }
    }

  override def flush(): Unit = if (out != null) out.flush()

  /** Creates the file if it is not yet, and closes it complete. */
  override def close(): Unit = opened().close()

  /** Drops what is held; a file already created is closed as it is. */
  def discard(): Unit = {
    held = null
    if (out != null) out.close()
  }
}

private object DeferredFileStream {
  val Piece = 4096
}

object VectorParquetOutputWriter {
  /** Smallest buffer of the file's Hadoop stream (`io.file.buffer.size` when larger). */
  val MinStreamBuffer: Int = 1 << 20
  /**
   * The same, and the first row batch bytes, for a file among many open ones: the stream's
   * writes stay within FileOutputStream's own 8 KiB buffer.
   */
  val ManyFilesStreamBuffer: Int = 8 << 10
  val ManyFilesBatchBytes: Int = 8 << 10
}

/**
 * Native bytes of one writer, accounted in Spark's memory manager (off-heap pool when on). When
 * the manager grants less than the writer holds, or asks for memory back (spill), `endRowGroup`
 * ends the file's open row group early: its encoded pages go to the file and their memory is
 * freed, as parquet-java's memory manager shrinks row groups under pressure.
 */
class NativeMemory(manager: Option[TaskMemoryManager], endRowGroup: () => Unit) {
  private var ending = false
  private val consumer: Option[MemoryConsumer] = manager.map { m =>
    new MemoryConsumer(m, m.pageSizeBytes(), NativeMemory.mode(m)) {
      override def spill(size: Long, trigger: MemoryConsumer): Long =
        if ((trigger eq this) || ending) 0L else {
          val before = held
          end()
          before - held
        }
    }
  }
  private var held = 0L

  private def end(): Unit = {
    ending = true
    try endRowGroup() finally ending = false
  }

  def update(bytes: Long): Unit = consumer.foreach { c =>
    if (bytes > held) {
      held += c.acquireMemory(bytes - held)
      if (held < bytes && !ending) end()
    } else if (bytes < held) {
      c.freeMemory(held - bytes)
      held = bytes
    }
  }
}

object NativeMemory {
  /** Native memory counts in the off-heap pool when Spark has one, else in the heap's. */
  def mode(m: TaskMemoryManager): MemoryMode =
    if (m.getTungstenMemoryMode == MemoryMode.OFF_HEAP) MemoryMode.OFF_HEAP else MemoryMode.ON_HEAP
}
