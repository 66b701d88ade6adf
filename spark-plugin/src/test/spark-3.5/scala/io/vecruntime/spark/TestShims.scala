package io.vecruntime.spark

import org.apache.spark.SparkThrowable
import org.apache.spark.executor.TaskMetrics
import org.apache.spark.sql.types.DataType

/** What the tests read differently by Spark version: Spark 3.5. */
object TestShims {
  /** The error condition (Spark's error class). */
  def condition(e: SparkThrowable): String = e.getErrorClass

  /** Spark 3.5 has no collations. */
  def collated(t: DataType): Boolean = false

  /** The task's peak execution memory. */
  def peakExecutionMemory(m: TaskMetrics): Long = m.peakExecutionMemory
}
