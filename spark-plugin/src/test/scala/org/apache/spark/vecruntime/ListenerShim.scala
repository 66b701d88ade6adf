package org.apache.spark.vecruntime

import org.apache.spark.SparkContext

/** Test access to Spark's listener bus (`private[spark]`). */
object ListenerShim {
  def waitUntilEmpty(sc: SparkContext): Unit = sc.listenerBus.waitUntilEmpty()
}
