package io.vecruntime.spark

import io.vecruntime.spark.shims.SparkShims
import org.apache.hadoop.fs.FileStatus
import org.apache.hadoop.mapreduce.Job

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.datasources.{FileFormat, OutputWriterFactory}
import org.apache.spark.sql.execution.datasources.parquet.ParquetWriteSupport
import org.apache.spark.sql.types.{DataType, StructType}

/**
 * A table format's Parquet `FileFormat` (`delegate`, e.g. Delta's) writing through the native
 * writer: the delegate's `prepareWrite` sets the job up as it always does (its write options,
 * schema, codec, the table format's own settings), then its files are written natively, unless
 * the write is one the native writer cannot take as the delegate would write it, which then
 * keeps the delegate's writer with the reason logged (and counted by [[WriteCensus]] under
 * `tableFormat`). `manyFiles`: a partitioned write.
 */
class DelegatingVectorFormat(val delegate: FileFormat, manyFiles: Boolean, tableFormat: String)
  extends FileFormat with Logging {

  override def inferSchema(
      sparkSession: SparkSession,
      options: Map[String, String],
      files: Seq[FileStatus]): Option[StructType] = delegate.inferSchema(sparkSession, options, files)

  override def supportDataType(dataType: DataType): Boolean = delegate.supportDataType(dataType)

  override def supportFieldName(name: String): Boolean = delegate.supportFieldName(name)

  override def prepareWrite(
      sparkSession: SparkSession,
      job: Job,
      options: Map[String, String],
      dataSchema: StructType): OutputWriterFactory = {
    val hadoopConf = job.getConfiguration
    val conf = sparkSession.sessionState.conf
    // Read before Spark's prepareWrite names v1 when the write names no version; a table
    // format may pass it as a write option only.
    val version = VectorWriteRule.writerVersion(hadoopConf)
      .orElse(options.get("parquet.writer.version"))
    val before = VectorWriteRule.fallbackReason(
      delegate, dataSchema.fields.toSeq, options, hadoopConf, conf)
    val factory = delegate.prepareWrite(sparkSession, job, options, dataSchema)
    // A format that writes through its own write support (Delta's nested field ids) writes
    // what Spark's converter would not.
    val support = hadoopConf.get("parquet.write.support.class")
    val reason = before.orElse(
      if (support == null || support == classOf[ParquetWriteSupport].getName) None
      else Some(s"the table format writes through its own write support ($support)"))
    if (VecRuntimeConf.enabled(conf)) WriteCensus.tableFormatWrite(tableFormat, reason)
    VectorParquetOutputWriterFactory.choose(factory, reason, tableFormat, manyFiles, version,
      options, conf)
  }

  override def toString: String = s"$delegate (vecruntime)"
}
