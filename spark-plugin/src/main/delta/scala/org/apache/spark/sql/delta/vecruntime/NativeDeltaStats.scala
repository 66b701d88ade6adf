package org.apache.spark.sql.delta.vecruntime

import java.math.{BigDecimal => JBigDecimal, BigInteger}
import java.nio.{ByteBuffer, ByteOrder}

import scala.collection.mutable
import scala.jdk.CollectionConverters._

import io.vecruntime.parquet.{FooterSummary, ParquetSchema}
import io.vecruntime.parquet.ParquetSchema.PhysicalType
import io.vecruntime.spark.{NativeFileListener, SparkParquetLayout, WholeRowStatsTracker}

import org.apache.spark.internal.Logging
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference, BindReferences, BoundReference, CaseWhen, Expression, GenericInternalRow, GetStructField, IsNull, Literal, RuntimeReplaceable, UnsafeProjection}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, AggregateFunction, Count, Max, Min, Sum}
import org.apache.spark.sql.catalyst.util.TypeUtils
import org.apache.spark.sql.delta.stats.{DeltaFileStatistics, DeltaJobStatisticsTracker}
import org.apache.spark.sql.execution.datasources.{WriteJobStatsTracker, WriteTaskStats, WriteTaskStatsTracker}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * Delta's per-file statistics (`numRecords`, `minValues`, `maxValues`, `nullCount`,
 * `tightBounds`) from the native writer's column chunks, not from Delta's tracker.
 *
 * Delta's tracker (`DeltaTaskStatisticsTracker`) updates aggregates with each row of a file and
 * turns their results into JSON with Delta's own expression (string prefixes cut, the
 * truncated max's tie-breaker, `to_json`). Here each aggregate is answered from the file's
 * footer summary where its chunks hold the answer: `count(*)` by the file's rows,
 * `sum(if(isnull(c), 1, 0))` of a leaf by its chunks' null counts, `min(c)` / `max(c)` by the
 * least and greatest of its chunks' whole bounds where a chunk's order is Spark's (integers,
 * decimals, dates, microsecond timestamps not rebased, binary-collated strings). The other
 * aggregates (float and double bounds, whose NaN and -0.0 Spark orders its own way; the nulls
 * of an array or map) are updated from the rows, as Spark's `Min`, `Max` and `Sum` update them.
 * The rest of Delta's expression runs as it is. A write with an aggregate of another kind
 * (Variant statistics) keeps Delta's tracker, and so does each file the native writer does
 * not write.
 */
object NativeDeltaStats extends Logging {
  /** What one of Delta's aggregates is answered by. */
  sealed trait Input extends Serializable

  case object Rows extends Input

  /**
   * Nulls of `column`, an expression over the data columns; `path` is the leaf it reads in the
   * file (names from the file's root), where it reads one.
   */
  case class Nulls(column: Expression, path: Option[Seq[String]]) extends Input

  case class Bound(column: Expression, path: Option[Seq[String]], max: Boolean) extends Input

  /**
   * Delta's statistics expression with its aggregates' results read from a row of `inputs`,
   * whose columns are expressions over `dataCols`.
   */
  case class Plan(result: Expression, inputs: IndexedSeq[Input], dataCols: Seq[Attribute])

  /** Where an input is answered in a file: its leaf's index, or one of these. */
  val FileRows: Int = -1
  val FromRows: Int = -2

  /**
   * The tracker to write `delta`'s statistics with: ours where every aggregate of its
   * expression is one [[Input]] answers, else Delta's (logged with the reason).
   */
  def tracker(delta: DeltaJobStatisticsTracker): WriteJobStatsTracker =
    plan(delta.statsColExpr, delta.dataCols) match {
      case Right(p) => new NativeDeltaStatsTracker(delta, p)
      case Left(why) =>
        logInfo(s"Delta's statistics tracker computes this write's file statistics: $why")
        delta
    }

  /** The statistics each file got, by file name, from either tracker. */
  def recorded(t: WriteJobStatsTracker): Map[String, String] = t match {
    case n: NativeDeltaStatsTracker => n.recordedStats
    case d: DeltaJobStatisticsTracker => d.recordedStats
  }

  def plan(statsColExpr: Expression, dataCols: Seq[Attribute]): Either[String, Plan] = {
    val inputs = mutable.ArrayBuffer.empty[Input]
    var unsupported: Option[String] = None
    val result = statsColExpr.transform {
      case ae: AggregateExpression => input(ae.aggregateFunction) match {
        case Right(in) =>
          inputs += in
          BoundReference(inputs.size - 1, ae.dataType, nullable = true)
        case Left(why) =>
          unsupported = unsupported.orElse(Some(why))
          ae
      }
    }
    unsupported.toLeft(Plan(evaluable(result), inputs.toIndexedSeq, dataCols))
  }

