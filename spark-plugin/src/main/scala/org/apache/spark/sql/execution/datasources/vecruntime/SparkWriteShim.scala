package org.apache.spark.sql.execution.datasources.vecruntime

import java.util.Date

import org.apache.hadoop.mapreduce.{TaskAttemptContext, TaskAttemptID, TaskID, TaskType}
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl

import org.apache.spark.{SparkContext, TaskContext}
import org.apache.spark.internal.Logging
import org.apache.spark.internal.io.{FileCommitProtocol, SparkHadoopWriterUtils}
import org.apache.spark.memory.TaskMemoryManager
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.write.WriterCommitMessage
import org.apache.spark.sql.execution.datasources.{BasicWriteJobStatsTracker, EmptyDirectoryDataWriter, FileFormatDataWriter, FileFormatWriter, OutputWriterFactory, WriteJobDescription, WriteTaskResult}
import org.apache.spark.sql.execution.datasources.FileFormatWriter.ConcurrentOutputWriterSpec
import org.apache.spark.sql.types.StructType
import org.apache.spark.util.Utils

import io.vecruntime.spark.RowSplitting

/**
 * The few `private[spark]` pieces of Spark that vecruntime uses, in one place. The task write is
 * Spark's own `FileFormatWriter.executeTask`, or for a partitioned or bucketed write its copy
 * with Spark's task writers handing over whole rows ([[WholeRowConcurrentWriter]]): task attempt
 * set-up, file naming through the commit protocol, maxRecordsPerFile rolling, stats trackers,
 * commit and abort and the TASK_WRITE_FAILED wrapping stay Spark's; only the OutputWriter is
 * vecruntime's.
 */
object SparkWriteShim extends Logging {

  /**
   * Runs Spark's task write over each partition of `rdd` with `factory` making the files; with
   * `concurrent`, a partitioned or bucketed write keeps a file open per partition and bucket
   * (Spark's `DynamicPartitionDataConcurrentWriter`) instead of needing its input sorted. With
   * `wholeRows` ([[takesWholeRows]]), the files are handed whole input rows; with `splitting`
   * too, those rows are split by file natively ([[SplitRowsWriter]]).
   */
  def executeWrite(
      sparkContext: SparkContext,
      rdd: RDD[InternalRow],
      description: WriteJobDescription,
      committer: FileCommitProtocol,
      factory: OutputWriterFactory,
      concurrent: Option[ConcurrentOutputWriterSpec],
      wholeRows: Boolean,
      splitting: Option[RowSplitting] = None): RDD[WriterCommitMessage] = {
    // SPARK-23271: a write of no partitions still runs one task, so that partition 0 writes
    // the schema-only file.
    val input = if (rdd.partitions.length == 0) {
      sparkContext.parallelize(Seq.empty[InternalRow], 1)
    } else {
      rdd
    }
    val d = description
    val ours = new WriteJobDescription(d.uuid, d.serializableHadoopConf, factory, d.allColumns,
      d.dataColumns, d.partitionColumns, d.bucketSpec, d.path, d.customPartitionLocations,
      d.maxRecordsPerFile, d.timeZoneId, d.statsTrackers)
    val jobTrackerID = SparkHadoopWriterUtils.createJobTrackerID(new Date())
    input.mapPartitionsInternal { iterator =>
      val context = TaskContext.get()
      val attempt = context.taskAttemptId().toInt & Int.MaxValue
      val result = if (wholeRows) {
        executeTask(ours, jobTrackerID, context.stageId(), context.partitionId(), attempt,
          committer, iterator, concurrent, splitting)
      } else {
        FileFormatWriter.executeTask(ours, jobTrackerID, context.stageId(),
          context.partitionId(), attempt, committer, iterator, concurrent)
      }
      Iterator(result)
    }
  }

  /**
   * Whether a partitioned or bucketed write can hand its files whole input rows
   * ([[WholeRowConcurrentWriter]]): with Spark's own stats trackers only, which read no values.
   */
  def takesWholeRows(description: WriteJobDescription): Boolean =
    (description.partitionColumns.nonEmpty || description.bucketSpec.isDefined) &&
      description.statsTrackers.forall(_.getClass == classOf[BasicWriteJobStatsTracker])

