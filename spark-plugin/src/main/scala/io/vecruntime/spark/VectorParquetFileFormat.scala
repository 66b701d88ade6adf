package io.vecruntime.spark

import io.vecruntime.spark.shims.SparkShims
import org.apache.hadoop.mapreduce.Job

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.datasources.OutputWriterFactory
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.types.StructType

/**
 * Spark's Parquet format, writing through the native writer. For the writes Spark runs without
 * a `WriteFiles` node, where `FileFormatWriter` asks the command's or the sink's own format for
 * its OutputWriterFactory: an `InsertIntoHadoopFsRelationCommand` planned with
 * `spark.sql.optimizer.plannedWrite.enabled=false` ([[VectorWriteRule]]) and the Structured
 * Streaming file sink ([[VectorStreamSink]]). Spark's `prepareWrite` still sets the job up
 * (committer, write support, schema, codec); only the files' writer is vecruntime's.
 *
 * `manyFiles`: a partitioned or bucketed write. `planned`: the reason the rule found, when it
 * planned the write, why Spark's writer must write it (shown in EXPLAIN). A write that had no
 * such planning (a stream's micro-batch) is checked as it starts, and the reason, if any, logged.
 */
class VectorParquetFileFormat(val manyFiles: Boolean, val planned: Option[String] = None)
  extends ParquetFileFormat with Logging {

  override def prepareWrite(
      sparkSession: SparkSession,
      job: Job,
      options: Map[String, String],
      dataSchema: StructType): OutputWriterFactory = {
    val hadoopConf = job.getConfiguration
    val conf = sparkSession.sessionState.conf
    // Read before Spark's prepareWrite names v1 when the write names no version.
    val version = VectorWriteRule.writerVersion(hadoopConf)
    val reason = planned.orElse(
      VectorWriteRule.fallbackReason(this, dataSchema.fields.toSeq, options, hadoopConf, conf))
    val spark = super.prepareWrite(sparkSession, job, options, dataSchema)
    VectorParquetOutputWriterFactory.choose(spark, reason, "Spark", manyFiles, version,
      options, conf)
  }

  override def toString: String = planned match {
    case None => "Parquet (vecruntime)"
    case Some(r) => s"Parquet [Spark's writer: $r]"
  }

  // Equal to Spark's ParquetFileFormat (its equals takes any ParquetFileFormat), so the hash
  // must be too.
  override def hashCode(): Int = classOf[ParquetFileFormat].hashCode()
}
