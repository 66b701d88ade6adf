package io.vecruntime.spark

import java.util.Locale

import scala.jdk.CollectionConverters._
import scala.util.Try

import org.apache.hadoop.conf.Configuration

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.catalog.CatalogStorageFormat
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.trees.TreeNodeTag
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet, Expression}
import org.apache.spark.sql.execution.{CoalesceExec, ColumnarToRowExec, ProjectExec, SortExec, SparkPlan, WholeStageCodegenExec}
import org.apache.spark.sql.execution.adaptive.QueryStageExec
import org.apache.spark.sql.execution.columnar.InMemoryTableScanExec
import org.apache.spark.sql.execution.columnar.vecruntime.CachedColumnsExec
import org.apache.spark.sql.execution.command.DataWritingCommandExec
import org.apache.spark.sql.execution.datasources.{FileFormat, InsertIntoHadoopFsRelationCommand, V1WritesUtils, WriteFilesExec}
import org.apache.spark.sql.execution.datasources.parquet.{ParquetFileFormat, ParquetOptions}
import org.apache.spark.sql.internal.{LegacyBehaviorPolicy, SQLConf}
import org.apache.spark.sql.types._

import io.vecruntime.spark.shims.{ParquetJavaShims, SparkShims, WriteFilesNode}

/**
 * Replaces `WriteFilesExec` by [[VectorWriteFilesExec]] for the Parquet writes vecruntime takes;
 * any other write keeps Spark's node under [[VecRuntimeFallbackWriteFilesExec]], which shows
 * the reason in EXPLAIN (and it is logged). A Parquet write planned without `WriteFiles` gets
 * [[VectorParquetFileFormat]] in its command.
 */
case class VectorWriteRule(session: SparkSession) extends Rule[SparkPlan] with Logging {
  import VectorWriteRule._

  override def apply(sparkPlan: SparkPlan): SparkPlan = {
    val conf = session.sessionState.conf
    if (!VecRuntimeConf.enabled(conf)) {
      // Marked as planned with the plugin off, for WriteCensus: a listener runs later, when the
      // setting may have changed.
      sparkPlan.foreach {
        case p @ (_: WriteFilesExec | _: DataWritingCommandExec) => p.setTagValue(PluginOff, true)
        case _ =>
      }
      return sparkPlan
    }
    // A table format's commands (Delta's) started on this thread write natively; Iceberg's
    // write nodes are given the native writer (both only where the format is on the class path).
    DeltaWrites.observeThisThread()
    val plan = IcebergWrites.rewrite(sparkPlan, conf)
    val done = plan.exists {
      case _: VectorWriteFilesExec | _: VecRuntimeFallbackWriteFilesExec => true
      case _ => false
    }
    if (done) return plan
    plan.transformUp {
      case w: WriteFilesExec =>
        val reason = fallbackReason(w, conf)
        if (reason.isEmpty) VecRuntimeConf.validate(conf)
        reason match {
          case None if w.partitionColumns.nonEmpty || w.bucketSpec.isDefined =>
            // A file open per partition and bucket instead of Spark's sort for its writer;
            // a file with Variant columns buffers its first rows as Spark's writer's does
            // (VariantFile), so those are written one at a time after Spark's sort.
            val variant = w.child.output.exists(a => SparkParquetLayout.holds(a.dataType)(SparkShims.isVariant))
            val (input, openFiles) = writerOnlySort(w) match {
              case Some(sortInput) if !variant => (sortInput, true)
              case _ => (w.child, false)
            }
            VectorWriteFilesExec(WriteFilesNode.childFor(w, input), w.fileFormat,
              w.partitionColumns, w.bucketSpec, w.options, w.staticPartitions,
              columnarInput = false, openFiles,
              VecRuntimeConf.maxOpenFiles(conf), writerVersion(w))
          case None =>
            val (input, columnar) = columnarChild(w.child, conf).fold((w.child, false))((_, true))
            VectorWriteFilesExec(WriteFilesNode.childFor(w, input), w.fileFormat,
              w.partitionColumns, w.bucketSpec, w.options, w.staticPartitions, columnar,
              writerVersion = writerVersion(w))
          case Some(reason) =>
            // The warning comes when the write runs (VecRuntimeFallbackWriteFilesExec).
            logDebug(s"vecruntime: Spark's writer writes this: $reason")
            VecRuntimeFallbackWriteFilesExec(w, reason)
        }
      case d: DataWritingCommandExec => withoutWriteFiles(d, conf)
    }
  }

  private def hadoopConf(w: WriteFilesExec) = session.sessionState.newHadoopConfWithOptions(w.options)

  /** The `parquet.writer.version` the write asks for ([[VectorWriteRule.writerVersion]]). */
  def writerVersion(w: WriteFilesExec): Option[String] = VectorWriteRule.writerVersion(hadoopConf(w))

  /** Why vecruntime cannot take this write, or None. */
  def fallbackReason(w: WriteFilesExec, conf: SQLConf): Option[String] =
    VectorWriteRule.fallbackReason(w.fileFormat, w.child.output.map(a =>
      StructField(a.name, a.dataType, a.nullable)), w.options, hadoopConf(w), conf)

  /**
   * A Parquet write Spark runs without a `WriteFiles` node
   * (`spark.sql.optimizer.plannedWrite.enabled=false`): `FileFormatWriter` asks the command's
   * own format for its OutputWriterFactory, so the command gets [[VectorParquetFileFormat]],
   * which shows in EXPLAIN whether the native writer takes it and if not, why.
   */
  private def withoutWriteFiles(d: DataWritingCommandExec, conf: SQLConf): SparkPlan = d.cmd match {
    case cmd: InsertIntoHadoopFsRelationCommand
        if cmd.fileFormat.getClass == classOf[ParquetFileFormat] &&
          !d.child.exists(p => p.isInstanceOf[WriteFilesExec] || p.isInstanceOf[WriteFilesNode]) =>
      val fields = cmd.query.output.map(a => StructField(a.name, a.dataType, a.nullable))
      val reason = VectorWriteRule.fallbackReason(cmd.fileFormat, fields, cmd.options,
        session.sessionState.newHadoopConfWithOptions(cmd.options), conf)
      if (reason.isEmpty) VecRuntimeConf.validate(conf)
      else logDebug(s"vecruntime: Spark's writer writes this: ${reason.get}")
      val manyFiles = cmd.partitionColumns.nonEmpty || cmd.bucketSpec.isDefined
      d.copy(cmd = cmd.copy(fileFormat = new VectorParquetFileFormat(manyFiles, reason)))
    case _ if hiveParquetDirectory(d) =>
      // No WriteFiles node and no format of Spark's to give the command: logged only.
      logWarning(s"vecruntime: Spark's writer writes this: $HiveSerde")
      d
    case _ => d
  }
}