  /** `e` with its runtime-replaceable parts (Spark 4's `to_json`) replaced, as Delta evaluates it. */
  private def evaluable(e: Expression): Expression = {
    val replaced = e.transformUp { case r: RuntimeReplaceable => r.replacement }
    if (replaced.exists(_.isInstanceOf[RuntimeReplaceable])) evaluable(replaced) else replaced
  }

  private def input(f: AggregateFunction): Either[String, Input] = f match {
    case c: Count if c.children.nonEmpty && c.children.forall(e => e.foldable && !e.nullable) =>
      Right(Rows)
    case s: Sum => s.child match {
      case CaseWhen(Seq((IsNull(c), Literal(1, IntegerType))), Some(Literal(0, IntegerType))) =>
        Right(Nulls(c, path(c)))
      case other => Left(s"statistic sum(${other.sql})")
    }
    case m: Min if orderable(m.child.dataType) => Right(Bound(m.child, path(m.child), max = false))
    case m: Max if orderable(m.child.dataType) => Right(Bound(m.child, path(m.child), max = true))
    case other => Left(s"statistic ${other.prettyName}")
  }

  private def orderable(t: DataType): Boolean = t match {
    case _: NumericType | DateType | TimestampType | TimestampNTZType | BooleanType => true
    case t: StringType => t == StringType
    case _ => false
  }

  private def path(e: Expression): Option[Seq[String]] = e match {
    case a: AttributeReference => Some(Seq(a.name))
    case g: GetStructField => path(g.child).map(_ :+ g.extractFieldName)
    case _ => None
  }

  /**
   * Where each input of `plan` is answered in a file written in `layout`: the index of the leaf
   * whose chunks answer it, [[FileRows]] for the row count, or [[FromRows]].
   */
  def locate(plan: Plan, layout: SparkParquetLayout): Array[Int] = {
    val columns = layout.parquetSchema.columns().asScala.toIndexedSeq
    val byPath = columns.indices.map(i => columns(i).path().asScala.toSeq -> i).toMap
    val statisticsOff = layout.options.toProperties.asScala.exists { case (k, v) =>
      k.startsWith("parquet.column.statistics.enabled") && v.trim.equalsIgnoreCase("false")
    }
    val legacyDates = layout.rebase.legacyDatetime
    def leaf(path: Option[Seq[String]]) =
      path.flatMap(byPath.get).filter(i => columns(i).maxRepetitionLevel() == 0)
    plan.inputs.map {
      case Rows => FileRows
      case Nulls(_, p) => leaf(p).getOrElse(FromRows)
      case Bound(c, p, _) => leaf(p).filter { i =>
        val physical = columns(i).physicalType()
        !statisticsOff && (c.dataType match {
          case ByteType | ShortType | IntegerType => physical == PhysicalType.INT32
          case DateType => physical == PhysicalType.INT32 && !legacyDates
          case LongType => physical == PhysicalType.INT64
          case t @ (TimestampType | TimestampNTZType) =>
            physical == PhysicalType.INT64 &&
              columns(i).timestampUnit() == ParquetSchema.TimeUnit.MICROS &&
              (t == TimestampNTZType || !legacyDates)
          case _: DecimalType => physical != PhysicalType.INT96
          case _: StringType => physical == PhysicalType.BYTE_ARRAY
          case _ => false
        })
      }.getOrElse(FromRows)
    }.toArray
  }

  /**
   * The aggregates' results for a file: from its summary (none for a file without rows) where
   * `at` places them in a leaf, else the row-updated `fromRows` (by input).
   */
  def values(plan: Plan, at: Array[Int], layout: SparkParquetLayout,
      summary: Option[FooterSummary], fromRows: Array[Any]): InternalRow = {
    val groups = summary.fold(Seq.empty[FooterSummary.RowGroup])(_.rowGroups().asScala.toSeq)
    val rows = summary.fold(0L)(_.numRows())
    // A row group's chunks are the schema's leaves, in order.
    groups.foreach(g => assert(g.columns().size == layout.parquetSchema.size(), "a row group's columns"))
    val values = plan.inputs.indices.map { i =>
      def chunks = groups.map(_.columns().get(at(i)))
      (plan.inputs(i), at(i)) match {
        case (Rows, _) => rows
        // Spark's sum over no row is null.
        case (Nulls(_, _), _) if rows == 0 => null
        case (_, FromRows) => fromRows(i)
        case (Nulls(_, _), _) => chunks.map(_.nullCount()).sum
        case (Bound(c, _, max), _) =>
          val column = layout.parquetSchema.column(at(i))
          val bounds = chunks.flatMap { chunk =>
            val b = if (max) chunk.wholeMax() else chunk.wholeMin()
            if (b == null && chunk.numValues() > chunk.nullCount()) {
              throw new IllegalStateException(
                s"column ${column.name()}: a chunk with values and no ${if (max) "max" else "min"}")
            }
            Option(b).map(decode(column, c.dataType, _))
          }
          val ordering = TypeUtils.getInterpretedOrdering(c.dataType)
          if (bounds.isEmpty) null else if (max) bounds.max(ordering) else bounds.min(ordering)
      }
    }
    new GenericInternalRow(values.toArray[Any])
  }

