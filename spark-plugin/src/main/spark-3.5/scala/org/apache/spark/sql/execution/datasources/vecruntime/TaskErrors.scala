package org.apache.spark.sql.execution.datasources.vecruntime

/**
 * How a task write's errors reach Spark (Spark 3.5): wrapped by the task, as Spark 3.5's
 * `FileFormatWriter.executeTask` wraps them (its task writers do not).
 */
private[vecruntime] object TaskErrors {
  /**
   * Spark 3.5 builds the task writer (whose first `hasNext` runs the input) before the task's
   * failure handling: an error there is neither wrapped nor followed by the task's abort.
   */
  val writerBeforeTry = true

  def wrap[T](path: String)(task: => T): T = WrappedTaskErrors.wrap(path)(task)
}