  /**
   * Spark's `FileFormatWriter.executeTask` with the whole-row task writers of a partitioned or
   * bucketed write: task set-up, the empty task's writer, commit, abort and the errors
   * ([[TaskErrors]]: where each Spark line builds the writer and wraps errors) as Spark's.
   */
  private def executeTask(
      description: WriteJobDescription,
      jobTrackerID: String,
      sparkStageId: Int,
      sparkPartitionId: Int,
      sparkAttemptNumber: Int,
      committer: FileCommitProtocol,
      iterator: Iterator[InternalRow],
      concurrent: Option[ConcurrentOutputWriterSpec],
      splitting: Option[RowSplitting]): WriteTaskResult = {
    val jobId = SparkHadoopWriterUtils.createJobID(jobTrackerID, sparkStageId)
    val taskId = new TaskID(jobId, TaskType.MAP, sparkPartitionId)
    val taskAttemptId = new TaskAttemptID(taskId, sparkAttemptNumber)
    val taskAttemptContext: TaskAttemptContext = {
      val hadoopConf = description.serializableHadoopConf.value
      hadoopConf.set("mapreduce.job.id", jobId.toString)
      hadoopConf.set("mapreduce.task.id", taskAttemptId.getTaskID.toString)
      hadoopConf.set("mapreduce.task.attempt.id", taskAttemptId.toString)
      hadoopConf.setBoolean("mapreduce.task.ismap", true)
      hadoopConf.setInt("mapreduce.task.partition", 0)
      new TaskAttemptContextImpl(hadoopConf, taskAttemptId)
    }
    committer.setupTask(taskAttemptContext)
    // The first hasNext runs the input (a sort under it, say): on Spark 3.5 before the task's
    // error handling, on 4.x within it (TaskErrors).
    def newWriter(): FileFormatDataWriter =
      if (sparkPartitionId != 0 && !iterator.hasNext) {
        // An empty task writes nothing; the first writes the schema of an empty job.
        new EmptyDirectoryDataWriter(description, taskAttemptContext, committer)
      } else {
        (concurrent, splitting) match {
          case (Some(spec), Some(split)) =>
            new SplitRowsWriter(description, taskAttemptContext, committer, spec, split)
          case (Some(spec), None) =>
            new WholeRowConcurrentWriter(description, taskAttemptContext, committer, spec)
          case (None, _) => new WholeRowSingleWriter(description, taskAttemptContext, committer)
        }
      }
    var dataWriter: FileFormatDataWriter = if (TaskErrors.writerBeforeTry) newWriter() else null
    TaskErrors.wrap(description.path) {
      Utils.tryWithSafeFinallyAndFailureCallbacks(block = {
        if (dataWriter == null) dataWriter = newWriter()
        dataWriter.writeWithIterator(iterator)
        dataWriter.commit()
      })(catchBlock = {
        if (dataWriter != null) dataWriter.abort() else committer.abortTask(taskAttemptContext)
        logError(s"Job: $jobId, Task: $taskId, Task attempt $taskAttemptId aborted.")
      }, finallyBlock = {
        if (dataWriter != null) dataWriter.close()
      })
    }
  }

  def parseSchema(json: String): StructType = StructType.fromString(json)

  /** The footer keys of Spark's LEGACY rebase modes (private to Spark's `sql` package). */
  val LegacyDateTimeKey: String = org.apache.spark.sql.SPARK_LEGACY_DATETIME_METADATA_KEY
  val LegacyInt96Key: String = org.apache.spark.sql.SPARK_LEGACY_INT96_METADATA_KEY
  val TimeZoneKey: String = org.apache.spark.sql.SPARK_TIMEZONE_METADATA_KEY

  /** Throws TaskKilledException in a task that was killed (its job cancelled). */
  def stopIfKilled(): Unit = Option(TaskContext.get()).foreach(_.killTaskIfInterrupted())

  def taskMemoryManager(): Option[TaskMemoryManager] =
    Option(TaskContext.get()).map(_.taskMemoryManager())
}
