package io.vecruntime.spark

import java.io.File
import java.math.BigDecimal
import java.sql.{Date, Timestamp}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.types._

/**
 * Structs, arrays and maps written natively, each case against Spark's own writer: rows read
 * back by Spark's vectorized and row readers, the Parquet schema, the footer, and per leaf the
 * value count and statistics (null count, min, max).
 */
class NestedWriteSuite extends VecRuntimeSparkSession {

  val item: StructType = StructType(Seq(
    StructField("item", LongType, nullable = false),
    StructField("qty", IntegerType),
    StructField("price", DecimalType(7, 2)),
    StructField("big", DecimalType(38, 10)),
    StructField("note", StringType)))

  val schema: StructType = StructType(Seq(
    StructField("id", IntegerType, nullable = false),
    StructField("tags", ArrayType(StringType, containsNull = true)),
    StructField("scores", ArrayType(IntegerType, containsNull = false)),
    StructField("attrs", MapType(StringType, IntegerType, valueContainsNull = true)),
    StructField("point", StructType(Seq(
      StructField("x", DoubleType), StructField("y", DoubleType, nullable = false),
      StructField("label", StringType)))),
    StructField("items", ArrayType(item, containsNull = true)),
    StructField("grid", ArrayType(ArrayType(IntegerType))),
    StructField("m2", MapType(StringType, StructType(Seq(
      StructField("a", IntegerType), StructField("b", ArrayType(StringType)))))),
    StructField("deep", StructType(Seq(StructField("a", StructType(Seq(StructField("b",
      StructType(Seq(StructField("c", StructType(Seq(StructField("d",
        ArrayType(LongType)))))))))))))),
    StructField("ts", ArrayType(TimestampType)),
    StructField("dates", ArrayType(DateType)),
    StructField("small", StructType(Seq(
      StructField("b", BooleanType), StructField("i8", ByteType), StructField("i16", ShortType),
      StructField("f", FloatType), StructField("bin", BinaryType),
      StructField("ntz", TimestampNTZType)))),
    StructField("bools", ArrayType(BooleanType)),
    StructField("bytes", ArrayType(ByteType)),
    StructField("shorts", ArrayType(ShortType)),
    StructField("floats", ArrayType(FloatType)),
    StructField("bins", ArrayType(BinaryType)),
    StructField("decs", MapType(IntegerType, DecimalType(20, 3)))))

  /** Rows of `schema`; with `huge`, every `huge`-th row holds 10,000-element arrays. */
  def rows(n: Int, seed: Int, huge: Int = -1): Seq[Row] = {
    val r = new scala.util.Random(seed)
    def maybe[T](v: => T, nulls: Int = 5): Any = if (r.nextInt(nulls) == 0) null else v
    def list[T](max: Int, v: => T): Seq[T] = Seq.fill(r.nextInt(max + 1))(v)
    (0 until n).map { i =>
      Row(
        i,
        if (huge > 0 && i % huge == 0) Seq.tabulate(10000)(j => if (j % 97 == 0) null else s"t$j")
        else maybe(list(4, maybe(s"t${r.nextInt(30)}", 4))),
        if (huge > 0 && i % huge == 0) Seq.tabulate(10000)(j => j * i)
        else maybe(list(5, r.nextInt(1000) - 500)),
        maybe(list(3, s"k${r.nextInt(9)}").distinct.map(k => k -> maybe(r.nextInt(), 3)).toMap),
        maybe(Row(maybe(r.nextDouble() * 100), r.nextGaussian(), maybe(s"p${r.nextInt(5)}"))),
        maybe(list(3, maybe(Row(r.nextLong(), maybe(r.nextInt(50)),
          maybe(new BigDecimal(r.nextInt(9999999)).movePointLeft(2)),
          maybe(new BigDecimal(s"${r.nextLong()}${r.nextInt(1000000)}").movePointLeft(10)),
          maybe("n" * r.nextInt(3)))))),
        maybe(list(3, maybe(list(3, maybe(r.nextInt(10)))))),
        maybe(list(2, s"m${r.nextInt(4)}").distinct.map(k =>
          k -> maybe(Row(maybe(r.nextInt(7)), maybe(list(2, maybe("b")))))).toMap),
        maybe(Row(maybe(Row(maybe(Row(maybe(Row(maybe(list(3, r.nextLong())))))))))),
        maybe(list(3, maybe(new Timestamp(r.nextInt(2000000000) * 1000L + r.nextInt(1000))))),
        maybe(list(3, maybe(Date.valueOf(s"20${10 + r.nextInt(20)}-0${1 + r.nextInt(9)}-1${r.nextInt(9)}")))),
        maybe(Row(maybe(r.nextBoolean()), maybe(r.nextInt(256).toByte), maybe(r.nextInt(65536).toShort),
          maybe(Seq(Float.NaN, -0.0f, r.nextFloat())(r.nextInt(3))),
          maybe(Array.fill[Byte](r.nextInt(4))(r.nextInt(256).toByte)),
          maybe(java.time.LocalDateTime.of(2000 + r.nextInt(30), 1 + r.nextInt(12), 1, 0, 0)))),
        maybe(list(9, maybe(r.nextBoolean()))),
        maybe(list(4, maybe(r.nextInt(256).toByte))),
        maybe(list(4, maybe(r.nextInt(65536).toShort))),
        maybe(list(4, maybe(Seq(Float.NaN, -0.0f, 0.0f, r.nextFloat())(r.nextInt(4))))),
        maybe(list(3, maybe(Array.fill[Byte](r.nextInt(5))(r.nextInt(256).toByte)))),
        maybe(list(2, r.nextInt(100)).distinct.map(k =>
          k -> maybe(new BigDecimal(s"${r.nextLong()}").movePointLeft(3))).toMap))
    }
  }

