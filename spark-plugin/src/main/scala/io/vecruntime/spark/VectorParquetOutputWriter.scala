package io.vecruntime.spark

import io.vecruntime.parquet.{ColumnarParquetWriter, RowBatch, VectorBuffers}
import org.apache.hadoop.fs.{FSDataOutputStream, Path}
import org.apache.hadoop.mapreduce.TaskAttemptContext

import org.apache.spark.internal.Logging
import org.apache.spark.memory.{MemoryConsumer, MemoryMode, TaskMemoryManager}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.datasources.{OutputWriter, OutputWriterFactory}
import org.apache.spark.sql.execution.datasources.vecruntime.SparkWriteShim
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.{ColumnarBatch, ColumnarBatchRow}

/**
 * Parquet's OutputWriterFactory with the native writer behind it. File names keep Parquet's
 * extension (`.snappy.parquet`...), taken from the factory it replaces.
 */
class VectorParquetOutputWriterFactory(sparkFactory: OutputWriterFactory)
  extends OutputWriterFactory {

  override def getFileExtension(context: TaskAttemptContext): String =
    sparkFactory.getFileExtension(context)

  override def newInstance(
      path: String,
      dataSchema: StructType,
      context: TaskAttemptContext): OutputWriter =
    new VectorParquetOutputWriter(path, dataSchema, context)
}

/**
 * One Parquet file: each row's UnsafeRow bytes are copied into an off-heap [[RowBatch]] (one
 * copy a row, no per-value JVM work); full batches go to native code, which turns them into
 * columns and encodes them. Finished row groups reach the Hadoop stream as they complete. The
 * native memory held is accounted with the task's memory manager.
 */
class VectorParquetOutputWriter(
    val path: String,
    dataSchema: StructType,
    context: TaskAttemptContext) extends OutputWriter with ColumnarInput.Listener with Logging {

  private val conf = context.getConfiguration
  private val layout = SparkParquetLayout(conf, dataSchema)
  private val batchRows = conf.getInt(VecRuntimeConf.BATCH_ROWS, 4096)
  private val batchBytes = conf.getLong(VecRuntimeConf.BATCH_BYTES, 16L << 20)
  private val memory = new NativeMemory(SparkWriteShim.taskMemoryManager())

  private var toUnsafe: UnsafeProjection = _
  private var stream: FSDataOutputStream = _
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
    // buffer a local (checksummed) file takes one write(2) per 4.5 KB checksum batch, and a
    // 55 MB file took 70 ms to write instead of 33 ms with a 1 MiB buffer. Bytes unchanged.
    val bufferSize = math.max(conf.getInt("io.file.buffer.size", 4096),
      VectorParquetOutputWriter.MinStreamBuffer)
    stream = file.getFileSystem(conf).create(file, false, bufferSize)
    writer = new ColumnarParquetWriter(stream, layout.parquetSchema, layout.options)
    writer.configureRows(layout.rowTypes, layout.decimalPrecisions)
    batch = new RowBatch(batchRows, 1 << 20)
    accountMemory()
    ColumnarInput.register(this)
  } catch {
    case t: Throwable =>
      release()
      throw t
  }

  override def write(row: InternalRow): Unit = row match {
    case c: ColumnarBatchRow if ColumnarInput.currentBatch != null =>
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

  override def endOfBatch(b: ColumnarBatch): Unit = if (pendingBatch eq b) copyPending()

  /** Copies the columns of the rows taken from the current input batch, before it is reused. */
  private def copyPending(): Unit = {
    if (pendingBatch != null && pendingEnd > pendingStart) {
      flush()
      val n = pendingEnd - pendingStart
      if (columns == null || columns.capacity() < n) {
        if (columns != null) columns.close()
        columns = VectorBuffers.allocate(layout.parquetSchema, math.max(n, batchRows))
      }
      ColumnarCopy.copy(pendingBatch, pendingStart, n, columns, layout)
      writer.write(columns)
      accountMemory()
    }
    pendingBatch = null
    pendingStart = 0
    pendingEnd = 0
  }

  /** Tells the task's memory manager what this writer holds natively now. */
  private def accountMemory(): Unit = memory.update(writer.nativeBytesHeld() +
    batch.capacityInBytes() + (if (columns == null) 0L else columns.capacityInBytes()))

  private def writeRow(row: InternalRow): Unit = {
    val u = row match {
      case u: UnsafeRow => u
      case other =>
        if (toUnsafe == null) toUnsafe = UnsafeProjection.create(layout.sparkSchema)
        toUnsafe(other)
    }
    if (u.getBaseObject != null) {
      batch.append(u.getBaseObject, u.getBaseOffset, u.getSizeInBytes)
    } else {
      // A row in off-heap memory (Spark's off-heap pages): RowBatch copies only from arrays it
      // can bounds-check, so the row goes through a byte[] first.
      val bytes = u.getBytes
      batch.append(bytes, 0, bytes.length)
    }
    if (batch.isFull || batch.sizeInBytes() >= batchBytes) flush()
  }

  private def flush(): Unit = {
    if (!batch.isEmpty) {
      writer.writeRows(batch)
      batch.clear()
      accountMemory()
    }
  }

  override def close(): Unit = {
    try {
      if (writer != null) {
        copyPending()
        flush()
        writer.finish()
      }
      if (stream != null) stream.close()
      stream = null
    } finally {
      release()
    }
  }

  /** Frees native memory and the stream whatever state the writer is in. */
  private def release(): Unit = {
    ColumnarInput.unregister(this)
    pendingBatch = null
    if (columns != null) columns.close()
    columns = null
    if (writer != null) writer.abort()
    if (batch != null) batch.close()
    batch = null
    if (stream != null) {
      try stream.close() catch { case e: Exception => logWarning(s"closing $path", e) }
      stream = null
    }
    memory.update(0)
  }
}

object VectorParquetOutputWriter {
  /** Smallest buffer of the file's Hadoop stream (`io.file.buffer.size` when larger). */
  val MinStreamBuffer: Int = 1 << 20
}

/** Native bytes of one writer, accounted in Spark's memory manager (off-heap pool when on). */
private class NativeMemory(manager: Option[TaskMemoryManager]) {
  private val consumer: Option[MemoryConsumer] = manager.map { m =>
    val mode = if (m.getTungstenMemoryMode == MemoryMode.OFF_HEAP) MemoryMode.OFF_HEAP
      else MemoryMode.ON_HEAP
    new MemoryConsumer(m, m.pageSizeBytes(), mode) {
      // Encoded pages cannot be spilled; the writer flushes row groups on its own.
      override def spill(size: Long, trigger: MemoryConsumer): Long = 0L
    }
  }
  private var held = 0L

  def update(bytes: Long): Unit = consumer.foreach { c =>
    if (bytes > held) {
      held += c.acquireMemory(bytes - held)
    } else if (bytes < held) {
      c.freeMemory(held - bytes)
      held = bytes
    }
  }
}
