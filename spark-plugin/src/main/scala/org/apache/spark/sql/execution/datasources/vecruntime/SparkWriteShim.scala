package org.apache.spark.sql.execution.datasources.vecruntime

import java.util.Date

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.mapreduce.{TaskAttemptContext, TaskAttemptID, TaskID, TaskType}
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl

import org.apache.spark.{SparkContext, TaskContext}
import org.apache.spark.internal.Logging
import org.apache.spark.internal.io.{FileCommitProtocol, SparkHadoopWriterUtils}
import org.apache.spark.memory.TaskMemoryManager
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.connector.write.WriterCommitMessage
import org.apache.spark.sql.execution.datasources.{BasicWriteJobStatsTracker, DynamicPartitionDataConcurrentWriter, DynamicPartitionDataSingleWriter, EmptyDirectoryDataWriter, FileFormatDataWriter, FileFormatWriter, OutputWriterFactory, SingleDirectoryDataWriter, WriteJobDescription, WriteJobStatsTracker, WriteTaskResult}
import org.apache.spark.sql.execution.datasources.FileFormatWriter.ConcurrentOutputWriterSpec
import org.apache.spark.sql.types.StructType
import org.apache.spark.util.Utils

import io.vecruntime.spark.{RowSplitting, WholeRowStatsTracker}

/**
 * A table format's own task write (Delta's `DeltaFileFormatWriter.executeTask`), where it differs
 * from Spark's: the task attempt context its committer expects, and errors wrapped by the task
 * on every Spark line, its writer built before the task's failure handling.
 */
trait TableTaskSetup extends Serializable {
  def taskAttemptContext(conf: Configuration, id: TaskAttemptID): TaskAttemptContext
}

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
   * too, those rows are split by file natively ([[SplitRowsWriter]]). With `tableTask`, the task
   * write is the table format's ([[TableTaskSetup]]) with Spark's task writers or ours.
   */
  def executeWrite(
      sparkContext: SparkContext,
      rdd: RDD[InternalRow],
      description: WriteJobDescription,
      committer: FileCommitProtocol,
      factory: OutputWriterFactory,
      concurrent: Option[ConcurrentOutputWriterSpec],
      wholeRows: Boolean,
      splitting: Option[RowSplitting] = None,
      tableTask: Option[TableTaskSetup] = None): RDD[WriterCommitMessage] = {
    // SPARK-23271: a write of no partitions still runs one task, so that partition 0 writes
    // the schema-only file.
    val input = if (rdd.partitions.length == 0) {
      sparkContext.parallelize(Seq.empty[InternalRow], 1)
    } else {
      rdd
    }
    val d = description
    // The job's trackers process what their task trackers return; those read whole rows here.
    val trackers = if (!wholeRows) d.statsTrackers else d.statsTrackers.map {
      case w: WholeRowStatsTracker => w.forWholeRows(d.allColumns).get
      case t => t
    }
    val ours = new WriteJobDescription(d.uuid, d.serializableHadoopConf, factory, d.allColumns,
      d.dataColumns, d.partitionColumns, d.bucketSpec, d.path, d.customPartitionLocations,
      d.maxRecordsPerFile, d.timeZoneId, trackers)
    val jobTrackerID = SparkHadoopWriterUtils.createJobTrackerID(new Date())
    input.mapPartitionsInternal { iterator =>
      val context = TaskContext.get()
      val attempt = context.taskAttemptId().toInt & Int.MaxValue
      val result = if (wholeRows || tableTask.isDefined) {
        executeTask(ours, jobTrackerID, context.stageId(), context.partitionId(), attempt,
          committer, iterator, concurrent, wholeRows, splitting, tableTask)
      } else {
        FileFormatWriter.executeTask(ours, jobTrackerID, context.stageId(),
          context.partitionId(), attempt, committer, iterator, concurrent)
      }
      Iterator(result)
    }
  }

  /**
   * Whether a partitioned or bucketed write can hand its files whole input rows
   * ([[WholeRowConcurrentWriter]]): with stats trackers that read no values (Spark's own) or read
   * them from whole rows ([[WholeRowStatsTracker]]).
   */
  def takesWholeRows(description: WriteJobDescription): Boolean =
    (description.partitionColumns.nonEmpty || description.bucketSpec.isDefined) &&
      readWholeRows(description.statsTrackers, description.allColumns)

  /** Whether each of `trackers` reads no values or can read them from rows of `allColumns`. */
  def readWholeRows(trackers: Seq[WriteJobStatsTracker], allColumns: Seq[Attribute]): Boolean =
    trackers.forall(t => t.getClass == classOf[BasicWriteJobStatsTracker] || (t match {
      case w: WholeRowStatsTracker => w.forWholeRows(allColumns).isDefined
      case _ => false
    }))

  /**
   * Spark's `FileFormatWriter.executeTask` with the whole-row task writers of a partitioned or
   * bucketed write (`wholeRows`), else Spark's: task set-up, the empty task's writer, commit,
   * abort and the errors ([[TaskErrors]]: where each Spark line builds the writer and wraps
   * errors) as Spark's, or as the table format's task write (`tableTask`).
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
      wholeRows: Boolean,
      splitting: Option[RowSplitting],
      tableTask: Option[TableTaskSetup]): WriteTaskResult = {
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
      tableTask.fold[TaskAttemptContext](new TaskAttemptContextImpl(hadoopConf, taskAttemptId))(
        _.taskAttemptContext(hadoopConf, taskAttemptId))
    }
    committer.setupTask(taskAttemptContext)
    // The first hasNext runs the input (all of a sort's under it): on Spark 3.5 and in a table
    // format's task before the task's error handling, on 4.x within it (TaskErrors).
    def newWriter(): FileFormatDataWriter =
      if (sparkPartitionId != 0 && !iterator.hasNext) {
        // An empty task writes nothing; the first writes the schema of an empty job.
        new EmptyDirectoryDataWriter(description, taskAttemptContext, committer)
      } else if (description.partitionColumns.isEmpty && description.bucketSpec.isEmpty) {
        new SingleDirectoryDataWriter(description, taskAttemptContext, committer)
      } else if (!wholeRows) {
        concurrent.fold[FileFormatDataWriter](
          new DynamicPartitionDataSingleWriter(description, taskAttemptContext, committer))(
          new DynamicPartitionDataConcurrentWriter(description, taskAttemptContext, committer, _))
      } else {
        (concurrent, splitting) match {
          case (Some(spec), Some(split)) =>
            new SplitRowsWriter(description, taskAttemptContext, committer, spec, split)
          case (Some(spec), None) =>
            new WholeRowConcurrentWriter(description, taskAttemptContext, committer, spec)
          case (None, _) => new WholeRowSingleWriter(description, taskAttemptContext, committer)
        }
      }
    val writerBeforeTry = tableTask.isDefined || TaskErrors.writerBeforeTry
    def wrap[T](task: => T): T =
      if (tableTask.isDefined) WrappedTaskErrors.wrap(description.path)(task)
      else TaskErrors.wrap(description.path)(task)
    var dataWriter: FileFormatDataWriter = if (writerBeforeTry) newWriter() else null
    wrap {
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
