package io.vecruntime.spark

import java.util.concurrent.ConcurrentHashMap

import org.apache.spark.{SparkContext, TaskContext}
import org.apache.spark.internal.Logging
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

/**
 * What the native writer did in one task, summed over the task's files: at the task's end one
 * INFO line, and the SQL metrics of `VectorWriteFiles` (Spark's UI, listener events).
 */
private[spark] final class TaskWriteStats(metrics: Map[String, SQLMetric]) extends Logging {
  private var rows = 0L
  private var files = 0L
  private var bytes = 0L
  private var nativeNanos = 0L
  private var kernelNanos = 0L
  private var fallbacks = 0L
  private var held = 0L
  private var peak = 0L
  private var split = 0L

  /** Rows split by file natively (a partitioned or bucketed write, [[RowSplitting]]). */
  def splitRows(rows: Long): Unit = synchronized { split += rows }

  /** A writer's native bytes changed by `delta`. */
  def memory(delta: Long): Unit = synchronized {
    held += delta
    peak = math.max(peak, held)
  }

  /** A file finished. */
  def file(rows: Long, bytes: Long, nativeNanos: Long, kernelNanos: Long, fallbacks: Long): Unit =
    synchronized {
      this.rows += rows
      this.files += 1
      this.bytes += bytes
      this.nativeNanos += nativeNanos
      this.kernelNanos += kernelNanos
      this.fallbacks += fallbacks
    }

  private def ended(context: TaskContext): Unit = synchronized {
    import TaskWriteStats._
    metrics.get(Rows).foreach(_ += rows)
    metrics.get(Files).foreach(_ += files)
    metrics.get(Bytes).foreach(_ += bytes)
    metrics.get(EncodeTime).foreach(_ += math.max(0L, nativeNanos - kernelNanos))
    metrics.get(KernelTime).foreach(_ += kernelNanos)
    metrics.get(DictionaryFallbacks).foreach(_ += fallbacks)
    metrics.get(PeakMemory).foreach(_ += peak)
    metrics.get(SplitRows).foreach(_ += split)
    logInfo(f"vecruntime: task ${context.taskAttemptId()} (stage ${context.stageId()}." +
      f"${context.stageAttemptNumber()}, partition ${context.partitionId()}) wrote $rows rows " +
      f"to $files files, $bytes bytes; native ${nativeNanos / 1e6}%.1f ms (row kernel " +
      f"${kernelNanos / 1e6}%.1f ms), peak native memory ${peak / 1048576.0}%.1f MiB, " +
      f"$fallbacks dictionary fallbacks, $split rows split by file natively")
  }
}

private[spark] object TaskWriteStats {
  val Rows = "nativeRows"
  val Files = "nativeFiles"
  val Bytes = "nativeBytes"
  val EncodeTime = "nativeEncodeTime"
  val KernelTime = "rowKernelTime"
  val DictionaryFallbacks = "dictionaryFallbacks"
  val PeakMemory = "peakNativeMemory"
  val SplitRows = "splitRows"

  /** The SQL metrics of `VectorWriteFiles`. */
  def createMetrics(sc: SparkContext): Map[String, SQLMetric] = Map(
    Rows -> SQLMetrics.createMetric(sc, "rows written natively"),
    Files -> SQLMetrics.createMetric(sc, "files written natively"),
    Bytes -> SQLMetrics.createSizeMetric(sc, "bytes written natively"),
    EncodeTime -> SQLMetrics.createNanoTimingMetric(sc, "native encode time"),
    KernelTime -> SQLMetrics.createNanoTimingMetric(sc, "row kernel time"),
    DictionaryFallbacks -> SQLMetrics.createMetric(sc, "column chunks with dictionary fallback"),
    PeakMemory -> SQLMetrics.createSizeMetric(sc, "peak native memory of a task"),
    SplitRows -> SQLMetrics.createMetric(sc, "rows split by file natively"))

  private val tasks = new ConcurrentHashMap[Long, TaskWriteStats]()

  /** The running task's stats (made on first use, reported when the task ends), if in a task. */
  def ofTask(metrics: Map[String, SQLMetric]): Option[TaskWriteStats] =
    Option(TaskContext.get()).map { context =>
      val id = context.taskAttemptId()
      tasks.computeIfAbsent(id, _ => {
        context.addTaskCompletionListener[Unit](c => Option(tasks.remove(id)).foreach(_.ended(c)))
        new TaskWriteStats(metrics)
      })
    }
}