  /** A plain-encoded bound as Spark's value of type `t`. */
  private def decode(column: ParquetSchema.Column, t: DataType, b: Array[Byte]): Any = {
    def le = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN)
    t match {
      case ByteType => le.getInt.toByte
      case ShortType => le.getInt.toShort
      case IntegerType | DateType => le.getInt
      case LongType | TimestampType | TimestampNTZType => le.getLong
      case d: DecimalType => column.physicalType() match {
        case PhysicalType.INT32 => Decimal(le.getInt.toLong, d.precision, d.scale)
        case PhysicalType.INT64 => Decimal(le.getLong, d.precision, d.scale)
        case _ => Decimal(new JBigDecimal(new BigInteger(b), d.scale), d.precision, d.scale)
      }
      case _ => UTF8String.fromBytes(b)
    }
  }
}

/**
 * Delta's job statistics tracker whose tasks take each native file's statistics from its column
 * chunks ([[NativeDeltaStats]]) and hand other files to `delta`'s own task tracker. Its tasks
 * read rows of `rowColumns` (a partitioned write's whole rows, [[WholeRowStatsTracker]]), else
 * of Delta's data columns.
 */
class NativeDeltaStatsTracker(
    val delta: DeltaJobStatisticsTracker,
    plan: NativeDeltaStats.Plan,
    rowColumns: Option[Seq[Attribute]] = None)
  extends WholeRowStatsTracker {

  @volatile var recordedStats: Map[String, String] = _

  override def newTaskInstance(): WriteTaskStatsTracker =
    new NativeDeltaTaskStats(plan, delta, rowColumns)

  override def forWholeRows(allColumns: Seq[Attribute]): Option[WriteJobStatsTracker] = {
    val ids = allColumns.map(_.exprId).toSet
    if (plan.dataCols.forall(a => ids(a.exprId))) {
      Some(new NativeDeltaStatsTracker(delta, plan, Some(allColumns)))
    } else {
      None
    }
  }

  override def processStats(stats: Seq[WriteTaskStats], jobCommitTime: Long): Unit = {
    recordedStats = stats.map(_.asInstanceOf[DeltaFileStatistics]).flatMap(_.stats).toMap
  }
}

/**
 * One task's statistics: a file the native writer opened gets its inputs located in its layout
 * and those answered from rows updated with each row; its statistics are made when it is
 * closed. Any other file's rows go to Delta's task tracker, made on its first such file.
 */
