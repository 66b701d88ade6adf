package io.vecruntime.spark

import java.io.File

import scala.jdk.CollectionConverters._

import io.vecruntime.parquet.{ColumnarParquetWriter, NativeBuffer}
import org.apache.spark.sql.execution.columnar.vecruntime.CachedColumnsExec

import org.scalatest.concurrent.Eventually._
import org.scalatest.time.{Millis, Seconds, Span}

import org.apache.spark.SparkException
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.types._

/**
 * Each case is written by vecruntime and by Spark's own writer (vecruntime switched off), both
 * read back with Spark's vectorized and row readers and compared row by row, with the Spark
 * schema, the Parquet schema and the footer key/value metadata.
 */
class VectorWriteSuite extends VecRuntimeSparkSession with AllTypesData {

  test("every flat type with nulls and edge values, Spark's default codec (snappy)") {
    val source = allTypesDf()
    val (ours, _) = compareWriters("types")(source)
    val read = spark.read.parquet(ours)
    assertSameCount(read, source, "length(s) = 100000")
    assertSameCount(read, source, "date < date'1582-01-01'")
  }

  test("codec none with numeric columns only: written natively, read right") {
    val (ours, _) = compareWriters("codec-none-numeric",
      (df, dir) => df.write.option("compression", "none").parquet(dir))(
      allTypesDf(3000).select("id", "b", "i8", "i16", "i32", "i64", "f", "d", "dec7", "dec18", "date", "ts_ntz"))
    assert(footer(dataFiles(ours).head).getBlocks.get(0).getColumns.get(0).getCodec.name == "UNCOMPRESSED")
  }

  test("codec none with byte-string columns: natively in v1 pages, as Spark's writer writes them") {
    val (ours, _) = compareWriters("codec-none", (df, dir) => df.write.option("compression", "none").parquet(dir),
      pages = 1)(allTypesDf(3000))
    assert(footer(dataFiles(ours).head).getBlocks.get(0).getColumns.get(0).getCodec.name == "UNCOMPRESSED")
    // Why v1: parquet-java's own v2 writer (Spark's writer with parquet.writer.version=v2)
    // makes files that Spark's vectorized reader misreads. When this starts failing, Spark has
    // fixed its reader and such writes can have v2 pages.
    val v2 = newDir("spark-v2-none")
    withConf(VecRuntimeConf.ENABLED -> "false") {
      allTypesDf(500).write.option("compression", "none").option("parquet.writer.version", "v2").parquet(v2)
    }
    // Spark 4.0's reader reads them right, 4.1's and 4.2's do not; files outlive their writer.
    val misread = firstDifference(readBack(v2, vectorized = true), readBack(v2, vectorized = false))
    assert(misread.isDefined == sparkAtLeast("4.1"),
      "Spark's vectorized reader now reads uncompressed v2 pages right: the v1 default can go")
  }

  for ((version, how) <- Seq("v1" -> "option", "PARQUET_1_0" -> "Hadoop setting")) {
    test(s"parquet.writer.version=$version as a $how: natively in v1 pages, parquet-java's v1 encodings") {
      val hadoopConf = spark.sparkContext.hadoopConfiguration
      val write = (df: DataFrame, dir: String) =>
        if (how == "option") df.write.option("parquet.writer.version", version).parquet(dir)
        else df.write.parquet(dir)
      if (how != "option") hadoopConf.set("parquet.writer.version", version)
      try {
        val (ours, theirs) = compareWriters(s"v1-$version", write, pages = 1)(allTypesDf())
        // Chunk by chunk the encodings Spark's writer chose: PLAIN_DICTIONARY or PLAIN, levels
        // named RLE / BIT_PACKED, no dictionary for FIXED_LEN_BYTE_ARRAY.
        def encodings(dir: String) = dataFiles(dir).flatMap(f => footer(f).getBlocks.asScala.flatMap(
          _.getColumns.asScala.map(c => c.getPath.toDotString -> c.getEncodings.asScala.map(_.name).toSet)))
          .groupBy(_._1).map { case (k, v) => k -> v.flatMap(_._2).toSet }
        assert(pageVersions(dataFiles(theirs).head) == Set(1))
        assert(encodings(ours) == encodings(theirs))
        assert(encodings(ours)("dec38") == Set("PLAIN", "RLE", "BIT_PACKED"), encodings(ours)("dec38"))
      } finally hadoopConf.unset("parquet.writer.version")
    }
  }