object VectorWriteRule {
  /**
   * The columnar plan whose batches the native writer reads in place of `plan`'s rows: a
   * `ColumnarToRowExec`'s child, a projection over one ([[ColumnarProjectExec]]) or a cached
   * table Spark reads as rows only ([[CachedColumnsExec]]), through a coalesce into fewer
   * partitions, unless the setting
   * is off or a column is converted from rows only: nested columns, geospatial ones (WKB
   * re-encoded), writeLegacyFormat's decimals and LEGACY-rebased datetimes (EXCEPTION checks
   * batches too: ColumnarCopy).
   */
  def columnarChild(plan: SparkPlan, conf: SQLConf): Option[SparkPlan] = {
    val rowsOnly = plan.output.exists(a => SparkParquetLayout.nested(a.dataType) ||
        SparkParquetLayout.holds(a.dataType)(SparkShims.isGeospatial)) ||
      conf.getConf(SQLConf.PARQUET_WRITE_LEGACY_FORMAT) ||
      (SparkRebase.ofSession(conf).legacy && plan.output.exists(a =>
        SparkParquetLayout.holds(a.dataType)(t => t == DateType || t == TimestampType)))
    def cached(p: SparkPlan): Option[SparkPlan] = p match {
      case scan: InMemoryTableScanExec if CachedColumnsExec.decodable(scan) => Some(CachedColumnsExec(scan))
      case _ => None
    }
    // (A prepared plan, a table format's, has its ColumnarToRowExec in a code-generated stage.)
    def batches(p: SparkPlan): Option[SparkPlan] = p match {
      case ColumnarToRowExec(c) => Some(c)
      case WholeStageCodegenExec(ColumnarToRowExec(c)) => Some(c)
      // A projection over a scan's batches (computed columns): evaluated into batches.
      case ProjectExec(list, ColumnarToRowExec(c)) if ColumnarProjectExec.supports(list, c.output) =>
        Some(ColumnarProjectExec(list, c))
      case WholeStageCodegenExec(ProjectExec(list, ColumnarToRowExec(c)))
          if ColumnarProjectExec.supports(list, c.output) =>
        Some(ColumnarProjectExec(list, c))
      // Under adaptive execution (a V1 write's plan) the cache's scan is a query stage's.
      case stage: QueryStageExec => cached(stage.plan)
      case other => cached(other)
    }
    if (!VecRuntimeConf.columnarInput(conf) || rowsOnly) None
    else plan match {
      case CoalesceExec(n, child) => batches(child).map(ColumnarCoalesceExec(n, _))
      case other => batches(other)
    }
  }

