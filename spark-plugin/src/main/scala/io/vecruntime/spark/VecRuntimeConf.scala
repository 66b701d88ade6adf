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

  /**
   * Files a task of a partitioned or bucketed write keeps open at once (one per partition and
   * bucket) before it sorts the rest of its rows, as Spark's concurrent writers do.
   */
  val MAX_OPEN_FILES = "spark.vecruntime.write.maxOpenFiles"
  val DefaultMaxOpenFiles = 4096

  /**
   * Row bytes a task of a partitioned or bucketed write buffers across its open files (memory
   * of Spark's memory manager, as far as it grants it) before the largest buffers are encoded.
   */
  val TASK_BUFFER_BYTES = "spark.vecruntime.write.taskBufferBytes"
  val DefaultTaskBufferBytes: Long = 256L << 20

  /** Read a columnar child's batches directly instead of its rows. */
  val COLUMNAR_INPUT = "spark.vecruntime.write.columnarInput.enabled"

  def enabled(conf: SQLConf): Boolean = conf.getConfString(ENABLED, "true").trim.toBoolean

  def maxOpenFiles(conf: SQLConf): Int = positiveInt(conf, MAX_OPEN_FILES, DefaultMaxOpenFiles)

  private def positiveInt(conf: SQLConf, key: String, default: Int): Int = {
    val v = conf.getConfString(key, default.toString).trim
    val n = try v.toInt catch {
      case _: NumberFormatException =>
        throw new IllegalArgumentException(s"$key must be a positive integer, got '$v'")
    }
    if (n <= 0) throw new IllegalArgumentException(s"$key must be a positive integer, got $n")
    n
  }

  def columnarInput(conf: SQLConf): Boolean =
    conf.getConfString(COLUMNAR_INPUT, "true").trim.toBoolean
}
