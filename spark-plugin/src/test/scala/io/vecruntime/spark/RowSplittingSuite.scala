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

  private val columns = BucketableValues.columns

  private lazy val (attributes, rows) = {
    val df = BucketableValues.df(spark, 20000, 1)
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