  testSince("4.1")("TIME and ANSI intervals, flat and nested, rows and columnar input, as Spark's writer writes them") {
    withConf("spark.sql.timeType.enabled" -> "true") {
      val t = "make_time(cast(id % 24 as int), cast(id % 60 as int), cast((id * 7919 % 60000) / 1000.0 as decimal(16, 6)))"
      val df = spark.range(0, 3000, 1, 2).selectExpr("id",
        s"case when id % 11 = 5 then null else $t end as t",
        "case when id % 13 = 2 then null else make_ym_interval(cast(id % 100 as int), cast(id % 12 as int)) end as ym",
        "make_dt_interval(id % 10, id % 24, id % 60, id % 60) as dt",
        s"named_struct('t', $t, 'arr', array(make_dt_interval(id % 3, 0, 0, 0), null)) as nested")
      val (ours, _) = compareWriters("time-intervals")(df)
      val t0 = footer(dataFiles(ours).head).getFileMetaData.getSchema.getFields.get(1)
      assert(t0.getLogicalTypeAnnotation.toString == "TIME(MICROS,false)", t0)
      // Written again from a Parquet scan (columnar batches where Spark's reader makes them).
      compareWriters("time-intervals-scan")(spark.read.parquet(ours))
    }
  }

  testSince("4.1")("void columns, flat and nested, as Spark's writer writes them") {
    val df = spark.range(0, 500, 1, 2).selectExpr("id", "null as v", "array(null, null) as arr",
      "named_struct('n', null, 'i', id) as st")
    val (ours, _) = compareWriters("void")(df)
    val v = footer(dataFiles(ours).head).getFileMetaData.getSchema.getFields.get(1)
    assert(v.toString == "optional boolean v (UNKNOWN)", v)
  }

  testSince("4.0")("collated strings, flat and nested, as Spark's writer writes them") {
    val df = spark.range(0, 2000, 1, 2).selectExpr("id",
      "collate(concat('Value ', id % 37), 'UTF8_LCASE') as lcase",
      "case when id % 9 = 4 then null else collate(concat('ß', id % 5), 'UNICODE_CI') end as unicode_ci",
      "array(collate(cast(id as string), 'UTF8_LCASE')) as arr")
    val (ours, _) = compareWriters("collated")(df)
    assert(TestShims.collated(spark.read.parquet(ours).schema("lcase").dataType))
  }

  test("pages over 128 KiB with lz4 (Hadoop framing) and gzip, read back by parquet-java and Spark") {
    // Incompressible longs without a dictionary: 1 MiB pages stay above one 128 KiB block.
    val df = spark.range(0, 150000, 1, 1).selectExpr("id", "xxhash64(id) as h",
      "sha2(cast(id as string), 256) as s")
    for (codec <- Seq("lz4", "gzip")) {
      val write = (d: DataFrame, dir: String) => d.write.option("compression", codec)
        .option("parquet.enable.dictionary", "false").option("parquet.page.size", 1 << 20).parquet(dir)
      val (ours, theirs) = (newDir(s"big-pages-$codec"), newDir(s"big-pages-$codec-spark"))
      assert(usesVecRuntime(planOf(write(df, ours))))
      withConf(VecRuntimeConf.ENABLED -> "false") { write(df, theirs) }
      val compressed = pagesOf(dataFiles(ours).head)(_.getCompressedSize)
      assert(compressed("h").max > 128 * 1024, s"$codec: pages of h ${compressed("h")}")
      // parquet-java's reader, row by row, and Spark's readers, against Spark's own file.
      assertSameTree(ours, theirs)
    }
  }

