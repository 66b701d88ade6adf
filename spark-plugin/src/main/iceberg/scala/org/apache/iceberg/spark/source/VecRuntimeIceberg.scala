package org.apache.iceberg.spark.source

import scala.collection.mutable
import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import io.vecruntime.spark.{ColumnarInputExec, FileTarget, LocalFiles, SparkParquetLayout, TableFormatPlanHook, VecRuntimeConf, VectorParquetOutputWriter, VectorWriteRule, WriteCensus}
import io.vecruntime.spark.shims.{CommitSummary, DelegatingWriteMetrics}
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.hadoop.mapreduce.{TaskAttemptID, TaskType}
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl
import org.apache.iceberg.{DataFile, DataFiles, FileFormat, IcebergBuild, MetricsConfig, PartitionKey, PartitionSpec, Schema, SortOrder, StructLike, Table}
import org.apache.iceberg.encryption.EncryptedOutputFile
import org.apache.iceberg.hadoop.HadoopFileIO
import org.apache.iceberg.io.{OutputFileFactory, WriteResult}
import org.apache.iceberg.parquet.{ParquetUtil, VecRuntimeFooters}
import org.apache.iceberg.types.{Comparators, Type}
import org.apache.iceberg.util.{StructLikeMap, StructLikeSet}

import org.apache.spark.broadcast.Broadcast
import org.apache.spark.internal.Logging
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.write.{BatchWrite, DataWriter, DataWriterFactory, DeltaBatchWrite, DeltaWrite, DeltaWriter, DeltaWriterFactory, PhysicalWriteInfo, RowLevelOperation, Write, WriterCommitMessage}
import org.apache.spark.sql.connector.write.streaming.StreamingWrite
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.datasources.v2.{AppendDataExec, OverwriteByExpressionExec, OverwritePartitionsDynamicExec, ReplaceDataExec, WriteDeltaExec, WriteToDataSourceV2Exec}
import org.apache.spark.sql.execution.streaming.sources.MicroBatchWrite
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StructType

/**
 * Apache Iceberg's Spark writes with their data files written natively. Iceberg plans a
 * DataSource V2 write (`AppendData`, `OverwriteByExpression`, `OverwritePartitionsDynamic`,
 * `ReplaceData` of copy-on-write row-level commands, and those that CTAS, RTAS and
 * `rewrite_data_files` run): the node's Iceberg `Write` is wrapped so that its tasks write
 * with the native writer, in the files Iceberg's own tasks would write (names, partitions,
 * rolling at the target size), and hand Iceberg the `DataFile`s with Iceberg's own metrics
 * computed from their footers; Iceberg's commit, its conflict checks and its abort stay as
 * they are. A write the native writer cannot make as Iceberg's does keeps Iceberg's writer,
 * its reason logged and counted.
 */
object VecRuntimeIceberg extends TableFormatPlanHook with Logging {
  override def unsupported: Option[String] = {
    val version = IcebergBuild.version()
    // This code reaches into Iceberg's package-private classes: only as part of the same
    // runtime package, both jars loaded by one class loader.
    val loaders = classOf[SparkWrite].getClassLoader eq getClass.getClassLoader
    if (!version.startsWith(IcebergRelease.Version)) {
      Some(s"Iceberg $version: this jar writes for Iceberg ${IcebergRelease.Version}x")
    } else if (!loaders) {
      Some("Iceberg's runtime and this jar are loaded by different class loaders: put both " +
        "on the same class path (both with --jars, or both in Spark's jars)")
    } else None
  }

  /**
   * A merge-on-read DELETE writes only position deletes (or deletion vectors): Iceberg's
   * writer's, as are those of merge-on-read UPDATE and MERGE, whose data files are native.
   */
  val PositionDeletes = "position deletes only (a merge-on-read DELETE: Iceberg's delete writer)"

