package org.apache.iceberg.spark.source

/** What Iceberg 1.12 (Spark 4.1's runtime) does its own way; `src/main/iceberg-1.10` for 1.10. */
object IcebergRelease {
  val Version = "1.12."

  /** The sort order id a data file records: the write's (its WriterFactory's `sortOrderId`). */
  def sortOrderId(factoryField: String => Any): Option[Int] =
    Some(factoryField("sortOrderId").asInstanceOf[Int])

  /** A null struct counts a null in each of its float and double columns' metrics. */
  val NullStructCounts = true

  /** `write.parquet.page-version` (v1 or v2) is read. */
  val PageVersions = true

  /** Per-column properties this release applies, and parquet-java's key for each. */
  val ColumnProperties: Seq[(String, String)] = Seq(
    "write.parquet.bloom-filter-enabled.column." -> "parquet.bloom.filter.enabled",
    "write.parquet.bloom-filter-fpp.column." -> "parquet.bloom.filter.fpp",
    "write.parquet.bloom-filter-ndv.column." -> "parquet.bloom.filter.expected.ndv",
    "write.parquet.dict-encoding-enabled.column." -> "parquet.enable.dictionary",
    "write.parquet.stats-enabled.column." -> "parquet.column.statistics.enabled")

  /** Per-column properties of later releases, which this one ignores. */
  val IgnoredColumnProperties: Seq[String] = Nil
}
