package io.vecruntime.spark.shims

/** What differs by the parquet-java a Spark line ships: 1.13 (Spark 3.5). */
object ParquetJavaShims {
  /**
   * parquet-java 1.13 caches each codec for the JVM with the configuration of its first use
   * (PARQUET-2126): a write's `zlib.compress.level` or zstd level is read only if it is the
   * JVM's first write with that codec, and a level name Hadoop lacks fails only then.
   */
  val codecLevelPerWrite: Boolean = false
}
