package io.vecruntime.spark

import org.apache.spark.sql.DataFrame

/**
 * Writes vecruntime does not take keep Spark's writer, with the reason shown in EXPLAIN (the
 * executed plan of the write, and `EXPLAIN` of the statement).
 */
class FallbackSuite extends VecRuntimeSparkSession {

  def df: DataFrame = spark.range(0, 100).selectExpr(
    "id", "cast(id as int) as i", "cast(id as string) as s", "date_add(date'2020-01-01', cast(id as int)) as d",
    "timestamp_seconds(id) as ts")

  /** Runs the write and checks Spark's writer did it, for the given reason. */
  def assertFallback(reason: String)(write: String => Unit): Unit = {
    val dir = newDir("fallback")
    val all = plansOf(write(dir))
    assert(!all.exists(usesVecRuntime), all.mkString("\n"))
    val text = all.flatMap(nodesOf).map(_.toString).mkString("\n")
    assert(text.contains(s"VecRuntimeFallback [Spark's writer: $reason"), text)
    dataFiles(dir).foreach { f =>
      assert(!footer(f).getFileMetaData.getCreatedBy.startsWith("vecruntime"))
    }
  }

  /** EXPLAIN of a statement, for writes Spark's writer cannot run here either. */
  def assertExplainFallback(sql: String, reason: String): Unit = {
    val text = explained(sql)
    assert(text.contains(s"VecRuntimeFallback [Spark's writer: $reason"), text)
  }

  test("not Parquet") {
    assertFallback("not a Parquet write (CSVFileFormat)")(dir => df.write.csv(dir))
  }