class NativeDeltaTaskStats(
    plan: NativeDeltaStats.Plan,
    delta: DeltaJobStatisticsTracker,
    rowColumns: Option[Seq[Attribute]] = None)
  extends WriteTaskStatsTracker with NativeFileListener {
  import NativeDeltaStats._

  private val rowCols = rowColumns.getOrElse(plan.dataCols)
  private val columns = plan.inputs.map {
    case Nulls(c, _) => BindReferences.bindReference(c, rowCols)
    case Bound(c, _, _) => BindReferences.bindReference(c, rowCols)
    case Rows => null
  }
  // Delta's own task tracker reads its data columns.
  private lazy val dataOf = rowColumns.map(all => UnsafeProjection.create(plan.dataCols, all))
  private val orderings = plan.inputs.map {
    case Bound(c, _, _) => TypeUtils.getInterpretedOrdering(c.dataType)
    case _ => null
  }

  private class NativeFile(val layout: SparkParquetLayout, val at: Array[Int]) {
    var summary: Option[FooterSummary] = None
    val fromRows: Array[Int] = at.indices.filter(at(_) == FromRows).toArray
    // Spark's Sum of a file's first row starts from 0, Min and Max from null.
    val values: Array[Any] = plan.inputs.map {
      case Nulls(_, _) => 0L
      case _ => null
    }.toArray

    /** As Spark's `Min` (`least`), `Max` (`greatest`) and `Sum` update with a row. */
    def update(row: InternalRow): Unit = fromRows.foreach { i =>
      val v = columns(i).eval(row)
      plan.inputs(i) match {
        case Nulls(_, _) => if (v == null) values(i) = values(i).asInstanceOf[Long] + 1
        case Bound(_, _, max) if v != null =>
          val current = values(i)
          if (current == null ||
              (if (max) orderings(i).gt(v, current) else orderings(i).lt(v, current))) {
            values(i) = InternalRow.copyValue(v)
          }
        case _ =>
      }
    }
  }

  private val opened = mutable.HashMap.empty[String, NativeFile]
  private val native = mutable.HashMap.empty[String, NativeFile]
  private val results = mutable.HashMap.empty[String, String]
  private lazy val getStats = UnsafeProjection.create(Seq(plan.result))
  private var rowTracker: WriteTaskStatsTracker = _
  // The file of the last row: rows come file after file.
  private var lastPath: String = _
  private var lastFile: NativeFile = _

  NativeFileListener.listen(this)

  // The files of a task share their layout object (SparkParquetLayout.ofTaskFile).
  private var lastLayout: SparkParquetLayout = _
  private var lastAt: Array[Int] = _
  // The located inputs whose row-updated statistics the tests were last told of.
  private var toldAt: Array[Int] = _

  override def opened(path: String, layout: SparkParquetLayout): Unit = {
    if (!(layout eq lastLayout)) {
      lastAt = locate(plan, layout)
      lastLayout = layout
    }
    opened(path) = new NativeFile(layout, lastAt)
  }

  override def finished(path: String, summary: FooterSummary): Unit = {
    // A writer made after its file's newFile (a Variant file's) left Delta's tracker the file.
    opened.remove(path)
    native.get(path).foreach(_.summary = Some(summary))
  }

  private def rowsOf: WriteTaskStatsTracker = {
    if (rowTracker == null) rowTracker = delta.newTaskInstance()
    rowTracker
  }

  override def newPartition(partitionValues: InternalRow): Unit =
    if (rowTracker != null) rowTracker.newPartition(partitionValues)

  override def newFile(filePath: String): Unit = opened.remove(filePath) match {
    case Some(f) => native(filePath) = f
    case None => rowsOf.newFile(filePath)
  }

  override def newRow(filePath: String, row: InternalRow): Unit = {
    if (!(filePath eq lastPath)) {
      lastPath = filePath
      lastFile = native.getOrElse(filePath, null)
    }
    if (lastFile == null) rowsOf.newRow(filePath, dataOf.fold(row)(_(row)))
    else if (lastFile.fromRows.nonEmpty) lastFile.update(row)
  }

  override def closeFile(filePath: String): Unit = {
    lastPath = null
    lastFile = null
    native.remove(filePath) match {
      case Some(f) =>
        // Path.getName without parsing a URI per file.
        val name = filePath.substring(filePath.lastIndexOf('/') + 1)
        val row = values(plan, f.at, f.layout, f.summary, f.values)
        results(name) = getStats(row).getString(0)
        NativeDeltaTaskStats.filesFromChunks.incrementAndGet()
        // Told once per layout located, not per file.
        if (!(f.at eq toldAt)) {
          toldAt = f.at
          f.fromRows.foreach(i => NativeDeltaTaskStats.fromRows.add(plan.inputs(i) match {
            case Nulls(c, _) => s"nulls ${c.sql}"
            case Bound(c, _, _) => s"bounds ${c.sql}"
            case Rows => "rows"
          }))
        }
      case None => rowsOf.closeFile(filePath)
    }
  }

  override def getFinalStats(taskCommitTime: Long): WriteTaskStats = {
    native.keys.toSeq.foreach(closeFile)
    val others = Option(rowTracker).fold(Map.empty[String, String]) {
      _.getFinalStats(taskCommitTime).asInstanceOf[DeltaFileStatistics].stats
    }
    DeltaFileStatistics(results.toMap ++ others)
  }
}

object NativeDeltaTaskStats {
  /** Files whose statistics were made from their chunks, in this JVM (tests ask). */
  val filesFromChunks = new java.util.concurrent.atomic.AtomicLong

  /** The statistics such files took from their rows instead, in this JVM (tests ask). */
  val fromRows: java.util.Set[String] = java.util.concurrent.ConcurrentHashMap.newKeySet[String]()
}