  for (codec <- Seq("snappy", "gzip", "zstd", "lz4", "lz4_raw")) {
    test(s"codec $codec, names and footers as Spark's") {
      val (ours, _) = compareWriters(s"codec-$codec",
        (df, dir) => df.write.option("compression", codec).parquet(dir))(allTypesDf(500))
      val expected = codec.toUpperCase
      dataFiles(ours).foreach { f =>
        assert(footer(f).getBlocks.get(0).getColumns.get(0).getCodec.name == expected)
      }
    }
  }

  for (tsType <- Seq("INT96", "TIMESTAMP_MICROS", "TIMESTAMP_MILLIS")) {
    test(s"timestamps as $tsType") {
      withConf("spark.sql.parquet.outputTimestampType" -> tsType) {
        compareWriters(s"ts-$tsType")(allTypesDf(300).select("id", "ts", "ts_ntz", "date"))
      }
    }
  }

  test("Spark's Parquet settings reach the native writer; field ids as Spark writes them") {
    val withIds = StructType(allTypes.fields.zipWithIndex.map { case (f, i) =>
      f.copy(metadata = new MetadataBuilder().putLong("parquet.field.id", 100L + i).build())
    })
    val df = spark.createDataFrame(spark.sparkContext.parallelize(allTypesRows(3000), 1), withIds)
    withConf("spark.sql.parquet.fieldId.write.enabled" -> "true") {
      // A zstd level is Spark's writer's on Spark 3.5 (FallbackSuite).
      val level = if (sparkAtLeast("4.0")) Map("parquet.compression.codec.zstd.level" -> "9") else Map.empty[String, String]
      val (ours, _) = compareWriters("settings", (d, dir) => d.write
        .option("compression", "zstd")
        .options(level)
        .option("parquet.block.size", "65536")
        .option("parquet.enable.dictionary#s", "false")
        .option("parquet.enable.dictionary#i64", "false") // all-dictionary chunks get no bloom filter
        .option("parquet.bloom.filter.enabled#i64", "true")
        .option("parquet.bloom.filter.expected.ndv#i64", "5000")
        .parquet(dir))(df)
      val f = footer(dataFiles(ours).head)
      val schema: org.apache.parquet.schema.GroupType = f.getFileMetaData.getSchema
      assert(schema.getType(4).getName == "i32" && schema.getType(4).getId.intValue() == 104)
      assert(f.getBlocks.size > 1, "parquet.block.size cut several row groups")
      val cols = f.getBlocks.get(0).getColumns.asScala.map(c => c.getPath.toDotString -> c).toMap
      assert(cols("s").getEncodingStats.getDictionaryEncodings.isEmpty, "no dictionary for s")
      assert(!cols("i32").getEncodingStats.getDictionaryEncodings.isEmpty, "dictionary for i32")
      assert(cols("i64").getBloomFilterOffset > 0, "bloom filter for i64")
      assert(cols("i32").getBloomFilterOffset <= 0, "no bloom filter for i32")
      assert(cols("i64").getCodec.name == "ZSTD")
    }
  }

  test("a columnar child (Parquet scan) is consumed batch by batch") {
    val src = newDir("columnar-src")
    withConf(VecRuntimeConf.ENABLED -> "false") {
      allTypesDf(5000).write.parquet(src)
    }
    def columnar(plan: org.apache.spark.sql.execution.SparkPlan) =
      nodesOf(plan).collect { case v: VectorWriteFilesExec => v.columnarInput }.contains(true)
    for (batchSize <- Seq("4096", "333")) {
      withConf("spark.sql.parquet.columnarReaderBatchSize" -> batchSize) {
        val (ours, _) = compareWriters(s"columnar-scan-$batchSize")(spark.read.parquet(src))
        assert(columnar(planOf(spark.read.parquet(src).write.parquet(newDir("columnar-plan")))))
        assert(spark.read.parquet(ours).count() == 5000)
      }
    }
    // A scan coalesced into one file: its batches still read in bulk.
    val (one, _) = compareWriters("columnar-coalesced")(spark.read.parquet(src).coalesce(1))
    assert(dataFiles(one).size == 1)
    assert(columnar(planOf(spark.read.parquet(src).coalesce(1).write.parquet(newDir("coalesced-plan")))))
    // Files rolled in the middle of a batch; cached tables.
    val (rolled, _) = compareWriters("columnar-rolled",
      (df, dir) => df.write.option("maxRecordsPerFile", 777).parquet(dir))(spark.read.parquet(src))
    assert(dataFiles(rolled).map(f => footer(f).getBlocks.asScala.map(_.getRowCount).sum).forall(_ <= 777))
    val cached = spark.read.parquet(src).cache()
    try {
      compareWriters("columnar-cached")(cached)
    } finally cached.unpersist()
    val numeric = spark.read.parquet(src).select("id", "b", "i8", "i16", "i32", "i64", "f", "d").cache()
    try {
      compareWriters("columnar-cached-numeric")(numeric)
    } finally numeric.unpersist()
    withConf(VecRuntimeConf.COLUMNAR_INPUT -> "false") {
      val plan = planOf(spark.read.parquet(src).write.parquet(newDir("rows-plan")))
      assert(usesVecRuntime(plan) && !columnar(plan))
    }
  }

