package io.vecruntime.spark.shims

import org.apache.spark.sql.connector.metric.CustomMetric
import org.apache.spark.sql.connector.write.Write

/** A `Write` whose metrics are `delegate`'s (Spark 3.5 has no driver metrics). */
trait DelegatingWriteMetrics extends Write {
  protected def delegate: Write

  override def supportedCustomMetrics(): Array[CustomMetric] = delegate.supportedCustomMetrics()
}