  test("a writer version parquet-java does not know: Spark's writer fails it as its own") {
    val dir = newDir("bad-version")
    val e = intercept[Exception](df.write.option("parquet.writer.version", "V1").parquet(dir))
    assert(Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null)
      .exists(_.getMessage.contains("V1")), e)
    df.createOrReplaceTempView("fallback_src")
    spark.sql("CREATE TABLE bad_version (id BIGINT) USING parquet OPTIONS ('parquet.writer.version' 'v3')")
    try assertExplainFallback("INSERT INTO bad_version SELECT id FROM fallback_src",
      "parquet.writer.version=v3 is not a version parquet-java knows")
    finally spark.sql("DROP TABLE bad_version")
  }

  // Spark 3.5, 4.1 and 4.2 write no type that vecruntime lacks; Spark 4.0 writes Variant (its
  // writer leaves the group unannotated: Spark's writer's).
  testSince("4.0")("a type vecruntime lacks, at any depth, named by its path") {
    assume(!sparkAtLeast("4.1"), "Spark 4.1 and 4.2 write no type vecruntime lacks")
    val v = "parse_json('{\"a\": 1}')"
    assertFallback("type variant of column 'v'")(dir =>
      df.selectExpr("id", s"$v as v").write.parquet(dir))
    assertFallback("type variant of column 'st.arr.element'")(dir =>
      df.selectExpr("id", s"named_struct('arr', array($v)) as st").write.parquet(dir))
    assertFallback("type variant of column 'm.value'")(dir =>
      df.selectExpr(s"map(id, $v) as m").write.parquet(dir))
  }

  testSince("4.3")("Spark 4.3's nanosecond TIME and timestamps keep Spark's writer") {
    // TIME(7) to TIME(9) are TIME(NANOS) in Spark 4.3's files, TIME(0) to TIME(6) TIME(MICROS).
    withConf("spark.sql.timeType.enabled" -> "true",
        "spark.sql.timestampNanosTypes.enabled" -> "true") {
      assertFallback("type time(9) of column 't'")(dir =>
        spark.sql("SELECT id, cast(time'12:34:56.123456789' AS time(9)) AS t FROM range(5)")
          .write.parquet(dir))
      assertFallback("type timestamp_ntz(9) of column 'st.n'")(dir =>
        spark.sql("SELECT named_struct('n', cast(timestamp_ntz'2020-01-01 00:00:00.123456789' " +
          "AS timestamp_ntz(9))) AS st FROM range(5)").write.parquet(dir))
      assertFallback("type timestamp_ltz(9) of column 'l'")(dir =>
        spark.sql("SELECT cast(timestamp'2020-01-01 00:00:00.123456789' AS timestamp_ltz(9)) AS l " +
          "FROM range(5)").write.parquet(dir))
      val dir = newDir("time6")
      assert(usesVecRuntime(planOf(spark.sql(
        "SELECT cast(time'12:34:56.123456789' AS time(6)) AS t FROM range(5)").write.parquet(dir))))
    }
  }

  test("Parquet encryption") {
    spark.sql("DROP TABLE IF EXISTS enc")
    spark.sql("CREATE TABLE enc (id BIGINT) USING parquet " +
      "OPTIONS ('parquet.crypto.factory.class' 'org.example.NoSuchFactory')")
    assertExplainFallback("INSERT INTO enc SELECT id FROM range(10)",
      "Parquet modular encryption (parquet.crypto.factory.class)")
  }

  test("a bloom filter cap below 32 bytes: Spark's writer fails it as its own") {
    def write(dir: String): Unit = df.write.option("parquet.bloom.filter.enabled", "true")
      .option("parquet.bloom.filter.max.bytes", "16").parquet(dir)
    if (sparkAtLeast("4.0")) {
      val e = intercept[Exception](write(newDir("bloom-cap")))
      assert(Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null)
        .exists(_.getMessage.contains("the minimum bytes should be less or equal than maximum bytes")), e)
    } else {
      // parquet-java 1.13 (Spark 3.5) writes it: Spark's writer does, as in any fallback.
      assertFallback("parquet.bloom.filter.max.bytes=16 is below the 32 bytes of parquet-java's " +
        "smallest bloom filter")(write)
    }
    // 32 is parquet-java's own minimum: written natively.
    assert(usesVecRuntime(planOf(df.write.option("parquet.bloom.filter.enabled#id", "true")
      .option("parquet.bloom.filter.max.bytes", "32").parquet(newDir("bloom-cap-32")))))
    spark.sql("CREATE TABLE bloom_cap (id BIGINT) USING parquet OPTIONS " +
      "('parquet.bloom.filter.enabled#id' 'true', 'parquet.bloom.filter.max.bytes' '31')")
    try assertExplainFallback("INSERT INTO bloom_cap SELECT id FROM range(10)",
      "parquet.bloom.filter.max.bytes=31 is below the 32 bytes of parquet-java's smallest bloom filter")
    finally spark.sql("DROP TABLE bloom_cap")
  }

  test("a gzip or zstd level where parquet-java's codec keeps the JVM's first (Spark 3.5)") {
    val writes = Seq("gzip" -> "zlib.compress.level" -> "BEST_SPEED",
      "zstd" -> "parquet.compression.codec.zstd.level" -> "9")
    for (((codec, key), level) <- writes) {
      def write(dir: String): Unit =
        df.write.option("compression", codec).option(key, level).parquet(dir)
      if (sparkAtLeast("4.0")) assert(usesVecRuntime(planOf(write(newDir(s"level-$codec")))))
      else assertFallback(s"$key with parquet-java 1.13.1, whose codec keeps the level of the " +
        "JVM's first write with it")(write)
    }
  }

  test("the census counts a write planned with the plugin off as such, whatever the setting is later") {
    // The census's listener runs after the write, when a test may have switched the plugin back.
    val off = withConf(VecRuntimeConf.ENABLED -> "false")(planOf(df.write.parquet(newDir("census-off"))))
    assert(WriteCensus.writes(off) == Seq("plugin off"), off)
    val on = planOf(df.write.parquet(newDir("census-on")))
    assert(WriteCensus.writes(on) == Seq("native"), on)
  }

  test("codecs vecruntime lacks: brotli, lzo") {
    for (codec <- Seq("brotli", "lzo")) {
      spark.sql(s"DROP TABLE IF EXISTS c_$codec")
      spark.sql(s"CREATE TABLE c_$codec (id BIGINT) USING parquet OPTIONS ('compression' '$codec')")
      assertExplainFallback(s"INSERT INTO c_$codec SELECT id FROM range(10)",
        s"codec $codec is not written natively")
    }
  }

  test("the codecs and page versions planned as native are those the native writer reads") {
    // The rule decides on the driver from its own lists; each entry is the native reader's
    // answer, and so is each refusal (Spark's codec names as ParquetOptions gives them).
    def reads(key: String, value: String): Boolean =
      scala.util.Try(io.vecruntime.parquet.WriterOptions.builder().property(key, value).build()).isSuccess
    for (codec <- Seq("UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW")) {
      assert(SparkParquetLayout.Codecs.contains(codec) == reads("parquet.compression", codec), codec)
    }
    for (v <- SparkParquetLayout.WriterVersions.toSeq ++ Seq("V1", "v3", "PARQUET_3_0", "2")) {
      assert(SparkParquetLayout.WriterVersions.contains(v) == reads("parquet.writer.version", v), v)
    }
  }

  test("the reason is logged") {
    val appender = new org.apache.logging.log4j.core.appender.AbstractAppender(
        "capture", null, null, true, Array.empty) {
      val messages = new java.util.concurrent.ConcurrentLinkedQueue[String]()
      override def append(e: org.apache.logging.log4j.core.LogEvent): Unit =
        messages.add(e.getMessage.getFormattedMessage)
    }
    appender.start()
    val logger = org.apache.logging.log4j.LogManager.getLogger(classOf[VecRuntimeFallbackWriteFilesExec])
      .asInstanceOf[org.apache.logging.log4j.core.Logger]
    logger.addAppender(appender)
    val level = logger.getLevel
    logger.setLevel(org.apache.logging.log4j.Level.INFO)
    try df.write.csv(newDir("logged"))
    finally {
      logger.removeAppender(appender)
      logger.setLevel(level)
    }
    assert(appender.messages.toArray.exists(_.toString.contains("not a Parquet write (CSVFileFormat)")),
      appender.messages)
  }
}