  // Slow: Spark's cache format and the rule that finds its scan are the same on every line, and
  // the staged case takes the query-stage path 3.5 takes for every cached write.
  test("a cached table Spark reads as rows only is decoded batch by batch", Slow) {
    def decoded(plan: org.apache.spark.sql.execution.SparkPlan) = nodesOf(plan).exists(_.isInstanceOf[CachedColumnsExec])
    // Batches of 3,000 rows: a partition's last one shorter; nulls spread over every scheme.
    val cached = withConf("spark.sql.inMemoryColumnarStorage.batchSize" -> "3000") {
      val df = cacheSchemesDf(20000).cache()
      df.count()
      df
    }
    try {
      assert(cachedSchemes(cached) == (0 to 5).toSet, "every compression scheme of Spark's cache")
      compareWriters("cached-schemes")(cached)
      assert(decoded(planOf(cached.write.parquet(newDir("cached-plan")))))
      // Files rolled in the middle of a batch: the rows from there on.
      val (rolled, _) = compareWriters("cached-rolled",
        (df, dir) => df.write.option("maxRecordsPerFile", 777).parquet(dir))(cached)
      assert(dataFiles(rolled).size == 26)
    } finally cached.unpersist()
    // A cached plan with an exchange: adaptive execution wraps the cache's scan in a query stage.
    val staged = cacheSchemesDf(6000).repartition(2).cache()
    try {
      staged.count()
      compareWriters("cached-staged")(staged)
      assert(decoded(planOf(staged.write.parquet(newDir("cached-staged-plan")))))
    } finally staged.unpersist()
    // A wide decimal (not stored in fixed width): Spark's rows.
    val wide = spark.range(0, 1000).selectExpr("id", "cast(id as decimal(20, 2)) as w").cache()
    try {
      val plan = planOf(wide.write.parquet(newDir("cached-wide")))
      assert(usesVecRuntime(plan) && !decoded(plan))
    } finally wide.unpersist()
  }

