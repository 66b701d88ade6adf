package io.vecruntime.suites

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong

import scala.jdk.CollectionConverters._
import scala.util.Try

import io.vecruntime.spark.{VecRuntimeFallbackWriteFilesExec, VectorWriteFilesExec}

import org.apache.spark.sql.execution.{QueryExecution, SparkPlan}
import org.apache.spark.sql.execution.adaptive.{AdaptiveSparkPlanExec, QueryStageExec}
import org.apache.spark.sql.execution.command.DataWritingCommandExec
import org.apache.spark.sql.execution.datasources.{InsertIntoHadoopFsRelationCommand, WriteFilesExec}
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.util.QueryExecutionListener

/**
 * Counts the Parquet writes of each query by the node the plugin's rule left in the executed
 * plan: [[VectorWriteFilesExec]] (native), [[VecRuntimeFallbackWriteFilesExec]] (Spark's writer,
 * with the rule's reason), or Spark's own nodes the rule never saw. Registered through
 * `spark.sql.queryExecutionListeners`; the runner reads [[WriteCounter.counts]] per suite.
 */
class WriteCounter extends QueryExecutionListener {
  override def onSuccess(funcName: String, qe: QueryExecution, durationNs: Long): Unit =
    count(qe)

  override def onFailure(funcName: String, qe: QueryExecution, exception: Exception): Unit =
    count(qe)

  private def count(qe: QueryExecution): Unit =
    Try(qe.executedPlan).foreach(p => WriteCounter.writes(p).foreach(WriteCounter.add))
}

object WriteCounter {
  /** The suite whose writes are counted; set by the runner before each suite. */
  @volatile var suite: String = "-"

  private val counts = new ConcurrentHashMap[(String, String), AtomicLong]()

  private def add(kind: String): Unit =
    counts.computeIfAbsent((suite, kind), _ => new AtomicLong()).incrementAndGet()

  /** (suite, kind) -> writes, kind being `native`, `fallback: reason` or `spark: reason`. */
  def snapshot(): Map[(String, String), Long] =
    counts.asScala.map { case (k, v) => k -> v.get }.toMap

  private def parquet(w: WriteFilesExec) = w.fileFormat.isInstanceOf[ParquetFileFormat]

  /** The Parquet writes in a plan, one kind per write. */
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
        case i: InsertIntoHadoopFsRelationCommand
            if inner.isEmpty && i.fileFormat.isInstanceOf[ParquetFileFormat] =>
          Seq("spark: no WriteFiles node (planned write off)")
        case _ => inner
      }
    case other => other.children.flatMap(writes)
  }
}