  override def rewrite(plan: SparkPlan, conf: SQLConf): SparkPlan = plan.transformUp {
    case n @ (_: AppendDataExec | _: OverwriteByExpressionExec | _: OverwritePartitionsDynamicExec |
        _: ReplaceDataExec) =>
      columnarInput(replacing(n) { case w: SparkWrite =>
        new NativeIcebergWrite(w, reason(w, conf), settings(conf), readsBatches(w))
      }, conf)
    case n: WriteDeltaExec =>
      replacing(n) { case w: SparkPositionDeltaWrite => new NativeDeltaWrite(w, reason(w, conf), settings(conf)) }
    // The streaming sink's micro-batches.
    case n: WriteToDataSourceV2Exec =>
      replacing(n) { case m: MicroBatchWrite if outer(m.writeSupport).isDefined =>
        new NativeMicroBatchWrite(m, reason(outer(m.writeSupport).get, conf), settings(conf))
      }
  }

  /**
   * A native write whose task writes one file at a time (an unpartitioned output spec, or
   * clustered partitions) over a columnar query reads the query's batches: the native writer
   * copies their columns in bulk instead of taking Spark's rows one by one. Not with a fixed
   * column: its width is checked on rows.
   */
  private def columnarInput(n: SparkPlan, conf: SQLConf): SparkPlan = {
    val readsBatches = n.productIterator.exists {
      case w: NativeIcebergWrite => w.reason.isEmpty && w.readsBatches
      case _ => false
    }
    if (!readsBatches) n
    else VectorWriteRule.columnarChild(n.children.head, conf)
      .fold(n)(batches => n.withNewChildren(Seq(ColumnarInputExec(batches))))
  }

  private def readsBatches(w: SparkWrite): Boolean =
    try {
      val fixed = field[Schema](w, "writeSchema").columns.asScala.exists(_.`type`.typeId == Type.TypeID.FIXED)
      !fixed && (!field[Boolean](w, "useFanoutWriter") ||
        field[Table](w, "table").specs.get(field[Int](w, "outputSpecId")).isUnpartitioned)
    } catch { case _: ReflectiveOperationException => false }

  /**
   * The node with the argument `f` takes replaced by what it gives (the nodes' fields differ
   * between Spark lines: ReplaceData has no projections on 3.5).
   */
  private def replacing(n: SparkPlan)(f: PartialFunction[Any, AnyRef]): SparkPlan = {
    val args = n.productIterator.toArray
    if (!args.exists(f.isDefinedAt)) n
    else n.makeCopy(args.map(a => if (f.isDefinedAt(a)) f(a) else a.asInstanceOf[AnyRef]))
  }

  private def field[T](w: SparkWrite, name: String): T = privateField[T](classOf[SparkWrite], w, name)

  /** Field `name` that class `owner` declares, of `obj`: Iceberg's and Spark's private state. */
  def privateField[T](owner: Class[_], obj: AnyRef, name: String): T = {
    val f = owner.getDeclaredField(name)
    f.setAccessible(true)
    f.get(obj).asInstanceOf[T]
  }

  /**
   * The SparkWrite an Iceberg streaming write belongs to: its private inner classes
   * (`BaseStreamingWrite` and those extending it) hold it.
   */
  private def outer(s: AnyRef): Option[SparkWrite] =
    Iterator.iterate[Class[_]](s.getClass)(_.getSuperclass).takeWhile(_ != null)
      .find(_.getName == classOf[SparkWrite].getName + "$BaseStreamingWrite")
      .map(c => privateField[SparkWrite](c, s, "this$0"))

  /** vecruntime's settings the tasks read, taken from the session when the write is planned. */
  private def settings(conf: SQLConf): Map[String, String] =
    Seq(VecRuntimeConf.BATCH_ROWS, VecRuntimeConf.BATCH_BYTES, VecRuntimeConf.TASK_BUFFER_BYTES)
      .flatMap(k => Option(conf.getConfString(k, null)).map(k -> _)).toMap