  test("a projection over a scan's batches is evaluated into batches") {
    val src = newDir("project-src")
    withConf(VecRuntimeConf.ENABLED -> "false") {
      allTypesDf(5000).write.parquet(src)
    }
    def projected(plan: org.apache.spark.sql.execution.SparkPlan) =
      nodesOf(plan).exists(_.isInstanceOf[ColumnarProjectExec])
    // Computed columns of each fixed width, nulls from the input and from the expression, a
    // renamed and a moved column, each partition's own ids; batches of 333 rows.
    def df = spark.read.parquet(src).selectExpr("s", "i64 as renamed",
      "date_add(date, cast(i8 as int)) as day", "i32 % 1000 * 2 + i16 as i", "if(b, i64, null) as l",
      "dec7 * 3 as dec", "cast(dec18 / 2 as decimal(18, 6)) as dec18", "d / 2 as half", "cast(f as double) as fd",
      "ts + make_interval(0, 0, 0, 1) as later", "not b as nb", "cast(i8 as short) as sh",
      "monotonically_increasing_id() as mid", "id")
    withConf("spark.sql.parquet.columnarReaderBatchSize" -> "333") {
      assert(df.rdd.getNumPartitions >= 2, "partitions of their own ids")
      compareWriters("project")(df)
      val plan = planOf(df.write.parquet(newDir("project-plan")))
      assert(projected(plan), plan.treeString)
    }
    // Batches beyond the vectors' first capacity (4,096), files rolled in the middle of a batch,
    // and two partitions coalesced into one task (each partition's vectors closed after its
    // batches: the writer must have copied the last one).
    val large = newDir("project-large")
    withConf(VecRuntimeConf.ENABLED -> "false") {
      spark.range(0, 30000, 1, 2).selectExpr("id", "if(id % 7 = 0, null, id * 3) as x").write.parquet(large)
    }
    def wide = spark.read.parquet(large).selectExpr("x * 2 + 1 as y", "cast(x % 100 as tinyint) as b",
      "cast(x as float) / 3 as f", "cast(timestamp_seconds(x) as timestamp_ntz) as ntz",
      "cast(null as int) + id as nothing", "id")
    withConf("spark.sql.parquet.columnarReaderBatchSize" -> "10000") {
      assert(spark.read.parquet(large).rdd.getNumPartitions == 2)
      compareWriters("project-large")(wide)
      val (rolled, _) = compareWriters("project-rolled",
        (df, dir) => df.write.option("maxRecordsPerFile", 777).parquet(dir))(wide)
      assert(dataFiles(rolled).size >= 39)
      val (one, _) = compareWriters("project-coalesced")(wide.coalesce(1))
      assert(dataFiles(one).size == 1)
      assert(projected(planOf(wide.coalesce(1).write.parquet(newDir("project-coalesced-plan")))))
    }
    // A computed string or wide decimal keeps Spark's rows.
    for (e <- Seq("concat(s, 'x')", "dec18 + 1")) {
      val plan = planOf(spark.read.parquet(src).selectExpr("id", e).write.parquet(newDir("project-rows")))
      assert(usesVecRuntime(plan) && !projected(plan), e)
    }
    // An expression's error is Spark's own (ANSI overflow), the write fails as Spark's does.
    withConf("spark.sql.ansi.enabled" -> "true") {
      val overflow = spark.read.parquet(src).selectExpr("id", "cast(i64 * 1000000000000 as int) as x")
      val ours = intercept[Exception](overflow.write.parquet(newDir("project-error-ours")))
      val theirs = withConf(VecRuntimeConf.ENABLED -> "false") {
        intercept[Exception](overflow.write.parquet(newDir("project-error-spark")))
      }
      def rootCause(t: Throwable): Throwable = if (t.getCause == null) t else rootCause(t.getCause)
      assert(rootCause(ours).getClass == rootCause(theirs).getClass, ours)
      assert(rootCause(ours).getMessage.contains("CAST_OVERFLOW") ||
        rootCause(ours).getMessage.contains("ARITHMETIC_OVERFLOW"), rootCause(ours))
    }
  }

  test("write statistics as Spark's: numFiles, numOutputRows, numOutputBytes") {
    def metrics(plan: org.apache.spark.sql.execution.SparkPlan) = writeMetrics(Seq(plan))
    val df = allTypesDf(3000).repartition(3)
    val ours = newDir("metrics-ours")
    val o = metrics(planOf(df.write.option("maxRecordsPerFile", 700).parquet(ours)))
    val t = withConf(VecRuntimeConf.ENABLED -> "false") {
      metrics(planOf(df.write.option("maxRecordsPerFile", 700).parquet(newDir("metrics-spark"))))
    }
    assert(o("numFiles") == t("numFiles") && o("numFiles") == dataFiles(ours).size, (o, t))
    assert(o("numOutputRows") == 3000 && t("numOutputRows") == 3000, (o, t))
    assert(o("numOutputBytes") == dataFiles(ours).map(_.length).sum, (o, t))
  }

