package io.vecruntime.spark

import org.apache.spark.sql.internal.SQLConf

/** vecruntime's session settings. */
object VecRuntimeConf {
  /** Switches the native writer per session, also at run time (`spark.conf.set`). */
  val ENABLED = "spark.vecruntime.write.columnar.enabled"
  /** Rows per batch handed to native code. */
  val BATCH_ROWS = "spark.vecruntime.write.batchRows"
  /** Bytes of row data after which a batch is handed over early. */
  val BATCH_BYTES = "spark.vecruntime.write.batchBytes"

  /** Read a columnar child's batches directly instead of its rows. */
  val COLUMNAR_INPUT = "spark.vecruntime.write.columnarInput.enabled"

  def enabled(conf: SQLConf): Boolean = conf.getConfString(ENABLED, "true").trim.toBoolean

  def columnarInput(conf: SQLConf): Boolean =
    conf.getConfString(COLUMNAR_INPUT, "true").trim.toBoolean
}