  private def reason(w: AnyRef, conf: SQLConf): Option[String] = {
    val reason = try fallbackReason(w) catch {
      case e: ReflectiveOperationException => Some(s"Iceberg's ${w.getClass.getSimpleName} is not this jar's release's ($e)")
    }
    reason.foreach(r => logWarning(s"vecruntime: Iceberg's writer writes this: $r"))
    if (reason.isEmpty) VecRuntimeConf.validate(conf)
    reason
  }

  private def fallbackReason(w: AnyRef): Option[String] = w match {
    case w: SparkWrite =>
      fallbackReason(field[Table](w, "table"), field[FileFormat](w, "format"), field[Schema](w, "writeSchema"),
        field[StructType](w, "dsSchema"), field[java.util.Map[String, String]](w, "writeProperties"))
    case w: SparkPositionDeltaWrite =>
      val own = new NativeWriterFactory.Fields(w)
      val of = new NativeWriterFactory.Fields(own[AnyRef]("context"))
      if (own[RowLevelOperation.Command]("command") == RowLevelOperation.Command.DELETE) Some(PositionDeletes)
      else fallbackReason(own[Table]("table"), of[FileFormat]("dataFileFormat"), of[Schema]("dataSchema"),
        of[StructType]("dataSparkType"), own[java.util.Map[String, String]]("writeProperties"))
  }

  private def fallbackReason(table: Table, format: FileFormat, writeSchema: Schema, dsSchema: StructType,
      writeProperties: java.util.Map[String, String]): Option[String] = {
    val props = table.properties.asScala.toMap ++ writeProperties.asScala
    if (format != FileFormat.PARQUET) {
      Some(s"file format $format")
    } else if (props.contains("encryption.key-id")) {
      Some("an encrypted table (encryption.key-id)")
    } else if (writeSchema.findField("_row_id") != null) {
      Some("row lineage columns (a row-level command on a format v3 table)")
    } else {
      IcebergLayout.unsupported(writeSchema, dsSchema, props)
    }
  }
}

/**
 * Iceberg's `Write` with its batch write's tasks writing natively (`reason` None), or as it is
 * (a fallback, `reason` saying why). Everything else is Iceberg's.
 */
final class NativeIcebergWrite(
    val iceberg: SparkWrite,
    val reason: Option[String],
    settings: Map[String, String],
    val readsBatches: Boolean)
  extends DelegatingWriteMetrics {
  override protected def delegate: Write = iceberg
  override def description(): String = iceberg.description()
  override def toBatch: BatchWrite = new NativeBatchWrite(iceberg.toBatch, reason, settings)
  override def toStreaming: StreamingWrite = iceberg.toStreaming
  override def toString: String =
    s"$iceberg, vecruntime: ${reason.fold("native")(r => s"Iceberg's writer: $r")}"
}

/**
 * Iceberg's merge-on-read write (`WriteDelta`): the data files of its UPDATE and MERGE written
 * natively (`reason` None), its position deletes (or deletion vectors) by Iceberg's own delete
 * writer in the same task; a DELETE, which writes only deletes, or a fallback (`reason`) as it is.
 */
final class NativeDeltaWrite(iceberg: SparkPositionDeltaWrite, reason: Option[String],
    settings: Map[String, String]) extends DeltaWrite with DelegatingWriteMetrics {
  override protected def delegate: Write = iceberg
  override def description(): String = iceberg.description()
  override def toBatch: DeltaBatchWrite = {
    val batch = iceberg.toBatch
    new DeltaBatchWrite with CommitSummary {
      override protected def delegate: BatchWrite = batch
      override def createBatchWriterFactory(info: PhysicalWriteInfo): DeltaWriterFactory =
        NativeDeltaWriterFactory.choose(batch.createBatchWriterFactory(info), reason, settings)
    }
  }
  override def toString: String =
    s"$iceberg, vecruntime: ${reason.fold("native data files")(r => s"Iceberg's writer: $r")}"
}