  test("compression precedence as Spark's: option, then parquet.compression, then the session codec") {
    def codecOf(dir: String) = footer(dataFiles(dir).head).getBlocks.get(0).getColumns.get(0).getCodec.name
    val df = allTypesDf(50)
    val cases: Seq[(Seq[(String, String)], Map[String, String], String)] = Seq(
      (Seq("spark.sql.parquet.compression.codec" -> "zstd"), Map.empty, "ZSTD"),
      (Seq("spark.sql.parquet.compression.codec" -> "zstd"), Map("parquet.compression" -> "gzip"), "GZIP"),
      (Seq("spark.sql.parquet.compression.codec" -> "zstd"),
        Map("parquet.compression" -> "gzip", "compression" -> "lz4_raw"), "LZ4_RAW"))
    for ((session, options, expected) <- cases) {
      withConf(session: _*) {
        val ours = newDir("precedence-ours")
        assert(usesVecRuntime(planOf(df.write.options(options).parquet(ours))))
        val theirs = newDir("precedence-spark")
        withConf(VecRuntimeConf.ENABLED -> "false")(df.write.options(options).parquet(theirs))
        assert(codecOf(ours) == expected && codecOf(theirs) == expected, (session, options))
        assert(dataFiles(ours).map(_.getName.split('.').drop(1).mkString(".")) ==
          dataFiles(theirs).map(_.getName.split('.').drop(1).mkString(".")), "file extension")
      }
    }
  }

  // Spark 3.5 records no per-task peak of the memory manager in its task metrics.
  testSince("4.0")("native memory is accounted in Spark's memory manager") {
    val peaks = new java.util.concurrent.ConcurrentLinkedQueue[Long]()
    val listener = new org.apache.spark.scheduler.SparkListener {
      override def onTaskEnd(e: org.apache.spark.scheduler.SparkListenerTaskEnd): Unit =
        if (e.taskMetrics != null) peaks.add(TestShims.peakExecutionMemory(e.taskMetrics))
    }
    spark.sparkContext.addSparkListener(listener)
    try {
      val df = spark.range(0, 200000, 1, 1).selectExpr("id", "cast(id as string) as s")
      df.write.parquet(newDir("memory-ours"))
      org.apache.spark.vecruntime.ListenerShim.waitUntilEmpty(spark.sparkContext)
      // The writer holds a row batch and a row group's pages: megabytes, accounted.
      assert(peaks.asScala.max > (1L << 20), peaks)
    } finally spark.sparkContext.removeSparkListener(listener)
  }

  test("columns and struct fields with empty names, as Spark's writer writes them") {
    import org.apache.spark.sql.functions.{col, lit, map, struct}
    val df = spark.range(0, 3000, 1, 2).select(col("id").as(""),
      struct(col("id").as(""), (col("id") * 2).as("b")).as("s"),
      map(lit(""), col("id")).as("m"), (col("id") % 7).as("x"))
    compareWriters("empty-names")(df)
  }

  test("filtered and projected input") {
    compareWriters("filtered")(allTypesDf().where("id % 3 = 1").selectExpr("s", "id * 2 AS id2", "dec38", "d"))
  }

  test("maxRecordsPerFile rolls files in the middle of a batch") {
    val (ours, theirs) = compareWriters("maxrecords",
      (df, dir) => df.write.option("maxRecordsPerFile", 333).parquet(dir))(allTypesDf(2000).repartition(2))
    val counts = dataFiles(ours).map(f => footer(f).getBlocks.asScala.map(_.getRowCount).sum)
    assert(counts.forall(_ <= 333) && counts.sum == 2000, counts)
    assert(dataFiles(ours).size == dataFiles(theirs).size)
  }

  test("empty input writes one schema-only file, as Spark") {
    val (ours, theirs) = compareWritersEmpty()
    assert(dataFiles(ours).size == 1 && dataFiles(theirs).size == 1)
    assert(footer(dataFiles(ours).head).getBlocks.isEmpty)
  }

  def compareWritersEmpty(): (String, String) = {
    val ours = newDir("empty-ours")
    val theirs = newDir("empty-spark")
    val df = allTypesDf(10).where("id < 0")
    assert(usesVecRuntime(planOf(df.write.parquet(ours))))
    withConf(VecRuntimeConf.ENABLED -> "false")(df.write.parquet(theirs))
    assert(spark.read.parquet(ours).schema == spark.read.parquet(theirs).schema)
    assert(spark.read.parquet(ours).count() == 0)
    (ours, theirs)
  }

