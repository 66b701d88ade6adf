package io.vecruntime.spark

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong

import scala.jdk.CollectionConverters._
import scala.util.Try

import org.apache.spark.sql.execution.{QueryExecution, SparkPlan}
import org.apache.spark.sql.execution.adaptive.{AdaptiveSparkPlanExec, QueryStageExec}
import org.apache.spark.sql.execution.command.DataWritingCommandExec
import org.apache.spark.sql.execution.datasources.{InsertIntoHadoopFsRelationCommand, WriteFilesExec}
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.util.QueryExecutionListener

/**
 * Counts the Parquet writes of a session by who wrote them: `native` ([[VectorWriteFilesExec]],
 * or a command planned without `WriteFiles` given [[VectorParquetFileFormat]]),
 * `fallback: <reason>` (Spark's writer under [[VecRuntimeFallbackWriteFilesExec]] or the
 * command's format, with the rule's reason), `spark: <why>` (a write the rule never saw) or `plugin off`. Register it with
 * `spark.sql.queryExecutionListeners=io.vecruntime.spark.WriteCensus`; [[WriteCensus.snapshot]]
 * holds the counts by `(scope, kind)`, `scope` being what [[WriteCensus.scope]] was set to.
 */
class WriteCensus extends QueryExecutionListener {
  override def onSuccess(funcName: String, qe: QueryExecution, durationNs: Long): Unit =
    count(qe)

  override def onFailure(funcName: String, qe: QueryExecution, exception: Exception): Unit =
    count(qe)

  private def count(qe: QueryExecution): Unit =
    Try(qe.executedPlan).foreach(p => WriteCensus.writes(p).foreach(WriteCensus.add))
}

object WriteCensus {
  /** The label the next writes are counted under (a test suite, a benchmark). */
  @volatile var scope: String = "-"

  private val counts = new ConcurrentHashMap[(String, String), AtomicLong]()

  private def add(kind: String): Unit =
    counts.computeIfAbsent((scope, kind), _ => new AtomicLong()).incrementAndGet()

  /**
   * A table format's write job (`format`: "Delta"), which no write node of Spark's plans shows:
   * counted as its files are prepared, `native (Delta)` or `fallback (Delta): <reason>`.
   */
  def tableFormatWrite(format: String, reason: Option[String]): Unit =
    add(reason.fold(s"native ($format)")(r => s"fallback ($format): $r"))

  /** (scope, kind) -> writes. */
  def snapshot(): Map[(String, String), Long] =
    counts.asScala.map { case (k, v) => k -> v.get }.toMap

  private def parquet(w: WriteFilesExec) = VectorWriteRule.writesParquet(w.fileFormat)

  /** `kind`, or `plugin off` for a write planned with the plugin switched off. */
  private def ifOn(p: SparkPlan, kind: String) =
    if (p.getTagValue(VectorWriteRule.PluginOff).contains(true)) "plugin off" else kind

  /**
   * The Parquet writes in an executed plan, one kind per write. Writes planned with the plugin
   * switched off (to compare with Spark's writer) are not fallbacks: `plugin off`, apart.
   */
  def writes(plan: SparkPlan): Seq[String] = plan match {
    case a: AdaptiveSparkPlanExec => writes(a.executedPlan)
    case s: QueryStageExec => writes(s.plan)
    case _: VectorWriteFilesExec => Seq("native")
    case f: VecRuntimeFallbackWriteFilesExec => f.child match {
      case w: WriteFilesExec if !parquet(w) => Nil
      case _ => Seq(s"fallback: ${f.reason}")
    }
    case w: WriteFilesExec =>
      if (!parquet(w)) Nil else Seq(ifOn(w, "spark: WriteFilesExec not replaced"))
    case d: DataWritingCommandExec =>
      val inner = d.children.flatMap(writes)
      // Planned without WriteFiles: the command's format says who writes.
      lazy val own = d.cmd match {
        case i: InsertIntoHadoopFsRelationCommand => i.fileFormat match {
          case v: VectorParquetFileFormat => Seq(v.planned.fold("native")(r => s"fallback: $r"))
          case _: ParquetFileFormat => Seq(ifOn(d, "spark: no WriteFiles node, command not rewritten"))
          case _ => Nil
        }
        case _ if VectorWriteRule.hiveParquetDirectory(d) =>
          Seq(ifOn(d, s"fallback: ${VectorWriteRule.HiveSerde}"))
        case _ => Nil
      }
      if (inner.nonEmpty) inner else own
    case other => other.children.flatMap(writes)
  }
}
