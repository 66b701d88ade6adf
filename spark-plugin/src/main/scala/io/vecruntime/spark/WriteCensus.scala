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

  private def count(qe: QueryExecution): Unit = Try(qe.executedPlan).foreach { p =>
    // Writes run with the plugin switched off (to compare with Spark's writer) are not
    // fallbacks: counted apart.
    val on = VecRuntimeConf.enabled(qe.sparkSession.sessionState.conf)
    WriteCensus.writes(p).foreach(k => WriteCensus.add(if (on) k else "plugin off"))
  }
}

object WriteCensus {
  /** The label the next writes are counted under (a test suite, a benchmark). */
  @volatile var scope: String = "-"

  private val counts = new ConcurrentHashMap[(String, String), AtomicLong]()

  private def add(kind: String): Unit =
    counts.computeIfAbsent((scope, kind), _ => new AtomicLong()).incrementAndGet()

  /** (scope, kind) -> writes. */
  def snapshot(): Map[(String, String), Long] =
    counts.asScala.map { case (k, v) => k -> v.get }.toMap

  private def parquet(w: WriteFilesExec) = VectorWriteRule.writesParquet(w.fileFormat)

  /** The Parquet writes in an executed plan, one kind per write. */
  def writes(plan: SparkPlan): Seq[String] = plan match {
    case a: AdaptiveSparkPlanExec => writes(a.executedPlan)
    case s: QueryStageExec => writes(s.plan)
    case _: VectorWriteFilesExec => Seq("native")
    case f: VecRuntimeFallbackWriteFilesExec => f.child match {
      case w: WriteFilesExec if !parquet(w) => Nil
      case _ => Seq(s"fallback: ${f.reason}")
    }
    case w: WriteFilesExec => if (parquet(w)) Seq("spark: WriteFilesExec not replaced") else Nil
    case d: DataWritingCommandExec =>
      val inner = d.children.flatMap(writes)
      d.cmd match {
        // Planned without WriteFiles: the command's format says who writes.
        case i: InsertIntoHadoopFsRelationCommand if inner.isEmpty => i.fileFormat match {
          case v: VectorParquetFileFormat => Seq(v.planned.fold("native")(r => s"fallback: $r"))
          case _: ParquetFileFormat => Seq("spark: no WriteFiles node, command not rewritten")
          case _ => Nil
        }
        case _ if inner.isEmpty && VectorWriteRule.hiveParquetDirectory(d) =>
          Seq(s"fallback: ${VectorWriteRule.HiveSerde}")
        case _ => inner
      }
    case other => other.children.flatMap(writes)
  }
}