  test("CTAS, INSERT INTO and INSERT OVERWRITE") {
    allTypesDf(400).createOrReplaceTempView("src")
    for ((t, on) <- Seq("t_ours" -> "true", "t_spark" -> "false")) {
      withConf(VecRuntimeConf.ENABLED -> on) {
        spark.sql(s"DROP TABLE IF EXISTS $t")
        val ctas = planOf(spark.sql(s"CREATE TABLE $t USING parquet AS SELECT * FROM src WHERE id < 200"))
        val insert = planOf(spark.sql(s"INSERT INTO $t SELECT * FROM src WHERE id >= 200"))
        assert(usesVecRuntime(insert) == on.toBoolean, insert)
        assert(spark.table(t).count() == 400)
      }
    }
    assertSameOutput(tableDir("t_ours"), tableDir("t_spark"))
    for ((t, on) <- Seq("t_ours" -> "true", "t_spark" -> "false")) {
      withConf(VecRuntimeConf.ENABLED -> on) {
        val plan = planOf(spark.sql(s"INSERT OVERWRITE TABLE $t SELECT * FROM src WHERE id % 2 = 0"))
        assert(usesVecRuntime(plan) == on.toBoolean, plan)
        assert(spark.table(t).count() == 200)
      }
    }
    assertSameOutput(tableDir("t_ours"), tableDir("t_spark"))
  }

  test("AQE on and off") {
    for (aqe <- Seq("true", "false")) {
      withConf("spark.sql.adaptive.enabled" -> aqe) {
        compareWriters(s"aqe-$aqe")(allTypesDf(500).groupBy("s").count())
      }
    }
  }

  test("switched off and on at run time with spark.conf.set") {
    val off = newDir("toggle-off")
    spark.conf.set(VecRuntimeConf.ENABLED, "false")
    try assert(!usesVecRuntime(planOf(allTypesDf(10).write.parquet(off))))
    finally spark.conf.set(VecRuntimeConf.ENABLED, "true")
    assert(footer(dataFiles(off).head).getFileMetaData.getCreatedBy.startsWith("parquet-mr"))
    val on = newDir("toggle-on")
    assert(usesVecRuntime(planOf(allTypesDf(10).write.parquet(on))))
    assert(footer(dataFiles(on).head).getFileMetaData.getCreatedBy.startsWith("vecruntime"))
  }

