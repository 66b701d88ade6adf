package io.vecruntime.spark

import java.lang.reflect.Field

import scala.util.control.NonFatal

import io.vecruntime.spark.shims.FileStreamSink

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.execution.streaming.sources.WriteToMicroBatchDataSourceV1

/**
 * Gives a Structured Streaming Parquet file sink [[VectorParquetFileFormat]]. The sink calls
 * `FileFormatWriter.write` itself with the format it was made with, on a plan without a write
 * node, so neither a planner rule nor a plan rewrite reaches its writer: Spark offers no hook
 * there. Each micro-batch's plan, `WriteToMicroBatchDataSourceV1` over the batch's query, is
 * analysed before the sink writes it; this analyser rule swaps the sink's format there, once per
 * sink. The sink keeps everything else: its `_spark_metadata` log and exactly-once commit,
 * `ManifestFileCommitProtocol`'s file names, partition directories, the skipping of batches
 * already committed.
 */
object VectorStreamSink extends Rule[LogicalPlan] with Logging {

  // FileStreamSink's constructor parameters, kept as private fields.
  private lazy val fields: Either[Throwable, (Field, Field)] =
    try {
      def field(name: String) = {
        val f = classOf[FileStreamSink].getDeclaredField(name)
        f.setAccessible(true)
        f
      }
      Right((field("fileFormat"), field("partitionColumnNames")))
    } catch {
      case NonFatal(e) => Left(e)
    }

  override def apply(plan: LogicalPlan): LogicalPlan = {
    // A Delta sink's micro-batch starts its transaction on this (the stream's) thread.
    if (SparkSession.getActiveSession.exists(s => VecRuntimeConf.enabled(s.sessionState.conf))) {
      DeltaWrites.observeThisThread()
    }
    plan.foreach {
      case w: WriteToMicroBatchDataSourceV1 => w.sink match {
        case sink: FileStreamSink => swap(sink)
        case _ =>
      }
      case _ =>
    }
    plan
  }

  private def swap(sink: FileStreamSink): Unit = fields match {
    case Right((format, partitions)) => sink.synchronized {
      if (format.get(sink).getClass == classOf[ParquetFileFormat]) {
        val partitioned = partitions.get(sink).asInstanceOf[Seq[_]].nonEmpty
        format.set(sink, new VectorParquetFileFormat(manyFiles = partitioned))
        logInfo(s"vecruntime: the native writer writes $sink")
      }
    }
    case Left(e) => logWarning(s"vecruntime: Spark's writer writes $sink: this Spark's " +
      s"FileStreamSink cannot be given the native writer ($e)")
  }
}