/**
 * A micro-batch of Iceberg's streaming sink (Spark's `MicroBatchWrite` of Iceberg's streaming
 * write): its tasks write natively, the epoch's commit is Iceberg's.
 */
final class NativeMicroBatchWrite(micro: MicroBatchWrite, reason: Option[String],
    settings: Map[String, String]) extends CommitSummary {
  override protected def delegate: BatchWrite = micro
  private val epochId =
    VecRuntimeIceberg.privateField[java.lang.Long](classOf[MicroBatchWrite], micro, "epochId").longValue
  override def createBatchWriterFactory(info: PhysicalWriteInfo): DataWriterFactory =
    if (reason.isDefined) {
      WriteCensus.tableFormatWrite("Iceberg", reason)
      micro.createBatchWriterFactory(info)
    } else {
      NativeWriterFactory.choose(micro.writeSupport.createStreamingWriterFactory(info), None,
        settings, epochId) match {
        case n: NativeWriterFactory => n
        // Iceberg's own streaming factory, as Spark's micro-batch write hands it its epoch.
        case _ => micro.createBatchWriterFactory(info)
      }
    }
  override def toString: String =
    s"$micro, vecruntime: ${reason.fold("native")(r => s"Iceberg's writer: $r")}"
}

final class NativeBatchWrite(iceberg: BatchWrite, reason: Option[String], settings: Map[String, String])
  extends CommitSummary {
  override protected def delegate: BatchWrite = iceberg
  override def createBatchWriterFactory(info: PhysicalWriteInfo): DataWriterFactory =
    NativeWriterFactory.choose(iceberg.createBatchWriterFactory(info), reason, settings, epochId = 0)
}

/**
 * The tasks' writers, from what Iceberg's `WriterFactory` holds (read on the driver): the table,
 * the query (a stream's micro-batch `epochId` too, naming the files as Iceberg's do), the output
 * spec, the schemas, the target file size, fanout or clustered partitions, the write's
 * properties and sort order.
 */
final class NativeWriterFactory private (
    table: Broadcast[Table],
    task: TaskWrite,
    sortOrderId: Option[Int])
  extends DataWriterFactory {

  override def createWriter(partitionId: Int, taskId: Long): DataWriter[InternalRow] = {
    val t = table.value
    new NativeDataWriter(t, partitionId, taskId, task, sortOrderId.map(id => t.sortOrders.get(id)).orNull)
  }
}

/**
 * What a write's tasks write by: Iceberg's operation id (the files' names), output spec, target
 * file size, write and input schemas, fanout or clustered partitions, the write's properties,
 * and vecruntime's settings.
 */
final case class TaskWrite(
    operationId: String,
    specId: Int,
    targetFileSize: Long,
    writeSchema: Schema,
    dsSchema: StructType,
    fanout: Boolean,
    writeProperties: Map[String, String],
    settings: Map[String, String])

object NativeWriterFactory extends Logging {
  /**
   * The native factory in place of Iceberg's `iceberg`, or Iceberg's where `reason` says why or
   * its fields are not this release's (logged); the write counted by who writes it.
   */
  def choose(iceberg: AnyRef, reason: Option[String], settings: Map[String, String],
      epochId: Long): DataWriterFactory =
    fromFields(iceberg, reason) { field =>
      new NativeWriterFactory(field[Broadcast[Table]]("tableBroadcast"),
        TaskWrite(field[String]("queryId") + "-" + epochId, field[Int]("outputSpecId"),
          field[Long]("targetFileSize"), field[Schema]("writeSchema"),
          field[StructType]("dsSchema"), field[Boolean]("useFanoutWriter"),
          field[java.util.Map[String, String]]("writeProperties").asScala.toMap, settings),
        IcebergRelease.sortOrderId(field[Any](_)))
    }.getOrElse(iceberg.asInstanceOf[DataWriterFactory])