  /** On a write node planned while the plugin was switched off. */
  val PluginOff: TreeNodeTag[Boolean] = TreeNodeTag[Boolean]("vecruntime.pluginOff")

  /** parquet-java's `BlockSplitBloomFilter.LOWER_BOUND_BYTES`. */
  private val BloomFilterMinBytes = 32

  val HiveSerde = "a Hive serde write (not converted to Spark's Parquet format: " +
    "spark.sql.hive.convertMetastoreParquet or convertMetastoreInsertDir off), Hive's " +
    "ParquetHiveSerDe and its type mapping"

  /**
   * Spark's Hive format writing through Hive's Parquet output format: a Hive table Spark does
   * not convert. Read by reflection (`HiveFileFormat(fileSinkConf)`, Hive's `FileSinkDesc` and
   * `TableDesc`): the plugin does not depend on spark-hive.
   */
  def hiveParquet(fileFormat: FileFormat): Boolean =
    fileFormat.getClass.getSimpleName == "HiveFileFormat" && Try {
      // Its FileSinkDesc: a case class field in Spark 4.1+, a plain private field in 4.0.
      val field = fileFormat.getClass.getDeclaredField("fileSinkConf")
      field.setAccessible(true)
      val desc = field.get(fileFormat)
      val table = desc.getClass.getMethod("getTableInfo").invoke(desc)
      table.getClass.getMethod("getOutputFileFormatClassName").invoke(table)
    }.toOption.exists(name => String.valueOf(name).contains("Parquet"))

  /** A Parquet write: Spark's format, or Hive's writing Parquet. */
  def writesParquet(fileFormat: FileFormat): Boolean =
    fileFormat.isInstanceOf[ParquetFileFormat] || hiveParquet(fileFormat)

  /** `INSERT OVERWRITE DIRECTORY ... STORED AS PARQUET` left to Hive (its storage's serde). */
  def hiveParquetDirectory(d: DataWritingCommandExec): Boolean =
    d.cmd.nodeName == "InsertIntoHiveDirCommand" && d.cmd.productIterator.exists {
      case s: CatalogStorageFormat =>
        (s.serde ++ s.outputFormat).exists(_.toLowerCase(Locale.ROOT).contains("parquet"))
      case _ => false
    }

  /**
   * The `parquet.writer.version` a write asks for (a write option or a Hadoop setting), read
   * from its job's configuration before Spark's `prepareWrite` sets v1 there when none is named.
   */
  def writerVersion(hadoopConf: Configuration): Option[String] =
    Option(hadoopConf.get("parquet.writer.version"))

