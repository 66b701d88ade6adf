package io.vecruntime.spark

import io.vecruntime.parquet.RowBatch

import org.apache.spark.sql.catalyst.catalog.BucketSpec
import org.apache.spark.sql.catalyst.expressions.{Attribute, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.datasources.{BucketingUtils, V1WritesUtils}

/**
 * Rows split natively ([[RowSplitting]]) against Spark's own expressions, row by row: each
 * row's bucket id against Spark's bucket id expression (as Spark's writer builds it, for Spark's
 * and Hive-compatible bucketing), and rows grouped together exactly when Spark's projected
 * partition rows are equal.
 */
class RowSplittingSuite extends VecRuntimeSparkSession {

  // Random values of each type from 64-bit hashes of the row id, a null in every 11, and the
  // values hashing is most particular about: -0.0, NaN and infinities, strings of every length
  // from 0 to 69 (the hash's tail of 1-3 bytes), decimals of 4, 8 and 16 bytes.
  private val r = "xxhash64(id, 7)"
  private def orNull(e: String) = s"CASE WHEN id % 11 = 0 THEN NULL ELSE $e END"
  private val special = s"CASE id % 10 WHEN 1 THEN -0.0 WHEN 2 THEN 0.0 WHEN 3 THEN double('NaN') " +
    s"WHEN 4 THEN double('-Infinity') WHEN 5 THEN double('Infinity') ELSE ($r % 100000) / 7.0 END"
  private val columns = Seq(
    "b" -> s"$r % 2 = 0",
    "i8" -> s"cast($r % 128 as tinyint)",
    "i16" -> s"cast($r % 32768 as smallint)",
    "i32" -> s"cast($r % 2147483648 as int)",
    "i64" -> r,
    "f32" -> s"cast($special as float)",
    "f64" -> special,
    "d9" -> s"cast(($r % 10000000) / 100 as decimal(9, 2))",
    "d18" -> s"cast(($r % 100000000000000) / 10000 as decimal(18, 4))",
    "d38" -> s"cast($r as decimal(38, 10)) * 1000",
    "d38z" -> s"cast(($r % 1000) * 100 as decimal(38, 6))",
    "s" -> s"substring(repeat(sha2(cast(id as string), 256), 2), 1, int(id % 70))",
    "bin" -> s"unhex(substring(sha2(cast(id as string), 256), 1, 2 * int(id % 37)))",
    "dt" -> s"date_add(date'1970-01-01', int(pmod($r, 200000)) - 25000)",
    "ts" -> s"timestamp_micros(pmod($r, 10000000000000000) - 2000000000000000)",
    "ntz" -> s"cast(timestamp_micros(pmod($r, 10000000000000000) - 2000000000000000) as timestamp_ntz)")

  private lazy val (attributes, rows) = {
    val df = spark.range(0, 20000, 1, 1)
      .selectExpr("id" +: columns.map { case (c, e) => s"${orNull(e)} AS $c" }: _*)
    val attrs = df.queryExecution.analyzed.output
    (attrs, df.queryExecution.toRdd.map(_.copy()).collect().map(_.asInstanceOf[UnsafeRow]))
  }

  private def attr(name: String): Attribute = attributes.find(_.name == name).get

  /** The rows in a batch, split; calls `check(group, row)` for every row of every group. */
  private def split(splitting: RowSplitting)(check: (Int, UnsafeRow) => Unit): Int = {
    val in = new RowBatch(rows.length, 1 << 20)
    val out = new RowBatch(rows.length, 1 << 20)
    try {
      rows.foreach(u => in.append(u.getBaseObject, u.getBaseOffset, u.getSizeInBytes))
      val splitter = splitting.splitter()
      val groups = splitter.split(in, out)
      val view = new UnsafeRow(attributes.length)
      var seen = 0
      for (g <- 0 until groups; i <- splitter.start(g) until splitter.start(g) + splitter.count(g)) {
        view.pointTo(null, out.rowAddress(i), out.rowSize(i))
        check(g, view)
        seen += 1
      }
      assert(seen == rows.length)
      (0 until groups).foreach { g =>
        view.pointTo(null, out.rowAddress(splitter.start(g)), out.rowSize(splitter.start(g)))
        assert(view.getLong(0) == rows(splitter.firstRow(g)).getLong(0), s"group $g's first row")
        assert(splitter.bucket(g) == bucketOf(g), s"group $g's bucket")
      }
      groups
    } finally {
      in.close()
      out.close()
    }
  }

  private var bucketOf: Int => Int = _

  for (hive <- Seq(false, true)) {
    val hash = if (hive) "Hive's hash" else "Spark's Murmur3"
    test(s"bucket ids as Spark's bucket id expression: every bucketable type, $hash") {
      val cases = columns.map(c => Seq(c._1)) ++ Seq(Seq("i32", "s"), Seq("d38", "f64", "b", "ts"),
        columns.map(_._1).filterNot(_ == "ntz"))
      for (names <- cases; buckets <- Seq(1, 7, 64)) {
        val options = Map(BucketingUtils.optionForHiveCompatibleBucketWrite -> hive.toString)
        val spec = V1WritesUtils.getWriterBucketSpec(Some(BucketSpec(buckets, names, Nil)),
          attributes, options).get
        val sparks = UnsafeProjection.create(Seq(spec.bucketIdExpression), attributes)
        RowSplitting.of(attributes, Nil, Some(spec.bucketIdExpression)) match {
          case Left(why) =>
            assert(hive && names == Seq("ntz"), s"$names: $why")
          case Right(splitting) =>
            val ids = collection.mutable.Map[Int, Int]()
            bucketOf = ids
            val groups = split(splitting) { (g, row) =>
              val expected = sparks(row).getInt(0)
              assert(ids.getOrElseUpdate(g, expected) == expected,
                s"$names, $buckets buckets: row ${row.getLong(0)} in group $g")
            }
            assert(groups == ids.size)
            assert(groups == math.min(buckets, rows.map(sparks(_).getInt(0)).distinct.length))
        }
      }
    }
  }

  test("rows together exactly when Spark's projected partition rows are equal, every type") {
    val cases = columns.map(c => Seq(c._1)) ++ Seq(Seq("b", "i8"), Seq("s", "dt", "d38z"))
    for (names <- cases) {
      val partition = names.map(attr)
      // Few distinct values: the low bits of each column's hash.
      val projection = UnsafeProjection.create(partition, attributes)
      val splitting = RowSplitting.of(attributes, partition, None).fold(fail(_), identity)
      val keys = collection.mutable.Map[Int, UnsafeRow]()
      bucketOf = _ => -1
      val groups = split(splitting) { (g, row) =>
        val p = projection(row).copy()
        assert(keys.getOrElseUpdate(g, p) == p, s"$names: row ${row.getLong(0)} in group $g")
      }
      assert(keys.values.toSet.size == groups, s"$names: two groups of one partition")
    }
  }

  test("a bucket id expression that is not one of Spark's two is left to Spark") {
    val other = V1WritesUtils.getWriterBucketSpec(Some(BucketSpec(4, Seq("i32"), Nil)),
      attributes, Map.empty).get.bucketIdExpression.transformUp {
      case org.apache.spark.sql.catalyst.expressions.Literal(4, t) =>
        org.apache.spark.sql.catalyst.expressions.Literal(5, t)
    }
    assert(RowSplitting.of(attributes, Nil, Some(other)).isRight, "a different count is fine")
    val xx = org.apache.spark.sql.catalyst.expressions.Pmod(
      org.apache.spark.sql.catalyst.expressions.XxHash64(Seq(attr("i32")), 42L),
      org.apache.spark.sql.catalyst.expressions.Literal(4L))
    assert(RowSplitting.of(attributes, Nil, Some(xx)).isLeft)
  }
}