  /** Iceberg's private state of `obj`, field by field. */
  final class Fields(obj: AnyRef) {
    def apply[T](name: String): T = VecRuntimeIceberg.privateField[T](obj.getClass, obj, name)
  }

  /**
   * What `build` makes of Iceberg's factory `iceberg`, unless `reason` says why not or its
   * fields are not this release's (logged); the write counted by who writes it.
   */
  def fromFields[F](iceberg: AnyRef, reason: Option[String])(build: Fields => F): Option[F] = {
    val native = reason.toLeft(()).flatMap { _ =>
      try Right(build(new Fields(iceberg)))
      catch {
        case e: ReflectiveOperationException =>
          val why = s"Iceberg's ${iceberg.getClass.getSimpleName} is not this jar's release's ($e)"
          logWarning(s"vecruntime: Iceberg's writer writes this: $why")
          Left(why)
      }
    }
    WriteCensus.tableFormatWrite("Iceberg", native.left.toOption)
    native.toOption
  }
}

/**
 * The tasks' writers of a merge-on-read write: Iceberg's own `DeltaWriter` for the position
 * deletes, the native writer for the data files, with what Iceberg's factory and its `Context`
 * hold (read on the driver): the query id naming the files, the data schemas, the target file
 * size, fanout or clustered partitions, the write's properties and sort order.
 */
final class NativeDeltaWriterFactory private (
    iceberg: DeltaWriterFactory,
    table: Broadcast[Table],
    task: TaskWrite,
    sortOrderId: Option[Int])
  extends DeltaWriterFactory {

  override def createWriter(partitionId: Int, taskId: Long): DeltaWriter[InternalRow] = {
    val t = table.value
    val data = new NativeDataWriter(t, partitionId, taskId, task, sortOrderId.map(id => t.sortOrders.get(id)).orNull)
    try new NativeDeltaWriter(iceberg.createWriter(partitionId, taskId), data)
    catch { case NonFatal(e) => data.close(); throw e }
  }
}

object NativeDeltaWriterFactory {
  /** The native factory in place of Iceberg's `iceberg` (see [[NativeWriterFactory.choose]]). */
  def choose(iceberg: DeltaWriterFactory, reason: Option[String], settings: Map[String, String]): DeltaWriterFactory =
    NativeWriterFactory.fromFields(iceberg, reason) { field =>
      val context = new NativeWriterFactory.Fields(field[AnyRef]("context"))
      val table = field[Broadcast[Table]]("tableBroadcast")
      new NativeDeltaWriterFactory(iceberg, table,
        TaskWrite(context[String]("queryId"), table.value.spec.specId, context[Long]("targetDataFileSize"),
          context[Schema]("dataSchema"), context[StructType]("dataSparkType"), context[Boolean]("useFanoutWriter"),
          field[java.util.Map[String, String]]("writeProperties").asScala.toMap, settings),
        IcebergRelease.sortOrderId(field[Any](_)))
    }.getOrElse(iceberg)
}

/**
 * One merge-on-read task: deletes to Iceberg's writer (`iceberg`), inserted rows (those of an
 * UPDATE, which Spark splits into a delete and an insert, too) to the native `data`; one
 * `DeltaTaskCommit` with both writers' files.
 */
final class NativeDeltaWriter(iceberg: DeltaWriter[InternalRow], data: NativeDataWriter)
  extends DeltaWriter[InternalRow] {
  override def delete(metadata: InternalRow, id: InternalRow): Unit = iceberg.delete(metadata, id)
  override def update(metadata: InternalRow, id: InternalRow, row: InternalRow): Unit =
    iceberg.update(metadata, id, row)
  override def insert(row: InternalRow): Unit = data.write(row)

  override def commit(): WriterCommitMessage = {
    val dataFiles = data.dataFiles()
    val deletes = iceberg.commit().asInstanceOf[SparkPositionDeltaWrite.DeltaTaskCommit]
    new SparkPositionDeltaWrite.DeltaTaskCommit(WriteResult.builder()
      .addDataFiles(dataFiles: _*)
      .addDataFiles(deletes.dataFiles(): _*)
      .addDeleteFiles(deletes.deleteFiles(): _*)
      .addReferencedDataFiles(deletes.referencedDataFiles(): _*)
      .addRewrittenDeleteFiles(deletes.rewrittenDeleteFiles(): _*)
      .build())
  }

  override def abort(): Unit = {
    try data.abort() finally iceberg.abort()
  }

  override def close(): Unit = {
    try data.close() finally iceberg.close()
  }
}