  def frame(n: Int, seed: Int, huge: Int = -1, slices: Int = 2): DataFrame =
    spark.createDataFrame(spark.sparkContext.parallelize(rows(n, seed, huge), slices), schema)

  test("structs, arrays and maps at any depth, nulls and empties at every level") {
    val source = frame(3000, 1)
    val (ours, theirs) = compareWriters("nested")(source)
    assertSameLeafStatistics(ours, theirs)
    val read = spark.read.parquet(ours)
    Seq("size(tags) = 0", "tags is null", "exists(tags, x -> x is null)",
      "deep.a.b.c.d is not null and size(deep.a.b.c.d) > 0").foreach(assertSameCount(read, source, _))
  }

  test("10,000-element arrays: pages end only between records, where parquet-java's do") {
    // Small pages checked at every record; Spark's writer on v2 pages, and parquet-java's level
    // runs on our side: then the page cuts and the level bytes of each page must be its own.
    val write = (df: DataFrame, dir: String) => df.write.option("parquet.writer.version", "v2")
      .option("parquet.page.size", "8192").option("parquet.page.size.row.check.min", "1")
      .option("parquet.page.size.check.estimate", "false")
      .option("vecruntime.rle.parquet-java-runs", "true").parquet(dir)
    val (ours, theirs) = compareWriters("huge", write)(frame(200, 2, huge = 25, slices = 1))
    assertSameLeafStatistics(ours, theirs)
    val (po, pt) = (levelBytes(dataFiles(ours).head), levelBytes(dataFiles(theirs).head))
    assert(po("tags.list.element").size >= 8, po("tags.list.element"))
    assert(po == pt)
  }

  testOnDefaultLine("nested columns in v1 pages: Spark's writer's pages, levels and values to the byte") {
    // v1 keeps levels and values in one body: with parquet-java's level runs and the same
    // page checks, each decompressed page body must be Spark's writer's.
    val write = (df: DataFrame, dir: String) => df.write.option("parquet.writer.version", "v1")
      .option("parquet.page.size", "8192").option("parquet.page.size.row.check.min", "1")
      .option("parquet.page.size.check.estimate", "false")
      .option("vecruntime.rle.parquet-java-runs", "true").parquet(dir)
    val (ours, theirs) = compareWriters("nested-v1", write, pages = 1)(frame(1500, 1, huge = 5, slices = 1))
    assertSameLeafStatistics(ours, theirs)
    def bodies(f: File) = pagesOf(f) { p =>
      val v1 = p.asInstanceOf[org.apache.parquet.column.page.DataPageV1]
      (v1.getValueCount, v1.getDlEncoding, v1.getRlEncoding, v1.getValueEncoding,
        java.util.Arrays.hashCode(v1.getBytes.toByteArray))
    }
    val (po, pt) = (bodies(dataFiles(ours).head), bodies(dataFiles(theirs).head))
    assert(po("tags.list.element").size >= 4, po("tags.list.element"))
    pt.keys.foreach(k => assert(po(k) == pt(k), k))
  }

