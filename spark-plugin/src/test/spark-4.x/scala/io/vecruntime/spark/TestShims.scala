package io.vecruntime.spark

import org.apache.spark.SparkThrowable
import org.apache.spark.executor.TaskMetrics
import org.apache.spark.sql.types.{DataType, StringType}

/** What the tests read differently by Spark version: Spark 4.x. */
object TestShims {
  /** The error condition (Spark's error class). */
  def condition(e: SparkThrowable): String = e.getCondition

  /** A string type with a collation other than UTF8_BINARY. */
  def collated(t: DataType): Boolean = t match {
    case s: StringType => s.collationId != 0
    case _ => false
  }

  /** The task's peak execution memory, on and off heap. */
  def peakExecutionMemory(m: TaskMetrics): Long =
    m.peakOnHeapExecutionMemory + m.peakOffHeapExecutionMemory
}
