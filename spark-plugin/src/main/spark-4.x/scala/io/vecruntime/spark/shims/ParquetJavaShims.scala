package io.vecruntime.spark.shims

/** What differs by the parquet-java a Spark line ships: 1.15 and later (Spark 4.x). */
object ParquetJavaShims {
  /** Each write's gzip and zstd level reaches its codec (the codec cache is keyed by level). */
  val codecLevelPerWrite: Boolean = true
}
