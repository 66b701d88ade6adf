package org.apache.spark.sql.execution.datasources.vecruntime

import org.apache.hadoop.mapreduce.TaskAttemptContext

import scala.collection.mutable

import org.apache.spark.internal.Logging
import org.apache.spark.internal.io.FileCommitProtocol
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.datasources.{BaseDynamicPartitionDataWriter, DynamicPartitionDataSingleWriter, OutputWriter, WriteJobDescription}
import org.apache.spark.sql.execution.datasources.FileFormatWriter.ConcurrentOutputWriterSpec
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.DataType

import io.vecruntime.parquet.RowBatch
import io.vecruntime.spark.{NativeMemory, RowAppender, RowSplitting, VectorParquetOutputWriter}

/**
 * Spark's partitioned and bucketed task writers, less one projection: Spark copies each row's
 * data columns into a new row before its writer sees it (`getOutputRow`, which re-encodes every
 * decimal: a quarter of the task time of store_sales partitioned by date). These hand the file
 * writer the whole input row instead, whose data columns the native writer reads in place
 * (`WideRows`). Everything else is Spark's: file naming, the open-writer limit and its sort,
 * maxRecordsPerFile, stats (and the concurrent writer's look-up of open files, made cheaper
 * step for step). The stats trackers see the whole row too, so this is used only with Spark's
 * own, which count rows and read no values, and trackers made for whole rows
 * ([[io.vecruntime.spark.WholeRowStatsTracker]]).
 */
private[vecruntime] object WholeRows {
  /** The input row as it is (an UnsafeRow), or copied into one. */
  final class Pass(types: Array[DataType]) extends UnsafeProjection {
    private val rows = new RowAppender(types)

    override def apply(row: InternalRow): UnsafeRow = rows.unsafe(row)
  }
}

/**
 * Spark's writer of a file open per partition and bucket (`DynamicPartitionDataConcurrentWriter`),
 * handing over whole rows, with its per-row look-up made cheap. Spark's looks up the open files
 * three times in a hash map, keyed by a case class of two Options, whenever a row's partition or
 * bucket differs from the last row's: for a bucketed write that is nearly every row (a ninth of
 * the task samples of store_sales bucketed by item). Here the current file's state is held
 * directly, a bucketed write without partitions finds its files by bucket id in an array, and
 * other writes look up once per change. What it does is Spark's, step for step: when a file is
 * opened (and named) and counted as a new partition, maxRecordsPerFile, the limit of open files
 * after which the rest of the task's rows are sorted and each file is closed once its rows end,
 * and the files closed at the end.
 */
