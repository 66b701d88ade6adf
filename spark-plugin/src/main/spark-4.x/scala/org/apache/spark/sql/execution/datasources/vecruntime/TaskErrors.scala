package org.apache.spark.sql.execution.datasources.vecruntime

/**
 * How a task write's errors reach Spark (Spark 4.x): the task writers wrap them themselves
 * (`FileFormatDataWriter.enrichWriteError`), so the task passes them on as they are.
 */
private[vecruntime] object TaskErrors {
  /** Spark 4.x builds the task writer within the task's failure handling (abort on error). */
  val writerBeforeTry = false

  def wrap[T](path: String)(task: => T): T = task
}
