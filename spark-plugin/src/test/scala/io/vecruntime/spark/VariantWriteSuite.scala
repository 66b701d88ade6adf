package io.vecruntime.spark

import org.apache.spark.sql.DataFrame

/**
 * Variant columns written natively, against Spark's own writer: each file's shredding schema
 * inferred from its first rows as Spark's writer infers it (the Parquet schemas must be equal,
 * typed_value columns and all), values split into them as Spark splits them, Variants in
 * arrays and maps unshredded, and with shredding off or forced. Spark 4.1+ (Spark 4.0's writer
 * leaves the Variant group unannotated, and stays Spark's writer's).
 */
class VariantWriteSuite extends VecRuntimeSparkSession {

  /**
   * Variants of every shape: objects whose fields keep one type (shredded), change type after
   * the first 4,096 rows of a file (then kept in the value column), or appear in under 10% of
   * rows (not shredded); scalars of every Variant type; nulls at every level.
   */
  def frame(n: Long, slices: Int = 2): DataFrame = spark.range(0, n, 1, slices).selectExpr(
    "id",
    """CASE WHEN id % 13 = 0 THEN NULL ELSE parse_json(CASE
         WHEN id % 5000 > 4500 THEN concat('{"a": "late ', id, '", "d": {"x": [', id, ']}}')
         WHEN id % 7 = 0 THEN concat('{"a": ', id, ', "b": null, "e": true, "rare', id % 40, '": 1}')
         WHEN id % 7 = 1 THEN concat('{"a": ', id * 1000000000000, ', "c": 1.250}')
         WHEN id % 7 = 2 THEN concat('{"a": ', id, ', "c": ', id % 1000, '.5, "b": "s', id, '"}')
         ELSE concat('{"a": ', id, ', "b": "', repeat('x', cast(id % 30 AS INT)), '", ',
           '"d": {"x": [1, ', id, ', null], "y": {"z": ', id % 3 = 0, '}}}')
         END) END AS v""",
    """to_variant_object(named_struct(
         'ts', timestamp_micros(id * 86400000123 - 2000000000000000),
         'ntz', CAST(timestamp_micros(id * 1000003) AS TIMESTAMP_NTZ),
         'dt', date_add(DATE'1969-12-01', CAST(id % 20000 AS INT)),
         'f', CAST(id AS FLOAT) / 3, 'db', CAST(id AS DOUBLE) / 7,
         'bin', CAST(concat('b', id) AS BINARY),
         'dec', CAST(id AS DECIMAL(20, 4)) / 3, 'small', CAST(id % 100 AS DECIMAL(5, 2)),
         'i8', CAST(id % 100 AS TINYINT), 'bool', id % 2 = 0)) AS w""",
    """parse_json(CASE id % 4 WHEN 0 THEN '[1, "two", 3.5, null]' WHEN 1 THEN 'null'
         WHEN 2 THEN concat('"scalar ', id, '"') ELSE concat('{"k": ', id, '}') END) AS x""",
    """named_struct('id', id, 'inner',
         IF(id % 9 = 0, NULL, parse_json(concat('{"p": ', id % 17, ', "q": "', id % 5, '"}'))))
       AS s""",
    """array(parse_json(concat('{"e": ', id, '}')), NULL, parse_json('[true]')) AS arr""",
    """map('k', parse_json(concat('[', id, ']')), 'n', NULL) AS m""")

  private def shreddedSchema(dir: String): String =
    dataFiles(dir).map(f => footer(f).getFileMetaData.getSchema.toString).mkString("\n")

  testSince("4.1")("Variant shredded per file as Spark infers it; in arrays and maps unshredded") {
    val (ours, theirs) = compareWriters("variant")(frame(10000))
    assertSameLeafStatistics(ours, theirs)
    val schema = shreddedSchema(ours)
    // The inference ran: the files hold typed values, under annotated groups.
    Seq("optional group v (VARIANT(1))", "required group w (VARIANT(1))", "typed_value",
      "optional int64 typed_value (TIMESTAMP(MICROS,true))").foreach(s =>
      assert(schema.contains(s), s"$s in\n$schema"))
    val read = spark.read.parquet(ours)
    val source = frame(10000)
    Seq("variant_get(v, '$.a', 'string') LIKE 'late%'", "variant_get(v, '$.rare3', 'int') = 1",
      "variant_get(w, '$.ts', 'timestamp') < TIMESTAMP'1950-01-01 00:00:00'",
      "variant_get(s.inner, '$.p', 'int') = 3", "is_variant_null(x)", "v IS NULL",
      "variant_get(arr[0], '$.e', 'long') % 10 = 1").foreach(assertSameCount(read, source, _))
  }

