package io.vecruntime.spark

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.catalog.BucketSpec
import org.apache.spark.sql.catalyst.catalog.CatalogTypes.TablePartitionSpec
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.connector.write.WriterCommitMessage
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.datasources.{FileFormat, WriteFilesExecBase, WriteFilesSpec}
import org.apache.spark.sql.execution.datasources.vecruntime.SparkWriteShim

/**
 * Writes the child's rows to Parquet through the native writer: one `WriteTaskResult` per
 * partition from Spark's own task write, with [[VectorParquetOutputWriterFactory]] in place of
 * Parquet's OutputWriterFactory. Spark keeps the command, the commit protocol, file naming,
 * stats trackers, job commit and the table refresh.
 */
case class VectorWriteFilesExec(
    child: SparkPlan,
    fileFormat: FileFormat,
    partitionColumns: Seq[Attribute],
    bucketSpec: Option[BucketSpec],
    options: Map[String, String],
    staticPartitions: TablePartitionSpec,
    columnarInput: Boolean = false) extends WriteFilesExecBase {

  override protected def doExecuteWrite(spec: WriteFilesSpec): RDD[WriterCommitMessage] = {
    val factory = new VectorParquetOutputWriterFactory(spec.description.outputWriterFactory)
    // A columnar child is consumed batch by batch: the writer copies each batch's columns in
    // bulk (see ColumnarInput); rows are produced only as views for Spark's task write.
    val input = if (columnarInput) {
      child.executeColumnar().mapPartitions(batches => ColumnarInput.rows(batches))
    } else {
      child.execute()
    }
    SparkWriteShim.executeWrite(session.sparkContext, input, spec.description, spec.committer,
      factory)
  }

  override def simpleString(maxFields: Int): String =
    if (columnarInput) s"$nodeName (columnar input)" else nodeName

  override def nodeName: String = "VectorWriteFiles"

  override protected def stringArgs: Iterator[Any] = Iterator(child, columnarInput)

  override protected def withNewChildInternal(newChild: SparkPlan): VectorWriteFilesExec =
    copy(child = newChild)
}