  test("nested columns in partitioned writes and CTAS") {
    val df = frame(500, 3).selectExpr("*", "id % 3 as p")
    val (ours, theirs) = (newDir("partitioned-ours"), newDir("partitioned-spark"))
    assert(usesVecRuntime(planOf(df.write.partitionBy("p").parquet(ours))))
    withConf(VecRuntimeConf.ENABLED -> "false")(df.write.partitionBy("p").parquet(theirs))
    for (vectorized <- Seq(false, true)) {
      val diff = firstDifference(readBack(ours, vectorized), readBack(theirs, vectorized))
      assert(diff.isEmpty, s"vectorized=$vectorized: $diff")
    }
    for (p <- 0 to 2) assertSameLeafStatistics(s"$ours/p=$p", s"$theirs/p=$p")
    val (input, _) = compareWriters("ctas-input")(frame(100, 4))
    val ctas = plansOf(
      spark.sql(s"CREATE TABLE nested_ctas USING parquet AS SELECT * FROM parquet.`$input`"))
    try {
      assert(ctas.exists(usesVecRuntime), ctas.mkString("\n"))
      val diff = firstDifference(canonical(spark.table("nested_ctas")), canonical(spark.read.parquet(input)))
      assert(diff.isEmpty, diff)
    } finally spark.sql("DROP TABLE nested_ctas")
  }

  test("writeLegacyFormat: bag/array and 2-level lists, key_value maps, decimals as fixed bytes") {
    withConf("spark.sql.parquet.writeLegacyFormat" -> "true") {
      val (ours, theirs) = compareWriters("legacy")(frame(2000, 6))
      assertSameLeafStatistics(ours, theirs)
      val text = footer(dataFiles(ours).head).getFileMetaData.getSchema.toString
      assert(text.contains("repeated group bag") && text.contains("repeated int32 array;") &&
        text.contains("(MAP_KEY_VALUE)") && text.contains("fixed_len_byte_array(4) price (DECIMAL(7,2))"),
        text)
      // Flat decimals of every width, and a columnar source (converted from rows).
      val flat = spark.range(0, 3000).selectExpr("cast(id * 37 - 50000 as decimal(7,2)) as d7",
        "cast(id * 1234567 - 99 as decimal(18,3)) as d18", "cast(id as decimal(30,5)) as d30",
        "cast(null as decimal(9,1)) as dnull", "id")
      val (src, _) = compareWriters("legacy-flat")(flat)
      compareWriters("legacy-columnar")(spark.read.parquet(src))
    }
  }

  test("bloom filters and page indexes per nested leaf, where Spark's writer has them") {
    val write = (df: DataFrame, dir: String) => df.write
      .option("parquet.bloom.filter.enabled#tags.list.element", "true")
      .option("parquet.bloom.filter.enabled#items.list.element.item", "true").parquet(dir)
    val (ours, theirs) = compareWriters("bloom", write)(frame(3000, 7).select("id", "tags", "attrs", "items"))
    def indexes(dir: String) = dataFiles(dir).flatMap(f => footer(f).getBlocks.asScala)
      .flatMap(_.getColumns.asScala).groupBy(_.getPath.toDotString).map { case (path, chunks) =>
        path -> chunks.map(c => (c.getBloomFilterOffset >= 0, c.getColumnIndexReference != null,
          c.getOffsetIndexReference != null)).distinct
      }
    val (io, it) = (indexes(ours), indexes(theirs))
    assert(io == it)
    // Unique longs: the dictionary falls back, and the leaf gets its bloom filter.
    assert(io("items.list.element.item") == Seq((true, true, true)), io)
    assert(io("items.list.element.qty") == Seq((false, true, true)), io)
  }

