package org.apache.iceberg.spark.source

/** What Iceberg 1.10 (Spark 4.0's and 3.5's runtimes) does its own way. */
object IcebergRelease {
  val Version = "1.10."

  /** 1.10's writers give their files no sort order (unsorted). */
  def sortOrderId(factoryField: String => Any): Option[Int] = None

  /** A null struct adds nothing to its float and double columns' metrics. */
  val NullStructCounts = false

  /** Data pages are always v1 (no `write.parquet.page-version`). */
  val PageVersions = false

  val ColumnProperties: Seq[(String, String)] = Seq(
    "write.parquet.bloom-filter-enabled.column." -> "parquet.bloom.filter.enabled",
    "write.parquet.bloom-filter-fpp.column." -> "parquet.bloom.filter.fpp",
    "write.parquet.stats-enabled.column." -> "parquet.column.statistics.enabled")

  /** Per-column properties of later releases, which 1.10 ignores. */
  val IgnoredColumnProperties: Seq[String] = Seq(
    "write.parquet.bloom-filter-ndv.column.", "write.parquet.dict-encoding-enabled.column.")
}
