package io.vecruntime.spark

import org.apache.spark.sql.{DataFrame, SparkSession}

/**
 * Random values of every type Spark buckets by, from 64-bit hashes of the row id, a null in
 * every 11, and the values hashing is most particular about: -0.0, NaN and infinities, strings
 * of every length from 0 to 69 (the hash's tail of 1-3 bytes), binaries of 0 to 36 bytes,
 * decimals of 4, 8 and 16 bytes (with trailing zeros, which Hive's hash strips), dates and
 * timestamps from 1901 on (no calendar rebase in any Spark line's defaults).
 */
object BucketableValues {
  private val r = "xxhash64(id, 7)"
  /**
   * -0.0, 0.0, NaN, infinities and random values, every branch of type `t`. (-0.0 and 0.0 are
   * not adjacent branches: Spark 3.5's optimizer then builds a malformed CASE.)
   */
  private def special(t: String) = s"CASE id % 10 WHEN 1 THEN $t('-0.0') WHEN 2 THEN $t('NaN') " +
    s"WHEN 3 THEN $t('0.0') WHEN 4 THEN $t('-Infinity') WHEN 5 THEN $t('Infinity') " +
    s"ELSE $t(($r % 100000) / 7.0) END"

  /** Column name and its SQL expression over `id`. */
  val columns: Seq[(String, String)] = Seq(
    "b" -> s"$r % 2 = 0",
    "i8" -> s"cast($r % 128 as tinyint)",
    "i16" -> s"cast($r % 32768 as smallint)",
    "i32" -> s"cast($r % 2147483648 as int)",
    "i64" -> r,
    "f32" -> special("float"),
    "f64" -> special("double"),
    "d9" -> s"cast(($r % 10000000) / 100 as decimal(9, 2))",
    "d18" -> s"cast(($r % 100000000000000) / 10000 as decimal(18, 4))",
    "d38" -> s"cast($r as decimal(38, 10)) * 1000",
    "d38z" -> s"cast(($r % 1000) * 100 as decimal(38, 6))",
    "s" -> s"substring(repeat(sha2(cast(id as string), 256), 2), 1, int(id % 70))",
    "bin" -> s"unhex(substring(sha2(cast(id as string), 256), 1, 2 * int(id % 37)))",
    "dt" -> s"date_add(date'1970-01-01', int(pmod($r, 200000)) - 25000)",
    "ts" -> s"timestamp_micros(pmod($r, 10000000000000000) - 2000000000000000)",
    "ntz" -> s"cast(timestamp_micros(pmod($r, 10000000000000000) - 2000000000000000) as timestamp_ntz)")

  /** `rows` rows of `id` and every column, in `slices` partitions. */
  def df(spark: SparkSession, rows: Long, slices: Int): DataFrame =
    spark.range(0, rows, 1, slices).selectExpr("id" +: columns.map { case (c, e) =>
      s"CASE WHEN id % 11 = 0 THEN NULL ELSE $e END AS $c"
    }: _*)
}