/**
 * One task's data files, as Iceberg's `UnpartitionedDataWriter` / `PartitionedDataWriter`
 * write them: a file per partition (`PartitionKey` of the row, as Iceberg's), all open at once
 * with fanout, else one at a time with Iceberg's error when a closed partition comes back; a
 * new file when one reaches the target size (checked every 1000 rows, as Iceberg's rolling
 * writer); the `DataFile`s in Iceberg's `TaskCommit`. On abort every file the task created is
 * deleted, as Iceberg's writer does.
 */
final class NativeDataWriter(
    table: Table,
    partitionId: Int,
    taskId: Long,
    task: TaskWrite,
    sortOrder: SortOrder)
  extends DataWriter[InternalRow] with Logging {
  import task._

  private val spec: PartitionSpec = table.specs.get(specId)
  private val io = table.io
  private val files = OutputFileFactory.builderFor(table, partitionId, taskId)
    .format(FileFormat.PARQUET).operationId(operationId).build()
  private val layout: SparkParquetLayout =
    IcebergLayout(writeSchema, dsSchema, table.properties.asScala.toMap ++ writeProperties)
  private val metricsConfig = MetricsConfig.forTable(table)
  private val uuids = UuidBytes.projection(writeSchema, dsSchema)
  private val context = {
    val conf = new Configuration(false)
    settings.foreach { case (k, v) => conf.set(k, v) }
    new TaskAttemptContextImpl(conf, new TaskAttemptID("", 0, TaskType.MAP, partitionId, 0))
  }
  private val partitioned = spec.isPartitioned
  private val manyFiles = partitioned && fanout
  private val key = if (partitioned) new PartitionKey(spec, writeSchema) else null
  private val wrapper = if (partitioned) new InternalRowWrapper(dsSchema, writeSchema.asStruct) else null
  private val open: java.util.Map[StructLike, OpenFile] =
    if (partitioned) StructLikeMap.create[OpenFile](spec.partitionType) else new java.util.HashMap()
  private val closed = if (partitioned) StructLikeSet.create(spec.partitionType) else null
  private var current: OpenFile = _
  private val done = mutable.ArrayBuffer[DataFile]()
  /** Every file created, finished or not: deleted on abort. */
  private val created = mutable.ArrayBuffer[String]()

  /** One data file being written. */
  private final class OpenFile(val partition: StructLike) {
    private val file: EncryptedOutputFile =
      if (partitioned) files.newOutputFile(spec, partition) else files.newOutputFile()
    val location: String = file.encryptingOutputFile.location
    private val floats = new FloatMetrics(writeSchema)
    private var finishing = false
    private var tail: VecRuntimeFooters.Tail = _
    val writer = new VectorParquetOutputWriter(location, layout.sparkSchema, context, manyFiles,
      target = Some(FileTarget(layout, () => {
        tail = new VecRuntimeFooters.Tail(stream(file), () => finishing)
        tail
      })))

    def write(row: InternalRow): Unit = {
      writer.write(if (uuids.isEmpty) row else uuids.get(row))
      if (!floats.isEmpty) floats.update(row)
    }

    def full: Boolean =
      writer.rowCount % 1000 == 0 && writer.mayReach(targetFileSize) && writer.length >= targetFileSize

    /** Finishes the file: Iceberg's `DataFile` for it, metrics from its footer. */
    def finish(): DataFile = {
      finishing = true
      writer.close()
      val footer = VecRuntimeFooters.read(tail, io.newInputFile(location))
      DataFiles.builder(spec)
        .withFormat(FileFormat.PARQUET)
        .withPath(location)
        .withPartition(if (partitioned) partition else null)
        .withFileSizeInBytes(writer.length)
        .withMetrics(VecRuntimeFooters.metrics(writeSchema, footer, metricsConfig, floats.metrics))
        .withSplitOffsets(ParquetUtil.getSplitOffsets(footer))
        .withSortOrder(sortOrder)
        .build()
    }
  }

  /** The file's stream: Hadoop's directly with the native writer's buffer where it can be. */
  private def stream(file: EncryptedOutputFile): java.io.OutputStream = {
    val location = file.encryptingOutputFile.location
    created += location
    io match {
      case h: HadoopFileIO =>
        val path = new Path(location)
        // A file among many open ones keeps a small buffer (VectorParquetOutputWriter's).
        LocalFiles.create(path.getFileSystem(h.conf), path,
          if (manyFiles) VectorParquetOutputWriter.ManyFilesStreamBuffer
          else VectorParquetOutputWriter.MinStreamBuffer)
      case _ => file.encryptingOutputFile.createOrOverwrite()
    }
  }

  private def fileFor(row: InternalRow): OpenFile = {
    if (!partitioned) {
      if (current == null) current = new OpenFile(null)
      return current
    }
    key.partition(wrapper.wrap(row))
    val f = open.get(key)
    if (f != null) return f
    val partition = key.copy()
    if (!fanout) {
      // Iceberg's ClusteredWriter: rows arrive clustered by partition, one file open at a time;
      // the partition before this one is done (its file finished here or rolled before).
      if (closed.contains(key)) {
        throw new IllegalStateException("Incoming records violate the writer assumption that " +
          "records are clustered by spec and by partition within each spec. Either cluster the " +
          s"incoming records or switch to fanout writers.\nEncountered records that belong to " +
          s"already closed files:\npartition '${spec.partitionToPath(key)}' in spec $spec")
      }
      finishAll()
      if (clustered != null && partitionOrder.compare(clustered, partition) != 0) closed.add(clustered)
      clustered = partition
    }
    val created = new OpenFile(partition)
    open.put(partition, created)
    created
  }

  /** The clustered writer's current partition (its file may have rolled). */
  private var clustered: StructLike = _
  private lazy val partitionOrder = Comparators.forType(spec.partitionType)

  override def write(row: InternalRow): Unit = {
    val f = fileFor(row)
    f.write(row)
    if (f.full) {
      done += f.finish()
      if (partitioned) open.remove(f.partition) else current = null
    }
  }

  /** Finishes the open files one by one: those not reached stay open for abort and close. */
  private def finishAll(): Unit = {
    if (current != null) {
      val c = current
      current = null
      done += c.finish()
    }
    while (!open.isEmpty) {
      val o = open.values.iterator.next()
      open.remove(o.partition)
      done += o.finish()
    }
  }

  /** Finishes the open files: the task's data files. */
  def dataFiles(): Array[DataFile] = {
    finishAll()
    done.toArray
  }

  override def commit(): WriterCommitMessage = {
    val message = new SparkWrite.TaskCommit(dataFiles())
    message.reportOutputMetrics()
    message
  }

  override def abort(): Unit = {
    val unfinished = Option(current).toList ++ open.values.asScala.toList
    current = null
    open.clear()
    unfinished.foreach(_.writer.abortQuietly())
    created.foreach { location =>
      try io.deleteFile(location)
      catch { case NonFatal(e) => logWarning(s"deleting $location", e) }
    }
  }

  override def close(): Unit = {
    // After commit nothing is open; after a failure abort released what was.
    val unfinished = Option(current).toList ++ open.values.asScala.toList
    current = null
    open.clear()
    unfinished.foreach(_.writer.abortQuietly())
  }
}
