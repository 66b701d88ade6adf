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

  /**
   * Split a partitioned or bucketed write's rows by file natively ([[RowSplitting]]); off, by
   * Spark's projections row by row (for comparison).
   */
  val NATIVE_SPLIT = "spark.vecruntime.write.nativeSplit.enabled"

  /** Read a columnar child's batches directly instead of its rows. */
  val COLUMNAR_INPUT = "spark.vecruntime.write.columnarInput.enabled"

  /**
   * Take a Delta table's file statistics from the native writer's column chunks where they are
   * Spark's values; off, Delta's tracker computes them from every row (for comparison).
   */
  val DELTA_NATIVE_STATISTICS = "spark.vecruntime.write.delta.nativeStatistics.enabled"

  /**
   * The oldest Spark release that will read the files written ("3.5", "4.3"; unset: any). Spark's
   * vectorized reader reads DELTA_BINARY_PACKED pages it skips into right from Spark 4.3: where
   * every Spark reading the files is 4.3 or newer, integers without a dictionary take that
   * encoding in v2 pages, as parquet-java's v2 writer gives them. A session setting or a write
   * option.
   */
  val OLDEST_SPARK_READER = "spark.vecruntime.write.oldestSparkReader"

  /** The first Spark release whose vectorized reader reads skipped DELTA_BINARY_PACKED pages. */
  val DeltaBinaryPackedReadFrom: (Int, Int) = (4, 3)

  /** [[OLDEST_SPARK_READER]]'s value as (major, minor); an error naming the key if it is not one. */
  def sparkRelease(value: String): (Int, Int) = {
    val release = """(\d+)\.(\d+)(\.\d+)?""".r
    value.trim match {
      case release(major, minor, _) => (major.toInt, minor.toInt)
      case v => throw new IllegalArgumentException(
        s"$OLDEST_SPARK_READER must be a Spark release such as 3.5 or 4.3, got '$v'")
    }
  }

  /** Whether every Spark that reads the files reads DELTA_BINARY_PACKED pages right. */
  def readersTakeDeltaBinaryPacked(oldestReader: Option[String]): Boolean =
    oldestReader.map(sparkRelease).exists(r => Ordering[(Int, Int)].gteq(r, DeltaBinaryPackedReadFrom))

  def enabled(conf: SQLConf): Boolean = conf.getConfString(ENABLED, "true").trim.toBoolean

  val DefaultBatchRows = 4096
  val DefaultBatchBytes: Long = 16L << 20
  /** A batch's row offsets are 32-bit and allocated up front: a bound well inside both. */
  val MaxBatchRows: Long = 1L << 24

  def maxOpenFiles(conf: SQLConf): Int = positive(conf, MAX_OPEN_FILES, DefaultMaxOpenFiles,
    Int.MaxValue).toInt

  /**
   * Checks the settings the write tasks read, when the write is planned: a bad value is an
   * error naming its key before any task starts.
   */
  def validate(conf: SQLConf): Unit = {
    positive(conf, BATCH_ROWS, DefaultBatchRows, MaxBatchRows)
    positive(conf, BATCH_BYTES, DefaultBatchBytes, Long.MaxValue)
    positive(conf, TASK_BUFFER_BYTES, DefaultTaskBufferBytes, Long.MaxValue)
    positive(conf, MAX_OPEN_FILES, DefaultMaxOpenFiles, Int.MaxValue)
    boolean(conf, COLUMNAR_INPUT)
    boolean(conf, NATIVE_SPLIT)
    boolean(conf, DELTA_NATIVE_STATISTICS)
    Option(conf.getConfString(OLDEST_SPARK_READER, null)).foreach(sparkRelease)
  }

  private def positive(conf: SQLConf, key: String, default: Long, max: Long): Long = {
    val v = conf.getConfString(key, default.toString).trim
    val n = try v.toLong catch {
      case _: NumberFormatException =>
        throw new IllegalArgumentException(s"$key must be a whole number from 1 to $max, got '$v'")
    }
    if (n <= 0 || n > max) {
      throw new IllegalArgumentException(s"$key must be a whole number from 1 to $max, got $n")
    }
    n
  }

  private def boolean(conf: SQLConf, key: String): Boolean =
    conf.getConfString(key, "true").trim.toLowerCase(java.util.Locale.ROOT) match {
      case "true" => true
      case "false" => false
      case v => throw new IllegalArgumentException(s"$key must be true or false, got '$v'")
    }

  def columnarInput(conf: SQLConf): Boolean = boolean(conf, COLUMNAR_INPUT)

  def deltaNativeStatistics(conf: SQLConf): Boolean = boolean(conf, DELTA_NATIVE_STATISTICS)

  def nativeSplit(conf: SQLConf): Boolean = boolean(conf, NATIVE_SPLIT)
}