private[vecruntime] class WholeRowConcurrentWriter(
    description: WriteJobDescription,
    taskAttemptContext: TaskAttemptContext,
    committer: FileCommitProtocol,
    spec: ConcurrentOutputWriterSpec)
  extends BaseDynamicPartitionDataWriter(description, taskAttemptContext, committer, Map.empty)
  with Logging {
  import WholeRowConcurrentWriter.{Key, NoBucket, Status}

  override protected val getOutputRow: UnsafeProjection =
    new WholeRows.Pass(description.allColumns.map(_.dataType).toArray)

  /** Past the open-file limit: the rest of the rows come sorted (Spark's `sorted`). */
  private var sorted = false
  /** Open files by partition values and bucket (partitioned writes). */
  private val open = mutable.HashMap[Key, Status]()
  /** Open files by bucket id (bucketed writes without partitions). */
  private var byBucket = new Array[Status](0)
  private var opened = 0
  /** The current file's partition values (a copy), bucket and state; null, NoBucket, null at first. */
  private var partition: UnsafeRow = null
  private var bucket = NoBucket
  private var status: Status = null

  private def bucketOption: Option[Int] = if (isBucketed) Some(bucket) else None

  private def lookUp(): Status =
    if (isPartitioned) open.getOrElse(Key(partition, bucket), null)
    else if (bucket < byBucket.length) byBucket(bucket) else null

  private def remember(s: Status): Unit = {
    // (`partition` is a copy, replaced and never changed when the partition changes.)
    if (isPartitioned) open.put(Key(partition, bucket), s)
    else {
      if (bucket >= byBucket.length) {
        byBucket = java.util.Arrays.copyOf(byBucket, math.max(bucket + 1, 2 * byBucket.length))
      }
      byBucket(bucket) = s
    }
    opened += 1
  }

  private def forget(): Unit = {
    if (isPartitioned) open.remove(Key(partition, bucket)) else byBucket(bucket) = null
    opened -= 1
  }

  /** Keeps the current file's state for when its rows come back (Spark's status update). */
  private def save(): Unit = {
    status.writer = currentWriter
    status.records = recordsInFile
    status.counter = fileCounter
  }

  override def write(record: InternalRow): Unit = {
    select(if (isPartitioned) getPartitionValues(record) else null,
      if (isBucketed) getBucketId(record) else NoBucket)
    rollIfFull()
    writeRecord(record)
  }

  /**
   * Makes the file of `nextPartition` (partition values, null without; not kept, copied when
   * needed) and `nextBucket` the current one, opening it if it is not open: Spark's steps
   * before it writes a row.
   */
  protected def select(nextPartition: UnsafeRow, nextBucket: Int): Unit = {
    val newPartition = isPartitioned && nextPartition != partition
    if (status == null || nextBucket != bucket || newPartition) {
      if (currentWriter != null) {
        if (!sorted) save()
        else {
          forget()
          releaseCurrentWriter()
        }
      }
      bucket = nextBucket
      if (newPartition) partition = nextPartition.copy()
      status = lookUp()
      if (newPartition && status == null) statsTrackers.foreach(_.newPartition(partition))
      if (status != null) {
        currentWriter = status.writer
        recordsInFile = status.records
        fileCounter = status.counter
      } else {
        fileCounter = 0
        renewCurrentWriter(Option(partition), bucketOption, closeCurrentWriter = false)
        val limit = if (sorted) spec.maxWriters + 1 else spec.maxWriters
        assert(opened <= limit, s"Number of open output file writers is $opened, beyond $limit")
        status = new Status(currentWriter, recordsInFile, fileCounter)
        remember(status)
        if (opened >= spec.maxWriters && !sorted) {
          logInfo(s"Number of concurrent writers $opened reaches the threshold. Fall back from " +
            "concurrent writers to sort-based sequential writer. You may change threshold " +
            s"with configuration ${SQLConf.MAX_CONCURRENT_OUTPUT_FILE_WRITERS.key}")
          sorted = true
        }
      }
    }
  }

  /** Whether the file of these partition values and bucket is open. */
  protected def isOpen(partitionValues: UnsafeRow, bucketId: Int): Boolean =
    if (isPartitioned) open.contains(Key(partitionValues, bucketId))
    else bucketId < byBucket.length && byBucket(bucketId) != null

  protected def openFiles: Int = opened

  protected def maxOpenFiles: Int = spec.maxWriters

  /**
   * Spark's steps after a row is written to the current file, for the `n` rows `row(i)` at once
   * (a view each tracker reads before the next).
   */
  protected def wroteRows(n: Int, row: Int => InternalRow): Unit = {
    val path = currentWriter.path
    var i = 0
    while (i < n) {
      val r = row(i)
      statsTrackers.foreach(_.newRow(path, r))
      i += 1
    }
    recordsInFile += n
  }

  /** Rolls to the partition's and bucket's next file if the current one is full. */
  protected def rollIfFull(): Unit =
    if (description.maxRecordsPerFile > 0 && recordsInFile >= description.maxRecordsPerFile) {
      renewCurrentWriterIfTooManyRecords(Option(partition), bucketOption)
      save()
    }

  override def writeWithIterator(iterator: Iterator[InternalRow]): Unit = {
    while (iterator.hasNext && !sorted) write(iterator.next())
    if (iterator.hasNext) {
      // Spark's clearCurrentWriterStatus: the next row opens or finds its file afresh.
      if (status != null) save()
      partition = null
      bucket = NoBucket
      status = null
      currentWriter = null
      recordsInFile = 0
      fileCounter = 0
      val sortIterator = spec.createSorter().sort(iterator.asInstanceOf[Iterator[UnsafeRow]])
      while (sortIterator.hasNext) write(sortIterator.next())
    }
  }

  override protected def releaseResources(): Unit = {
    currentWriter = null
    (open.valuesIterator ++ byBucket.iterator.filter(_ != null)).foreach { s =>
      if (s.writer != null) {
        try {
          s.writer.close()
          statsTrackers.foreach(_.closeFile(s.writer.path()))
        } finally s.writer = null
      }
    }
    open.clear()
    byBucket = new Array[Status](0)
    opened = 0
  }
}

/**
 * [[WholeRowConcurrentWriter]] with the rows split by file natively ([[RowSplitting]]) instead
 * of by Spark's projections row by row: the whole input rows are copied into one batch, which
 * native code splits by partition values and bucket id and copies grouped by file; each file
 * then takes its rows as one run, in input order. Per batch, each group's file is found or
 * opened as Spark's writer does for its first row (a projection per group, not per row), and
 * maxRecordsPerFile rolls files within a run where Spark's count says. A batch whose new files
 * would reach the open-file limit goes row by row instead, with the rest of the task's rows:
 * the limit, and the sort of the rows after it, stay exactly Spark's.
 */