  test("a failing output stream is Spark's TASK_WRITE_FAILED, nothing committed, memory released") {
    val memoryBefore = NativeBuffer.allocatedBytes()
    val writersBefore = ColumnarParquetWriter.openWriters()
    val dir = newDir("failing")
    val e = intercept[SparkException] {
      allTypesDf(20000).write
        .option("fs.failing.impl", classOf[FailingFileSystem].getName)
        .option("fs.failing.impl.disable.cache", "true")
        .option("parquet.block.size", "65536")
        .parquet("failing://" + dir)
    }
    val messages = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null)
      .map(t => s"${t.getClass.getName}: ${t.getMessage}").toSeq
    assert(messages.exists(_.contains("TASK_WRITE_FAILED")), messages.mkString("\n"))
    assert(messages.exists(_.contains("disk full")), messages.mkString("\n"))
    assert(dataFiles(dir).isEmpty, "no data file committed")
    assert(!new File(dir, "_SUCCESS").exists())
    // The job's other tasks are being killed as the failure returns: their writers are
    // released as those tasks end.
    eventually(timeout(Span(30, Seconds)), interval(Span(100, Millis))) {
      assert(NativeBuffer.allocatedBytes() == memoryBefore, "native buffers released")
      assert(ColumnarParquetWriter.openWriters() == writersBefore, "native writers released")
    }
  }

  testOnDefaultLine("definition levels: smaller than Spark v2's, or its own bytes with parquet-java runs") {
    val df = allTypesDf(30000)
    val theirs = newDir("levels-spark-v2")
    withConf(VecRuntimeConf.ENABLED -> "false") {
      df.write.option("parquet.writer.version", "v2").parquet(theirs)
    }
    val same = newDir("levels-parquet-java-runs")
    df.write.option("vecruntime.rle.parquet-java-runs", "true").parquet(same)
    val ours = newDir("levels-default")
    df.write.parquet(ours)
    assert(canonical(spark.read.parquet(ours)) == canonical(df))
    val files = Seq(theirs, same, ours).map(dataFiles)
    assert(files.forall(_.size == files.head.size) && files.head.nonEmpty)
    for (i <- files.head.indices) {
      val Seq(t, s, o) = files.map(fs => levelBytes(fs(i)))
      assert(s == t, s"file $i: levels with parquet-java runs")
      assert(o.keySet == t.keySet)
      for ((col, pages) <- t) {
        assert(o(col).size == pages.size, col)
        o(col).zip(pages).foreach { case (a, b) => assert(a <= b, s"$col: ${o(col)} vs $pages") }
      }
      assert(o.values.flatten.sum < t.values.flatten.sum * 0.9, s"file $i: ${o.values.flatten.sum} vs ${t.values.flatten.sum}")
    }
  }

  test("data files are created with a stream buffer of at least 1 MiB, or io.file.buffer.size") {
    def buffers(dir: String, options: (String, String)*): Seq[Int] = {
      RecordingFileSystem.bufferSizes.clear()
      allTypesDf(1000).repartition(2).write
        .option("fs.recording.impl", classOf[RecordingFileSystem].getName)
        .option("fs.recording.impl.disable.cache", "true")
        .options(options.toMap)
        .parquet("recording://" + dir)
      assert(dataFiles(dir).size == 2)
      RecordingFileSystem.bufferSizes.asScala.collect {
        case (p, size) if p.contains("part-") => size
      }.toSeq
    }
    val default = buffers(newDir("buffer-default"))
    assert(default.size == 2 && default.forall(_ == VectorParquetOutputWriter.MinStreamBuffer), default)
    val larger = buffers(newDir("buffer-larger"), "io.file.buffer.size" -> (4 << 20).toString)
    assert(larger.size == 2 && larger.forall(_ == (4 << 20)), larger)
  }

  // On Spark 3.5 those writes are Spark's (FallbackSuite): its codec keeps the JVM's first level.
  testSince("4.0")("gzip takes zlib.compress.level as Spark's writer does; a level Hadoop lacks fails both") {
    val df = allTypesDf(4000)
    def sizes(on: Boolean): Seq[Long] = withConf(VecRuntimeConf.ENABLED -> on.toString) {
      Seq("NO_COMPRESSION", "BEST_SPEED", "DEFAULT_COMPRESSION", "BEST_COMPRESSION").map { level =>
        val dir = newDir(s"gzip-$level-$on")
        val plan = planOf(df.write.option("compression", "gzip").option("zlib.compress.level", level)
          .parquet(dir))
        assert(usesVecRuntime(plan) == on)
        if (on) assert(canonical(spark.read.parquet(dir)) == canonical(df), level)
        dataFiles(dir).map(_.length).sum
      }
    }
    for ((name, s) <- Seq("ours" -> sizes(on = true), "Spark's" -> sizes(on = false))) {
      assert(s(0) > s(1) && s(1) > s(2) && s(2) >= s(3), s"$name sizes by level: $s")
    }
    for (on <- Seq(true, false)) withConf(VecRuntimeConf.ENABLED -> on.toString) {
      val e = intercept[SparkException] {
        df.write.option("compression", "gzip").option("zlib.compress.level", "FAST").parquet(newDir("gzip-bad"))
      }
      val messages = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).map(_.toString).toSeq
      assert(messages.exists(_.contains("FAST")), s"vecruntime on=$on: $messages")
    }
  }

  test("bad writer settings fail the task with the native writer's message") {
    val e = intercept[SparkException] {
      allTypesDf(100).write.option("parquet.page.size", "0").parquet(newDir("bad-option"))
    }
    val messages = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).map(_.getMessage).toSeq
    assert(messages.exists(m => m != null && m.contains("parquet.page.size must be in 1")), messages)
  }
}
