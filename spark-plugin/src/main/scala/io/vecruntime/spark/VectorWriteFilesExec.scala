package io.vecruntime.spark

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.catalog.BucketSpec
import org.apache.spark.sql.catalyst.catalog.CatalogTypes.TablePartitionSpec
import org.apache.spark.sql.catalyst.expressions.{Ascending, Attribute, BindReferences, SortOrder}
import org.apache.spark.sql.connector.write.WriterCommitMessage
import org.apache.spark.sql.execution.{SortExec, SparkPlan}
import org.apache.spark.sql.execution.datasources.{FileFormat, WriteFilesSpec}
import org.apache.spark.sql.execution.datasources.FileFormatWriter.ConcurrentOutputWriterSpec
import org.apache.spark.sql.execution.datasources.vecruntime.{SparkWriteShim, TableTaskSetup}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.types.{StructField, StructType}

import io.vecruntime.spark.shims.{SparkShims, WriteFilesNode}

/**
 * Writes the child's rows to Parquet through the native writer: one `WriteTaskResult` per
 * partition from Spark's own task write, with [[VectorParquetOutputWriterFactory]] in place of
 * Parquet's OutputWriterFactory. Spark keeps the command, the commit protocol, file naming,
 * stats trackers, job commit and the table refresh.
 *
 * A partitioned or bucketed write whose sort Spark planned only for its one-file-at-a-time writer
 * was taken off the child by [[VectorWriteRule]] (`openFiles`): it keeps a native file open per
 * partition and bucket instead, through Spark's concurrent-writer task write, with up to
 * `maxOpenFiles` open files, after which it sorts the rest of the task's rows by partition and
 * bucket as Spark does. Under `spark.sql.maxConcurrentOutputFileWriters > 0` Spark's own
 * concurrent writers and limit hold.
 *
 * A table format's write (Delta's) runs it under its own job with its `fileFormat`
 * ([[DelegatingVectorFormat]]) and its task write (`tableTask`).
 *
 * `child` is the input (Spark 4.x), or on Spark 3.5 Spark's `WriteFilesExec` over it
 * ([[WriteFilesNode]]); the write reads `input`.
 */
case class VectorWriteFilesExec(
    child: SparkPlan,
    fileFormat: FileFormat,
    partitionColumns: Seq[Attribute],
    bucketSpec: Option[BucketSpec],
    options: Map[String, String],
    staticPartitions: TablePartitionSpec,
    columnarInput: Boolean = false,
    openFiles: Boolean = false,
    maxOpenFiles: Int = VecRuntimeConf.DefaultMaxOpenFiles,
    writerVersion: Option[String] = None,
    tableTask: Option[TableTaskSetup] = None) extends WriteFilesNode {

  /** What the native writer did ([[TaskWriteStats]]); Spark's write metrics stay on the command. */
  override lazy val metrics: Map[String, SQLMetric] = TaskWriteStats.createMetrics(sparkContext)

  override protected def doExecuteWrite(spec: WriteFilesSpec): RDD[WriterCommitMessage] = {
    val dynamic = partitionColumns.nonEmpty || bucketSpec.isDefined
    // A table format's format chose its writer when the job was set up (DelegatingVectorFormat):
    // the native one, or its own, which reads Spark's rows.
    val native = spec.description.outputWriterFactory.isInstanceOf[VectorParquetOutputWriterFactory] ||
      !fileFormat.isInstanceOf[DelegatingVectorFormat]
    // A partitioned or bucketed write's files read their data columns out of whole input rows.
    // (Spark's description pairs each data column with one input column; else Spark's copy.)
    val wide = if (!native || !SparkWriteShim.takesWholeRows(spec.description)) None else {
      val all = spec.description.allColumns
      val positions =
        spec.description.dataColumns.map(c => all.indexWhere(_.exprId == c.exprId)).toArray
      if (positions.contains(-1) || positions.distinct.length != positions.length) None
      else Some(WideRows(StructType(all.map(a => StructField(a.name, a.dataType, a.nullable))),
        positions))
    }
    val factory = spec.description.outputWriterFactory match {
      case v: VectorParquetOutputWriterFactory => v.withRows(metrics, wide)
      case owners if !native => owners
      case spark => new VectorParquetOutputWriterFactory(spark, manyFiles = dynamic, metrics,
        writerVersion, wide, SparkShims.infersVariantShredding(options, session.sessionState.conf))
    }
    // A columnar child is consumed batch by batch: the writer copies each batch's columns in
    // bulk (see ColumnarInput); rows are produced only as views for Spark's task write.
    // Spark's order for its writer (partition columns, then bucket id), bound to the columns
    // the task's rows hold.
    val sort = {
      val d = spec.description
      val order = (d.partitionColumns ++ d.bucketSpec.map(_.bucketIdExpression))
        .map(e => SortOrder(BindReferences.bindReference(e, d.allColumns), Ascending))
      SortExec(order, global = false, input)
    }
    // Spark's own concurrent writers when its setting asks for them, else ours past a dropped
    // sort, sorting the rows past the open-file limit; a table format's own writer has its
    // input sorted as the sort dropped would.
    val spark = if (!dynamic) None else spec.concurrentOutputWriterSpecFunc(input)
    val concurrent = spark.orElse {
      if (!openFiles || !native) None
      else Some(ConcurrentOutputWriterSpec(maxOpenFiles, () => sort.createSorter()))
    }
    val rows = if (columnarInput) {
      input.executeColumnar().mapPartitions(batches => ColumnarInput.rows(batches))
    } else if (dynamic && openFiles && concurrent.isEmpty) {
      sort.execute()
    } else {
      input.execute()
    }
    // Rows split by file natively where the key columns can be read and the bucket id is one of
    // Spark's two expressions; else by Spark's projections, row by row.
    val splitting = if (wide.isEmpty || concurrent.isEmpty ||
      !VecRuntimeConf.nativeSplit(session.sessionState.conf)) None else {
      val d = spec.description
      RowSplitting.of(d.allColumns, d.partitionColumns, d.bucketSpec.map(_.bucketIdExpression))
        .fold(why => { logInfo(s"Rows split by Spark's projections: $why"); None },
          s => Some(s.copy(metrics = metrics)))
    }
    SparkWriteShim.executeWrite(session.sparkContext, rows, spec.description, spec.committer,
      factory, concurrent,
      wholeRows = wide.isDefined, splitting, tableTask)
  }

  override def simpleString(maxFields: Int): String = {
    val notes = Seq(
      if (columnarInput) Some("columnar input") else None,
      if (openFiles) Some(s"a file open per partition/bucket, up to $maxOpenFiles")
      else None).flatten
    if (notes.isEmpty) nodeName else s"$nodeName (${notes.mkString(", ")})"
  }

  override def nodeName: String = "VectorWriteFiles"

  override protected def stringArgs: Iterator[Any] = Iterator(child, columnarInput, openFiles)

  override protected def withNewChildInternal(newChild: SparkPlan): VectorWriteFilesExec =
    copy(child = newChild)
}