private[vecruntime] class SplitRowsWriter(
    description: WriteJobDescription,
    taskAttemptContext: TaskAttemptContext,
    committer: FileCommitProtocol,
    spec: ConcurrentOutputWriterSpec,
    splitting: RowSplitting)
  extends WholeRowConcurrentWriter(description, taskAttemptContext, committer, spec) {
  import WholeRowConcurrentWriter.NoBucket

  private val types = description.allColumns.map(_.dataType).toArray
  private val rowAppender = new RowAppender(types)
  private val splitter = splitting.splitter()
  private var in = new RowBatch(splitting.batchRows, SplitRowsWriter.FirstBatchBytes)
  private var grouped = new RowBatch(splitting.batchRows, SplitRowsWriter.FirstBatchBytes)
  private val memory = new NativeMemory(SparkWriteShim.taskMemoryManager(), () => ())
  private val view = new UnsafeRow(types.length)
  private val maxRecords = description.maxRecordsPerFile
  private val stats = splitting.stats

  override def writeWithIterator(iterator: Iterator[InternalRow]): Unit = {
    // Rows the split leaves to Spark's row-by-row steps (past the open-file limit), if any.
    var rest: Iterator[InternalRow] = null
    while (rest == null && iterator.hasNext) {
      append(iterator.next())
      if (in.isFull || in.sizeInBytes() >= splitting.batchBytes) rest = dispatch()
    }
    if (rest == null) rest = dispatch()
    if (rest != null) super.writeWithIterator(rest ++ iterator)
  }

  private def append(row: InternalRow): Unit = rowAppender.append(in, row)

  private def rowOf(batch: RowBatch, i: Int): UnsafeRow = {
    view.pointTo(null, batch.rowAddress(i), batch.rowSize(i))
    view
  }

  /**
   * Writes the batch's rows to their files, or, when the files it would open reach the limit,
   * returns its rows (copies) for Spark's row-by-row steps.
   */
  private def dispatch(): Iterator[InternalRow] = {
    if (in.isEmpty) return null
    val groups = splitter.split(in, grouped)
    memory.update(in.capacityInBytes() + grouped.capacityInBytes())
    val partitions = new Array[UnsafeRow](groups)
    var fresh = 0
    var g = 0
    while (g < groups) {
      if (isPartitioned) partitions(g) = getPartitionValues(rowOf(grouped, splitter.start(g))).copy()
      if (!isOpen(partitions(g), bucketOf(g))) fresh += 1
      g += 1
    }
    if (openFiles + fresh >= maxOpenFiles) {
      val rows = (0 until in.rowCount()).iterator.map(i => rowOf(in, i).copy())
      return rows
    }
    g = 0
    while (g < groups) {
      select(partitions(g), bucketOf(g))
      var at = splitter.start(g)
      var left = splitter.count(g)
      while (left > 0) {
        rollIfFull()
        val n = if (maxRecords > 0) math.min(left.toLong, maxRecords - recordsInFile).toInt
          else left
        currentWriter match {
          case v: VectorParquetOutputWriter => v.writeRun(grouped, at, n)
          case other => (at until at + n).foreach(i => other.write(rowOf(grouped, i)))
        }
        val first = at
        wroteRows(n, i => rowOf(grouped, first + i))
        at += n
        left -= n
      }
      g += 1
    }
    stats.foreach(_.splitRows(in.rowCount()))
    in.clear()
    grouped.clear()
    null
  }

  private def bucketOf(g: Int): Int = if (isBucketed) splitter.bucket(g) else NoBucket

  override protected def releaseResources(): Unit = {
    try super.releaseResources()
    finally {
      if (in != null) in.close()
      if (grouped != null) grouped.close()
      in = null
      grouped = null
      memory.update(0)
    }
  }
}

private[vecruntime] object SplitRowsWriter {
  val FirstBatchBytes: Int = 1 << 20
}

private[vecruntime] object WholeRowConcurrentWriter {
  val NoBucket: Int = -1

  /** An open file's key: partition values (a copy) and bucket id (NoBucket without buckets). */
  final case class Key(partition: UnsafeRow, bucket: Int)

  /** An open file and its counts (Spark's `WriterStatus`). */
  final class Status(var writer: OutputWriter, var records: Long, var counter: Int)
}

/** Spark's writer of sorted input, one file open at a time, handing over whole rows. */
private[vecruntime] class WholeRowSingleWriter(
    description: WriteJobDescription,
    taskAttemptContext: TaskAttemptContext,
    committer: FileCommitProtocol)
  extends DynamicPartitionDataSingleWriter(description, taskAttemptContext, committer) {
  override protected val getOutputRow: UnsafeProjection =
    new WholeRows.Pass(description.allColumns.map(_.dataType).toArray)
}