  /**
   * Why vecruntime cannot take a write of `fields` (all the columns the write is given,
   * partition columns too) with these write options and job configuration, or None.
   */
  def fallbackReason(
      fileFormat: FileFormat,
      fields: Seq[StructField],
      options: Map[String, String],
      hadoopConf: Configuration,
      conf: SQLConf): Option[String] = {
    def anyField(p: DataType => Boolean) = fields.exists(f => SparkParquetLayout.holds(f.dataType)(p))
    val hasInt96 = anyField(_ == TimestampType) &&
      conf.parquetOutputTimestampType == SQLConf.ParquetOutputTimestampType.INT96
    val hasTimestamps = anyField(_ == TimestampType) && !hasInt96
    lazy val codec = new ParquetOptions(options, conf).compressionCodecClassName
    val version = writerVersion(hadoopConf)
    val encryption = hadoopConf.iterator().asScala.map(_.getKey).find(k =>
      k.startsWith("parquet.encryption.") || k == "parquet.crypto.factory.class")
    Seq(
      () => if (hiveParquet(fileFormat)) Some(HiveSerde) else None,
      () => if (!fileFormat.isInstanceOf[ParquetFileFormat]) {
        Some(s"not a Parquet write (${fileFormat.getClass.getSimpleName})")
      } else None,
      () => fields.flatMap(SparkParquetLayout.unsupported).headOption,
      () => version.filterNot(SparkParquetLayout.WriterVersions.contains).map(v =>
        s"parquet.writer.version=$v is not a version parquet-java knows"),
      () => {
        // LEGACY timestamps need Spark's table of the session time zone, or a zone of one
        // fixed offset; for other zones Spark takes its calendar path with their transitions.
        val rebase = SparkRebase.ofSession(conf)
        val legacy = LegacyBehaviorPolicy.LEGACY
        // A Variant's timestamps are shredded into micros columns, rebased by the datetime mode.
        val variants = anyField(SparkShims.isVariant)
        val needsTable = ((hasTimestamps || variants) && rebase.datetime == legacy) ||
          (hasInt96 && rebase.int96 == legacy)
        if (needsTable && !SparkRebase.rebasesNatively(rebase.timeZone)) {
          Some(s"LEGACY rebase in session time zone ${rebase.timeZone}, which has no rebase table in Spark")
        } else None
      },
      () => encryption.map(k => s"Parquet modular encryption ($k)"),
      () => {
        // parquet-java fails a bloom filter (one not adaptive) whose cap is below its 32-byte
        // minimum; Spark's writer then fails the write as its own, or writes the adaptive ones.
        val maxBytes = Option(hadoopConf.get("parquet.bloom.filter.max.bytes")).flatMap(v => Try(v.trim.toInt).toOption)
        val bloom = hadoopConf.iterator().asScala.exists(e =>
          e.getKey.startsWith("parquet.bloom.filter.enabled") && e.getValue.trim.equalsIgnoreCase("true"))
        maxBytes.filter(m => bloom && m < BloomFilterMinBytes).map(m =>
          s"parquet.bloom.filter.max.bytes=$m is below the $BloomFilterMinBytes bytes of parquet-java's smallest bloom filter")
      },
      () => if (SparkParquetLayout.Codecs.contains(codec)) None
        else Some(s"codec ${codec.toLowerCase(Locale.ROOT)} is not written natively"),
      () => {
        // Where a write's level does not reliably reach Spark's codec, its level is Spark's.
        val levelKey = codec match {
          case "GZIP" => Some("zlib.compress.level")
          case "ZSTD" => Some("parquet.compression.codec.zstd.level")
          case _ => None
        }
        levelKey.filter(k => !ParquetJavaShims.codecLevelPerWrite && hadoopConf.get(k) != null)
          .map(k => s"$k with parquet-java ${org.apache.parquet.Version.VERSION_NUMBER}, " +
            "whose codec keeps the level of the JVM's first write with it")
      }
    ).iterator.map(_.apply()).collectFirst { case Some(r) => r }
  }

  /**
   * The input of a local sort under a partitioned or bucketed write whose keys are only partition
   * columns and the bucket id: the order Spark plans for its one-file-at-a-time writer. Those
   * keys are constant within each output file, so the sort orders nothing a reader sees; with a
   * file open per partition and bucket it is not needed. A bucket `sortBy` keeps its sort.
   */
  def writerOnlySort(w: WriteFilesExec): Option[SparkPlan] = w.child match {
    case SortExec(order, false, input, _) if w.bucketSpec.forall(_.sortColumnNames.isEmpty) =>
      val partitions = AttributeSet(w.partitionColumns)
      val bucketId = V1WritesUtils.getWriterBucketSpec(w.bucketSpec,
        w.child.output.filterNot(partitions.contains), w.options).map(_.bucketIdExpression)
      val writerKey = (e: Expression) => e match {
        case a: Attribute => partitions.contains(a)
        case other => bucketId.exists(_.semanticEquals(other))
      }
      if (order.nonEmpty && order.forall(o => writerKey(o.child))) Some(input) else None
    case _ => None
  }
}
