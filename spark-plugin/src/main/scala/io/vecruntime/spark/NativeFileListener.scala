package io.vecruntime.spark

import io.vecruntime.parquet.FooterSummary

import org.apache.spark.TaskContext

/**
 * Told of the native writer's files in its task: each one as it is opened, with the layout it
 * is written in, and as it is finished, with what its footer holds. A table format's statistics
 * tracker that takes its figures from the files' column chunks (Delta's,
 * `NativeDeltaStatsTracker`) listens on its task's thread: Spark's data writers open, finish and
 * close files on the thread that created their statistics trackers.
 */
trait NativeFileListener {
  def opened(path: String, layout: SparkParquetLayout): Unit

  def finished(path: String, summary: FooterSummary): Unit
}

object NativeFileListener {
  private val current = new ThreadLocal[NativeFileListener]

  /** Makes `l` the listener of this thread's task until the task ends; nothing outside a task. */
  def listen(l: NativeFileListener): Unit = Option(TaskContext.get()).foreach { task =>
    current.set(l)
    task.addTaskCompletionListener[Unit](_ => if (current.get() eq l) current.remove())
  }

  /** This thread's listener, if its task has one. */
  def get: Option[NativeFileListener] = Option(current.get())
}