  testSince("4.1")("Variant unshredded with inference or shredding off, forced schemas") {
    for (key <- Seq("spark.sql.variant.inferShreddingSchema", "spark.sql.variant.writeShredding.enabled")) {
      withConf(key -> "false") {
        val (ours, _) = compareWriters(s"variant-$key")(frame(3000))
        assert(!shreddedSchema(ours).contains("typed_value"), shreddedSchema(ours))
      }
    }
    // The write option turns the inference off as well.
    val (ours, _) = compareWriters("variant-option", (df, dir) =>
      df.write.option("spark.sql.variant.inferShreddingSchema", "false").parquet(dir))(frame(3000))
    assert(!shreddedSchema(ours).contains("typed_value"))
    // A test's forced schema, in every Variant at the top and in structs.
    withConf("spark.sql.variant.forceShreddingSchemaForTest" -> "struct<a: bigint, b: string>") {
      val (forced, _) = compareWriters("variant-forced")(
        frame(3000).selectExpr("v", "named_struct('id', id, 'inner', s.inner) AS s", "x"))
      assert(shreddedSchema(forced).contains("typed_value"), shreddedSchema(forced))
    }
  }

  testSince("4.1")("LEGACY rebase of the dates and timestamps shredded out of Variants") {
    // Spark's writer rebases shredded timestamps (micros, whatever the output timestamp type)
    // by the datetime mode, and dates by its switch days: stored values compared through the
    // leaves' statistics, values before, at and after 1582 and 1900.
    val df = spark.range(0, 4000, 1, 2).selectExpr(
      "to_variant_object(named_struct(" +
        "'ts', timestamp_micros((id - 2000) * 1500000000000 - 2208988800000000), " +
        "'dt', date_add(DATE'1582-10-15', CAST(id - 2000 AS INT) * 3))) AS v")
    for (tsType <- Seq("TIMESTAMP_MICROS", "INT96")) {
      withConf("spark.sql.session.timeZone" -> "America/Los_Angeles",
        "spark.sql.parquet.datetimeRebaseModeInWrite" -> "LEGACY",
        "spark.sql.parquet.outputTimestampType" -> tsType) {
        val (ours, theirs) = compareWriters(s"variant-legacy-$tsType")(df)
        assert(shreddedSchema(ours).contains("optional int64 typed_value (TIMESTAMP(MICROS,true))"))
        assertSameLeafStatistics(ours, theirs)
      }
    }
  }

  testSince("4.1")("Variant in partitioned writes and with maxRecordsPerFile: a schema per file") {
    val df = frame(12000).selectExpr("*", "id % 3 AS p")
    val write = (dir: String) => df.write.partitionBy("p").option("maxRecordsPerFile", "1500").parquet(dir)
    val (ours, theirs) = (newDir("variant-partitioned-ours"), newDir("variant-partitioned-spark"))
    assert(usesVecRuntime(planOf(write(ours))))
    withConf(VecRuntimeConf.ENABLED -> "false")(write(theirs))
    for (vectorized <- Seq(false, true)) {
      val diff = firstDifference(readBack(ours, vectorized), readBack(theirs, vectorized))
      assert(diff.isEmpty, s"vectorized=$vectorized: $diff")
    }
    for (p <- 0 to 2) {
      val (o, t) = (dataFiles(s"$ours/p=$p"), dataFiles(s"$theirs/p=$p"))
      assert(o.size == 4 && t.size == 4, (o, t))
      o.zip(t).foreach { case (a, b) =>
        assert(footer(a).getFileMetaData.getSchema == footer(b).getFileMetaData.getSchema, a)
      }
      assertSameLeafStatistics(s"$ours/p=$p", s"$theirs/p=$p")
    }
  }
}
