package org.apache.spark.sql.execution.datasources.vecruntime

import java.util.Date

import org.apache.spark.{SparkContext, TaskContext}
import org.apache.spark.internal.io.{FileCommitProtocol, SparkHadoopWriterUtils}
import org.apache.spark.memory.TaskMemoryManager
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.write.WriterCommitMessage
import org.apache.spark.sql.execution.datasources.{FileFormatWriter, OutputWriterFactory, WriteJobDescription}
import org.apache.spark.sql.execution.datasources.FileFormatWriter.ConcurrentOutputWriterSpec
import org.apache.spark.sql.types.StructType

/**
 * The few `private[spark]` pieces of Spark that vecruntime uses, in one place. The task write is
 * Spark's own `FileFormatWriter.executeTask`: task attempt set-up, file naming through the commit
 * protocol, maxRecordsPerFile rolling, stats trackers, commit and abort and the TASK_WRITE_FAILED
 * wrapping stay Spark's; only the OutputWriter is vecruntime's.
 */
object SparkWriteShim {

  /**
   * Runs Spark's task write over each partition of `rdd` with `factory` making the files; with
   * `concurrent`, a partitioned or bucketed write keeps a file open per partition and bucket
   * (Spark's `DynamicPartitionDataConcurrentWriter`) instead of needing its input sorted.
   */
  def executeWrite(
      sparkContext: SparkContext,
      rdd: RDD[InternalRow],
      description: WriteJobDescription,
      committer: FileCommitProtocol,
      factory: OutputWriterFactory,
      concurrent: Option[ConcurrentOutputWriterSpec]): RDD[WriterCommitMessage] = {
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
      val result = FileFormatWriter.executeTask(ours, jobTrackerID, context.stageId(),
        context.partitionId(), context.taskAttemptId().toInt & Int.MaxValue, committer,
        iterator, concurrent)
      Iterator(result)
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
