package io.vecruntime.spark.shims

import org.apache.spark.sql.connector.metric.{CustomMetric, CustomTaskMetric}
import org.apache.spark.sql.connector.write.Write

/** A `Write` whose metrics are `delegate`'s, its driver metrics included (Spark 4). */
trait DelegatingWriteMetrics extends Write {
  protected def delegate: Write

  override def supportedCustomMetrics(): Array[CustomMetric] = delegate.supportedCustomMetrics()
  override def reportDriverMetrics(): Array[CustomTaskMetric] = delegate.reportDriverMetrics()
}