  /** A random type at most `depth` containers deep; map keys are never null. */
  def randomType(r: scala.util.Random, depth: Int): DataType = {
    val leaves = Seq(BooleanType, ByteType, ShortType, IntegerType, LongType, FloatType, DoubleType,
      DecimalType(5, 2), DecimalType(15, 3), DecimalType(25, 4), DateType, TimestampType,
      TimestampNTZType, StringType, BinaryType)
    if (depth == 0 || r.nextInt(3) == 0) leaves(r.nextInt(leaves.size))
    else r.nextInt(3) match {
      case 0 => StructType((0 to r.nextInt(3)).map(i =>
        StructField(s"f$i", randomType(r, depth - 1), nullable = r.nextInt(4) > 0)))
      case 1 => ArrayType(randomType(r, depth - 1), containsNull = r.nextBoolean())
      case _ => MapType(Seq(IntegerType, StringType, LongType)(r.nextInt(3)),
        randomType(r, depth - 1), valueContainsNull = r.nextBoolean())
    }
  }

  /** A random value of `t` (null only where `nullable`), small collections, empty ones too. */
  def randomValue(r: scala.util.Random, t: DataType, nullable: Boolean): Any = {
    if (nullable && r.nextInt(5) == 0) return null
    t match {
      case BooleanType => r.nextBoolean()
      case ByteType => r.nextInt(256).toByte
      case ShortType => r.nextInt(65536).toShort
      case IntegerType => r.nextInt(100) - 50
      case LongType => r.nextLong()
      case FloatType => Seq(Float.NaN, -0.0f, r.nextFloat())(r.nextInt(3))
      case DoubleType => r.nextGaussian()
      case d: DecimalType => new BigDecimal(BigInt(d.precision * 3, r.self).bigInteger, d.scale)
      case DateType => Date.valueOf(s"20${10 + r.nextInt(20)}-0${1 + r.nextInt(9)}-1${r.nextInt(9)}")
      case TimestampType => new Timestamp(r.nextInt(2000000000) * 1000L + r.nextInt(1000))
      case TimestampNTZType => java.time.LocalDateTime.of(1970 + r.nextInt(60), 1 + r.nextInt(12), 1, r.nextInt(24), 0)
      case StringType => "s" * r.nextInt(3) + r.nextInt(20)
      case BinaryType => Array.fill[Byte](r.nextInt(4))(r.nextInt(256).toByte)
      case s: StructType => Row(s.fields.map(f => randomValue(r, f.dataType, f.nullable)): _*)
      case a: ArrayType => Seq.fill(r.nextInt(4))(randomValue(r, a.elementType, a.containsNull))
      case m: MapType => Seq.fill(r.nextInt(4))(randomValue(r, m.keyType, nullable = false)).distinct
        .map(k => k -> randomValue(r, m.valueType, m.valueContainsNull)).toMap
    }
  }

  test("200 random nested schemas, nulls at every level, standard and legacy layouts") {
    val r = new scala.util.Random(20261201)
    for (frame <- 0 until 10) {
      val types = StructType((0 until 20).map(c =>
        StructField(s"c$c", randomType(r, 1 + r.nextInt(4)), nullable = r.nextInt(5) > 0)))
      val rows = (0 until 150).map(_ => Row(types.fields.map(f => randomValue(r, f.dataType, f.nullable)): _*))
      val df = spark.createDataFrame(spark.sparkContext.parallelize(rows, 2), types)
      withConf("spark.sql.parquet.writeLegacyFormat" -> (frame % 2 == 1).toString) {
        val (ours, theirs) = compareWriters(s"random-$frame")(df)
        assertSameLeafStatistics(ours, theirs)
      }
    }
  }

  test("timestamps inside nested values take the output timestamp type") {
    for (ts <- Seq("INT96", "TIMESTAMP_MICROS", "TIMESTAMP_MILLIS")) {
      withConf("spark.sql.parquet.outputTimestampType" -> ts) {
        compareWriters(s"nested-$ts")(frame(300, 5).select("id", "ts", "small"))
      }
    }
  }
}
