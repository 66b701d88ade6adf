package io.vecruntime.spark

import java.io.File

import scala.jdk.CollectionConverters._
import scala.sys.process._

import io.vecruntime.parquet.{ColumnarParquetWriter, NativeBuffer}
import org.apache.spark.sql.execution.columnar.vecruntime.CachedColumnsExec

import org.apache.spark.sql.{DataFrame, Row}

/**
 * Apache Iceberg tables (a Hadoop catalog in a temporary directory) written by Iceberg's writer
 * (the plugin off) and natively (on), each case twice from the same rows: the tables must read
 * the same; their snapshots must commit the same data files with the same metrics (record,
 * value, null and NaN counts, lower and upper bounds, partitions, split offsets, sort order:
 * Iceberg's own, computed for the plugin's files too) and the same summaries; their files the
 * same Parquet schema (field ids) and `iceberg.schema`; every file of the plugin's table is the
 * native writer's. pyiceberg, an independent reader, reads the plugin's tables as Iceberg's.
 * Built for each Spark line's Iceberg release (1.12 on Spark 4.1, 1.10 on 4.0 and 3.5); the
 * older lines run the tests not tagged [[IcebergMainLine]].
 */
class IcebergWriteSuite extends VecRuntimeSparkSession with AllTypesData {
  lazy val warehouse: String = newDir("iceberg-warehouse")

  override def extraConf: Map[String, String] = Map(
    "spark.sql.extensions" -> ("org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions," +
      classOf[VecRuntimeExtensions].getName),
    "spark.sql.catalog.ice" -> "org.apache.iceberg.spark.SparkCatalog",
    "spark.sql.catalog.ice.type" -> "hadoop",
    "spark.sql.catalog.ice.warehouse" -> warehouse)

  /** Rows of the types Iceberg tables hold, with nulls, NaNs and signed zeros, in two partitions. */
  def rowsDf(n: Int = 3000, offset: Int = 0): DataFrame = spark.range(offset, offset + n, 1, 2)
    .selectExpr(
      "id",
      "cast(id % 7 as int) as k",
      "if(id % 5 = 0, null, concat('s', cast(id % 113 as string), repeat('x', cast(id % 30 as int)))) as s",
      "case when id % 17 = 0 then double('NaN') when id % 19 = 0 then -0.0d else cast(id as double) / 3 end as d",
      "if(id % 23 = 0, null, cast(id % 1000 as float) - 500.5f) as f",
      "date_add(date'2024-01-01', cast(id % 400 as int)) as day",
      "if(id % 11 = 0, null, timestamp_seconds(1700000000 + id * 3607)) as ts",
      "timestamp_ntz'2024-03-01 10:00:00' + make_interval(0, 0, 0, 0, cast(id % 50 as int)) as ntz",
      "cast(id * 7 as decimal(12, 2)) as amount",
      "cast(id as decimal(30, 4)) as wide",
      "id % 2 = 0 as flag",
      "cast(concat('b', id % 9) as binary) as bin",
      "if(id % 13 = 0, null, named_struct('x', id % 4, 'y', if(id % 29 = 0, double('NaN'), id * 0.5))) as st",
      "if(id % 3 = 0, null, array(id, id + 1)) as arr",
      "map(cast(id % 3 as string), id) as m")

  def table(name: String): String = s"ice.db.$name"

  /** The field id of a position delete file's data file path. */
  val FilePathId: Int = org.apache.iceberg.MetadataColumns.DELETE_FILE_PATH.fieldId

  /** The committed data files with Iceberg's metrics, by what identifies them in both tables. */
  def files(t: String): Seq[String] = spark.table(s"$t.files")
    .withColumn("row_groups", org.apache.spark.sql.functions.expr("size(split_offsets)"))
    .withColumn("sized", org.apache.spark.sql.functions.expr("map_keys(column_sizes)"))
    // Position delete files name data files: their paths left out.
    .withColumn("lower_bounds", org.apache.spark.sql.functions.expr(s"map_filter(lower_bounds, (k, v) -> k != $FilePathId)"))
    .withColumn("upper_bounds", org.apache.spark.sql.functions.expr(s"map_filter(upper_bounds, (k, v) -> k != $FilePathId)"))
    // Where the files are and their bytes differ; readable_metrics repeats the bounds with sizes.
    .drop("file_path", "file_size_in_bytes", "column_sizes", "split_offsets", "readable_metrics",
      "referenced_data_file")
    .collect().map(rowString).toSeq.sorted

  private def rowString(r: Row): String = r.toSeq.map {
    case m: scala.collection.Map[_, _] => m.toSeq.map { case (k, v) => s"$k=${value(v)}" }.sorted.mkString("{", ",", "}")
    case s: scala.collection.Seq[_] => s.map(value).mkString("[", ",", "]")
    case v => value(v)
  }.mkString("|")

  private def value(v: Any): String = v match {
    case b: Array[Byte] => b.map("%02x".format(_)).mkString
    case r: Row => rowString(r)
    case null => "null"
    case other => other.toString
  }

  def paths(t: String): Seq[File] =
    spark.sql(s"SELECT file_path FROM $t.files").collect().map(r => new File(new java.net.URI(r.getString(0)).getPath)).toSeq

  def rowsOf(t: String): Seq[String] = spark.table(t).collect().map(rowString).toSeq.sorted

  /** The snapshots' operations and summaries, byte counts left out (the files differ). */
  def snapshots(t: String): Seq[String] = spark.sql(
    s"SELECT operation, summary FROM $t.snapshots ORDER BY committed_at").collect().map { r =>
      val summary = r.getMap[String, String](1).toSeq.filter { case (k, _) =>
        !k.contains("size") && k != "spark.app.id" && !k.startsWith("engine") &&
          k != "iceberg-version" && k != "spark.sql.streaming.queryId"
      }.sorted
      s"${r.getString(0)} $summary"
    }.toSeq

  /**
   * Builds a table twice with `build(name)`, Iceberg's writer then the native one, checks they
   * are the same; returns (ours, Iceberg's).
   */
  def buildBoth(name: String, native: Option[Boolean] = Some(true))(build: String => Unit): (String, String) = {
    val theirs = table(s"${name}_iceberg")
    val ours = table(s"${name}_ours")
    withConf(VecRuntimeConf.ENABLED -> "false")(build(theirs))
    build(ours)
    assertSameTables(ours, theirs, native)
    (ours, theirs)
  }

  /** `native`: every file of `ours` is the native writer's (Some(false): Iceberg's; None: either). */
  def assertSameTables(ours: String, theirs: String, native: Option[Boolean] = Some(true)): Unit = {
    assert(rowsOf(ours) == rowsOf(theirs), "rows")
    assert(snapshots(ours) == snapshots(theirs), "snapshots")
    val (o, t) = (files(ours), files(theirs))
    assert(o.nonEmpty && o.size == t.size, s"files: ${o.size} against ${t.size}")
    assert(o == t, s"data files and their metrics:\n${o.mkString("\n")}\nagainst\n${t.mkString("\n")}")
    def schemas(tbl: String) = paths(tbl).map { f =>
      val meta = footer(f).getFileMetaData
      (meta.getSchema.toString, meta.getKeyValueMetaData.get("iceberg.schema"))
    }.distinct
    assert(schemas(ours) == schemas(theirs), "Parquet schema and iceberg.schema")
    // Bloom filters on the same columns (Iceberg's properties name them by Iceberg's names).
    def blooms(tbl: String) = paths(tbl).flatMap(f => footer(f).getBlocks.asScala.flatMap(_.getColumns.asScala
      .map(c => c.getPath.toDotString -> (c.getBloomFilterOffset >= 0)))).distinct.sorted
    assert(blooms(ours) == blooms(theirs), "bloom filters")
    native.foreach(n => paths(ours).foreach { f =>
      val createdBy = footer(f).getFileMetaData.getCreatedBy
      assert(createdBy.startsWith(if (n) "vecruntime version" else "parquet-mr"), s"$f: $createdBy")
    })
    paths(theirs).foreach(f => assert(footer(f).getFileMetaData.getCreatedBy.startsWith("parquet-mr")))
  }

  def census(kind: String): Long = WriteCensus.snapshot().getOrElse((getClass.getSimpleName, kind), 0L)

  test("append into a new table, and again; the census counts the native writes") {
    val before = census("native (Iceberg)")
    buildBoth("append") { t =>
      rowsDf().writeTo(t).using("iceberg").create()
      rowsDf(500, 3000).writeTo(t).append()
      rowsDf(300, 7000).write.format("iceberg").mode("append").save(t)
    }
    assert(census("native (Iceberg)") == before + 3)
  }

  test("partition transforms, clustered and fanout writers") {
    for ((distribution, fanout) <- Seq("hash" -> "false", "none" -> "true")) {
      buildBoth(s"transforms_$distribution") { t =>
        spark.sql(s"""CREATE TABLE $t (id bigint, k int, s string, day date, ts timestamp, amount decimal(12, 2))
          USING iceberg PARTITIONED BY (k, bucket(4, id), truncate(3, s), days(day), hours(ts))
          TBLPROPERTIES ('write.distribution-mode' = '$distribution', 'write.spark.fanout.enabled' = '$fanout')""")
        // 60 partitions (Iceberg's fanout writer holds one parquet-java writer per partition).
        spark.range(0, 3000, 1, 2).selectExpr("id", "cast(id % 3 as int) as k",
          "concat('s', id % 5, 'x') as s", "date_add(date'2024-01-01', cast(id % 3 as int)) as day",
          "timestamp_seconds(1700000000 + (id % 4) * 3600) as ts", "cast(id as decimal(12, 2)) as amount")
          .writeTo(t).append()
      }
    }
    buildBoth("years_months") { t =>
      spark.sql(s"""CREATE TABLE $t (id bigint, day date, ts timestamp)
        USING iceberg PARTITIONED BY (years(day), months(ts))""")
      rowsDf().selectExpr("id", "day", "date_trunc('hour', ts) - make_interval(0, cast(id % 9 as int)) as ts")
        .writeTo(t).append()
    }
  }

  test("a table's sort order: rows sorted, files recording it", IcebergMainLine) {
    buildBoth("sorted") { t =>
      spark.sql(s"CREATE TABLE $t (id bigint, k int, s string) USING iceberg PARTITIONED BY (k)")
      spark.sql(s"ALTER TABLE $t WRITE ORDERED BY s DESC, id")
      rowsDf().select("id", "k", "s").writeTo(t).append()
    }
    // (The files' sort order id, Iceberg's writer's as compared above: the order's on 1.12.)
    val ours = table("sorted_ours")
    // Each file's rows in the table's order, as Iceberg's writer writes them.
    paths(ours).foreach { f =>
      val rows = spark.read.parquet(f.getPath).select("s", "id").collect().map(r => (r.getString(0), r.getLong(1)))
      // s descending, nulls last (Iceberg's default for descending), then id.
      val order = Ordering.Tuple3(Ordering.Boolean, Ordering.String.reverse, Ordering.Long)
      val keys = rows.toSeq.map { case (s, id) => (s == null, Option(s).getOrElse(""), id) }
      assert(keys == keys.sorted(order), f)
    }
  }

  test("overwrites: dynamic, by filter, INSERT OVERWRITE; CTAS and RTAS", IcebergMainLine) {
    rowsDf().createOrReplaceTempView("ice_src")
    buildBoth("overwrites") { t =>
      spark.sql(s"CREATE TABLE $t USING iceberg PARTITIONED BY (k) AS SELECT * FROM ice_src")
      rowsDf(1000, 50).writeTo(t).overwritePartitions()
      rowsDf(2000, 7).where("k = 3").writeTo(t).overwrite(org.apache.spark.sql.functions.expr("k = 3"))
      spark.sql(s"INSERT OVERWRITE $t SELECT * FROM ice_src WHERE k = 5")
      spark.sql(s"INSERT INTO $t SELECT * FROM ice_src WHERE id < 100")
    }
    buildBoth("replace") { t =>
      spark.sql(s"CREATE TABLE $t USING iceberg AS SELECT * FROM ice_src")
      spark.sql(s"CREATE OR REPLACE TABLE $t USING iceberg PARTITIONED BY (k) AS SELECT id, k, s FROM ice_src WHERE id % 3 = 0")
    }
  }

  test("copy-on-write MERGE, UPDATE and DELETE; compaction") {
    buildBoth("dml") { t =>
      rowsDf().writeTo(t).using("iceberg").partitionedBy(org.apache.spark.sql.functions.col("k")).create()
      // 10% updated and 1% new rows.
      rowsDf(330, 2700).createOrReplaceTempView("ice_changes")
      spark.sql(s"""MERGE INTO $t t USING ice_changes c ON t.id = c.id
        WHEN MATCHED THEN UPDATE SET t.s = 'merged', t.d = c.d + 1
        WHEN NOT MATCHED THEN INSERT *""")
      spark.sql(s"UPDATE $t SET amount = amount * 2 WHERE k = 2")
      spark.sql(s"DELETE FROM $t WHERE k = 4 AND flag")
    }
    buildBoth("compaction") { t =>
      for (i <- 0 until 6) rowsDf(200, i * 200).writeTo(t).using("iceberg").createOrReplace()
      for (i <- 0 until 6) rowsDf(200, 5000 + i * 200).writeTo(t).append()
      spark.sql(s"CALL ice.system.rewrite_data_files(table => 'db.${t.stripPrefix("ice.db.")}', " +
        "options => map('min-input-files', '2'))").collect()
      assert(spark.sql(s"SELECT operation FROM $t.snapshots ORDER BY committed_at DESC LIMIT 1")
        .head().getString(0) == "replace")
    }
  }

  test("format version 3: appends native, copy-on-write with row lineage Iceberg's", IcebergMainLine) {
    val reason = "fallback (Iceberg): row lineage columns (a row-level command on a format v3 table)"
    val before = census(reason)
    val (ours, _) = buildBoth("v3", native = None) { t =>
      rowsDf().writeTo(t).using("iceberg").tableProperty("format-version", "3")
        .partitionedBy(org.apache.spark.sql.functions.col("k")).create()
      rowsDf(500, 3000).writeTo(t).append()
      spark.sql(s"UPDATE $t SET s = 'updated' WHERE k = 5")
    }
    // Row ids assigned at commit as for Iceberg's files (compared above, first_row_id included).
    val byWriter = spark.sql(s"SELECT file_path FROM $ours.files").collect().toSeq.map { r =>
      footer(new File(new java.net.URI(r.getString(0)).getPath)).getFileMetaData.getCreatedBy
        .takeWhile(_ != ' ')
    }.groupBy(identity).map { case (w, fs) => w -> fs.size }
    assert(byWriter.keySet == Set("vecruntime", "parquet-mr"), byWriter)
    assert(census(reason) == before + 1)
  }

  test("merge-on-read: data files native, position deletes Iceberg's, a DELETE counted with its reason",
      IcebergMainLine) {
    val reason = "fallback (Iceberg): position deletes only (a merge-on-read DELETE: Iceberg's delete writer)"
    val (before, nativeBefore) = (census(reason), census("native (Iceberg)"))
    def mergeOnRead(t: String, partitioned: Boolean) = {
      val w = rowsDf().writeTo(t).using("iceberg").tableProperty("format-version", "2")
        .tableProperty("write.delete.mode", "merge-on-read").tableProperty("write.update.mode", "merge-on-read")
        .tableProperty("write.merge.mode", "merge-on-read")
      if (partitioned) w.partitionedBy(org.apache.spark.sql.functions.col("k")).create() else w.create()
    }
    val tables = Seq(
      buildBoth("merge_on_read", native = None) { t =>
        mergeOnRead(t, partitioned = false)
        spark.sql(s"DELETE FROM $t WHERE k = 4")
        spark.sql(s"UPDATE $t SET s = 'updated', d = d + 1 WHERE k = 5")
      },
      buildBoth("merge_on_read_partitioned", native = None) { t =>
        mergeOnRead(t, partitioned = true)
        // Data files recording the sort order, and deletes clustered (the rows arrive sorted).
        spark.sql(s"ALTER TABLE $t WRITE ORDERED BY id")
        // 10% updated and 1% new rows.
        rowsDf(330, 2700).createOrReplaceTempView("ice_changes")
        spark.sql(s"""MERGE INTO $t t USING ice_changes c ON t.id = c.id
          WHEN MATCHED THEN UPDATE SET t.s = 'merged', t.d = c.d + 1
          WHEN NOT MATCHED THEN INSERT *""")
        spark.sql(s"UPDATE $t SET amount = amount * 2 WHERE k = 2")
      })
    // The table's first files and the UPDATE's and MERGE's data files native; the delete files Iceberg's.
    for ((ours, theirs) <- tables) {
      assertDataNativeDeletesIcebergs(ours)
      assertPyicebergReads(ours, theirs)
    }
    assert(census(reason) == before + 1)
    // Two CREATEs, two UPDATEs and a MERGE.
    assert(census("native (Iceberg)") == nativeBefore + 5)
  }

  test("the streaming sink, append and complete modes", IcebergMainLine) {
    val source = newDir("stream-source")
    rowsDf(2000).write.parquet(source)
    val schema = spark.read.parquet(source).schema
    var n = 0
    buildBoth("stream") { t =>
      n += 1
      spark.sql(s"CREATE TABLE $t (id bigint, k int, s string, d double) USING iceberg PARTITIONED BY (k)")
      val q = spark.readStream.schema(schema).option("maxFilesPerTrigger", "1").parquet(source)
        .select("id", "k", "s", "d").writeStream.format("iceberg").outputMode("append")
        .trigger(org.apache.spark.sql.streaming.Trigger.AvailableNow())
        .option("checkpointLocation", newDir(s"stream-checkpoint-$n")).toTable(t)
      q.awaitTermination()
    }
    buildBoth("stream_complete") { t =>
      n += 1
      spark.sql(s"CREATE TABLE $t (k int, rows bigint) USING iceberg")
      val q = spark.readStream.schema(schema).parquet(source).groupBy("k").count()
        .withColumnRenamed("count", "rows").writeStream.format("iceberg").outputMode("complete")
        .trigger(org.apache.spark.sql.streaming.Trigger.AvailableNow())
        .option("checkpointLocation", newDir(s"stream-checkpoint-$n")).toTable(t)
      q.awaitTermination()
    }
  }

  test("metrics modes, codecs, writer properties and rolling at the target file size", IcebergMainLine) {
    buildBoth("metrics") { t =>
      // `order-id` is `order_x2Did` in the files (a valid Avro name): properties name it as Iceberg.
      spark.sql(s"""CREATE TABLE $t (id bigint, s string, d double, bin binary, amount decimal(12, 2),
          `order-id` string, arr array<bigint>)
        USING iceberg TBLPROPERTIES (
          'write.metadata.metrics.default' = 'truncate(4)',
          'write.metadata.metrics.column.id' = 'counts',
          'write.metadata.metrics.column.d' = 'none',
          'write.metadata.metrics.column.bin' = 'full',
          'write.metadata.metrics.column.order-id' = 'full',
          'write.parquet.compression-codec' = 'snappy',
          'write.parquet.page-size-bytes' = '8192',
          'write.parquet.dict-size-bytes' = '4096',
          'write.parquet.bloom-filter-enabled.column.s' = 'true',
          'write.parquet.bloom-filter-enabled.column.order-id' = 'true',
          'write.parquet.bloom-filter-enabled.column.arr.element' = 'true')""")
      rowsDf().selectExpr("id", "s", "d", "bin", "amount", "concat(s, 'long-order-id') as `order-id`", "arr")
        .writeTo(t).append()
    }
    // Float metrics come from Iceberg's value writers: a required double in a struct that may
    // be null, an optional float at the top.
    buildBoth("floats") { t =>
      spark.sql(s"""CREATE TABLE $t (id bigint, f float, st struct<x: bigint, y: double not null>)
        USING iceberg""")
      rowsDf().selectExpr("id", "f", "if(id % 13 = 0, null, named_struct('x', id, 'y', " +
        "if(id % 29 = 0, double('NaN'), if(id % 31 = 0, -0.0d, id * 0.5)))) as st").writeTo(t).append()
    }
    assertRollsAsIceberg("rolling", spark.range(0, 60000, 1, 1).selectExpr("id", "sha2(cast(id as string), 256) as s"))
  }

  /**
   * Files roll at the target size, near where Iceberg's roll (both estimate the bytes still
   * buffered: parquet-java its pages, the native writer its rows): 60,000 rows of (id, s).
   */
  def assertRollsAsIceberg(name: String, rows: => DataFrame, columns: String = "id bigint, s string",
      target: Long = 60000): Unit = {
    def rolling(t: String): Unit = {
      spark.sql(s"""CREATE TABLE $t ($columns) USING iceberg
        TBLPROPERTIES ('write.target-file-size-bytes' = '$target',
          'write.parquet.compression-codec' = 'uncompressed', 'write.parquet.dict-size-bytes' = '1024')""")
      rows.writeTo(t).append()
    }
    val (ours, theirs) = (table(s"${name}_ours"), table(s"${name}_iceberg"))
    withConf(VecRuntimeConf.ENABLED -> "false")(rolling(theirs))
    rolling(ours)
    assert(rowsOf(ours) == rowsOf(theirs))
    val (o, t) = (paths(ours), paths(theirs))
    assert(t.size > 10 && math.abs(o.size - t.size) <= t.size / 4, s"${o.size} files against ${t.size}")
    o.foreach(f => assert(footer(f).getFileMetaData.getCreatedBy.startsWith("vecruntime version")))
  }

  /** A merge-on-read table's data files are all the native writer's, its delete files Iceberg's. */
  def assertDataNativeDeletesIcebergs(t: String): Unit = {
    val byWriter = spark.sql(s"SELECT file_path, content FROM $t.files").collect().toSeq.groupBy { r =>
      footer(new File(new java.net.URI(r.getString(0)).getPath)).getFileMetaData.getCreatedBy
        .takeWhile(_ != ' ')
    }.map { case (w, rs) => w -> rs.map(_.getInt(1)).toSet }
    assert(byWriter == Map("vecruntime" -> Set(0), "parquet-mr" -> Set(1)), s"$t: $byWriter")
  }

  /** Creates table `t` through Iceberg's API, for the types Spark has no name for. */
  def createTable(t: String, fields: org.apache.iceberg.types.Types.NestedField*)(
      spec: org.apache.iceberg.Schema => org.apache.iceberg.PartitionSpec): Unit = {
    val catalog = new org.apache.iceberg.hadoop.HadoopCatalog(spark.sparkContext.hadoopConfiguration, warehouse)
    val schema = new org.apache.iceberg.Schema(fields: _*)
    catalog.createTable(org.apache.iceberg.catalog.TableIdentifier.of("db", t.stripPrefix("ice.db.")),
      schema, spec(schema), Map("format-version" -> "2").asJava)
  }

  test("uuid and fixed columns: Iceberg's bytes, bounds and errors") {
    import org.apache.iceberg.types.Types._
    // uuid at the top (Spark's rows hold its string), fixed at the top and nested, the table
    // bucketed by the uuid (its partition from the string, its file value the bytes).
    val fields = Seq(NestedField.required(1, "id", LongType.get), NestedField.optional(2, "u", UUIDType.get),
      NestedField.optional(3, "f", FixedType.ofLength(3)),
      NestedField.optional(4, "s", StructType.of(NestedField.optional(5, "g", FixedType.ofLength(2)))),
      NestedField.optional(6, "l", ListType.ofOptional(7, FixedType.ofLength(4))))
    def rows(n: Int, offset: Int) = spark.range(offset, offset + n, 1, 2).selectExpr("id",
      // Hex digits of every value, upper and lower case (UUID.fromString takes both).
      "if(id % 7 = 0, null, concat_ws('-', lpad(hex(id * 2654435761 % 4294967296), 8, '0'), " +
        "lower(lpad(hex(id % 65536), 4, '0')), '4ABC', 'a0f1', lpad(hex(id * 40503), 12, 'f'))) as u",
      "if(id % 5 = 0, null, unhex(lpad(hex(id * 97 % 16777216), 6, '0'))) as f",
      "if(id % 11 = 0, null, named_struct('g', unhex(lpad(hex(id % 65536), 4, 'f')))) as s",
      "if(id % 3 = 0, null, array(unhex(lpad(hex(id), 8, '0')), null)) as l")
    val (ours, theirs) = buildBoth("uuid", native = None) { t =>
      createTable(t, fields: _*)(s => org.apache.iceberg.PartitionSpec.builderFor(s).bucket("u", 4).build())
      rows(3000, 0).writeTo(t).append()
      rows(500, 3000).writeTo(t).append()
      // A merge-on-read UPDATE: its rows written anew natively (uuids included), its deletes Iceberg's.
      spark.sql(s"ALTER TABLE $t SET TBLPROPERTIES ('write.update.mode' = 'merge-on-read')")
      spark.sql(s"UPDATE $t SET f = unhex('000000') WHERE id % 10 = 1")
    }
    assertDataNativeDeletesIcebergs(ours)
    if (sparkAtLeast("4.1")) assertPyicebergReads(ours, theirs)

    // A malformed uuid and a fixed value of another width fail both writers, nothing committed.
    // (Unpartitioned: a uuid partition source would refuse the string before any writer.)
    val bad = Seq(
      ("'f79c3e09-677c-4f58-9b5a'", "unhex('010203')") -> "Invalid UUID string",
      ("'f79c3e09-677c-4f58-9b5a-5c6b1b0c7a21'", "unhex('0102')") -> "a value of 2 bytes")
    val (badTheirs, badOurs) = (table("uuid_bad_iceberg"), table("uuid_bad_ours"))
    Seq(badTheirs, badOurs).foreach(t => createTable(t, fields: _*)(_ => org.apache.iceberg.PartitionSpec.unpartitioned()))
    for ((t, on) <- Seq(badTheirs -> "false", badOurs -> "true"); ((u, f), error) <- bad) {
      withConf(VecRuntimeConf.ENABLED -> on) {
        val before = spark.sql(s"SELECT * FROM $t.snapshots").count()
        val df = spark.range(0, 10, 1, 1).selectExpr("id", s"$u as u", s"$f as f",
          "named_struct('g', unhex('0a0b')) as s", "array(unhex('01020304')) as l")
        val e = intercept[Exception](df.writeTo(t).append())
        def chain(t: Throwable): Seq[Throwable] = if (t == null) Nil else t +: chain(t.getCause)
        val messages = chain(e).map(_.toString).mkString("\n")
        // Iceberg's writer: parquet-java's "Fixed Binary size 2 does not match field type length 3".
        val want = if (on == "true") error else if (error.startsWith("a value")) "Fixed Binary size 2" else error
        assert(messages.contains(want), messages)
        if (on == "true" && error.startsWith("a value")) assert(messages.contains("column 'f'"), messages)
        assert(spark.sql(s"SELECT * FROM $t.snapshots").count() == before)
      }
    }
  }

  /** The columnar plan an append of `df` into a new table `name` reads, if it reads batches. */
  private def batchesRead(name: String, df: DataFrame): Option[org.apache.spark.sql.execution.SparkPlan] = {
    val t = table(name)
    spark.sql(s"CREATE TABLE $t (${df.schema.toDDL}) USING iceberg")
    planOf(df.writeTo(t).append()).collectFirst { case ColumnarInputExec(c) => c }
  }

  test("a columnar query (a Parquet scan, a cached table) is read batch by batch", IcebergMainLine) {
    val src = newDir("iceberg-columnar-source")
    rowsDf().selectExpr("id", "k", "s", "d", "f", "day", "ts", "ntz", "amount", "wide", "flag", "bin")
      .write.parquet(src)
    val scan = spark.read.parquet(src)
    assert(batchesRead("columnar_plan", scan).isDefined)
    buildBoth("columnar_scan")(t => scan.writeTo(t).using("iceberg").create())
    // Computed columns over the scan (a date from a number, as the benchmark's `days`).
    val projected = scan.selectExpr("id", "date_add(day, cast(k as int)) as later", "amount * 2 as twice", "s",
      "f * 2 as f2", "if(s is null, null, id) as maybe")
    assert(batchesRead("projected_plan", projected).exists(_.isInstanceOf[ColumnarProjectExec]))
    buildBoth("columnar_projected")(t => projected.writeTo(t).using("iceberg").create())
    val cached = scan.cache()
    try {
      buildBoth("columnar_cached")(t => cached.writeTo(t).using("iceberg").create())
      // Rolling counts the rows taken from a batch.
      val source = newDir("iceberg-columnar-rolling")
      spark.range(0, 60000, 1, 1).selectExpr("id", "sha2(cast(id as string), 256) as s").write.parquet(source)
      assertRollsAsIceberg("columnar_rolling", spark.read.parquet(source))
      // Fixed-width columns: a batch's rows copied at its end, not at each of Iceberg's checks,
      // while they cannot reach the target.
      val fixedWidth = newDir("iceberg-columnar-rolling-fixed")
      spark.range(0, 400000, 1, 1).selectExpr("id", "id * 7 as x", "id / 3.0d as d").write.parquet(fixedWidth)
      assertRollsAsIceberg("columnar_rolling_fixed", spark.read.parquet(fixedWidth), "id bigint, x bigint, d double",
        target = 500000)
    } finally cached.unpersist()
    // A fixed column from a Parquet scan (a Spark binary): read as rows, its width checked there.
    val fixedSource = newDir("iceberg-columnar-fixed")
    spark.range(0, 3000, 1, 2).selectExpr("id", "unhex(lpad(hex(id), 6, '0')) as f").write.parquet(fixedSource)
    buildBoth("columnar_fixed") { t =>
      import org.apache.iceberg.types.Types._
      // (Optional columns: a required one would add Spark's null check over the scan's rows.)
      createTable(t, NestedField.optional(1, "id", LongType.get), NestedField.optional(2, "f", FixedType.ofLength(3)))(
        _ => org.apache.iceberg.PartitionSpec.unpartitioned())
      spark.read.parquet(fixedSource).writeTo(t).append()
    }
    // A cached table Spark reads as rows only (dates, timestamps, decimals), in every scheme
    // (bytes and shorts left out: Iceberg's ints, which Spark's write casts to).
    val schemes = cacheSchemesDf(20000).drop("i8_runs", "i8", "i16", "i16_runs").cache()
    try {
      schemes.count()
      assert(batchesRead("cached_plan", schemes).exists(_.isInstanceOf[CachedColumnsExec]))
      buildBoth("cached_schemes")(t => schemes.writeTo(t).using("iceberg").create())
    } finally schemes.unpersist()
  }

  test("what the native writer cannot write keeps Iceberg's writer, with the reason counted", IcebergMainLine) {
    val reason = "fallback (Iceberg): Iceberg type uuid of column 's.u'"
    val before = census(reason)
    // A uuid in a struct: its strings are converted at the top level only.
    buildBoth("nested_uuid", native = Some(false)) { t =>
      import org.apache.iceberg.types.Types._
      createTable(t, NestedField.required(1, "id", LongType.get),
        NestedField.optional(2, "s", StructType.of(NestedField.optional(3, "u", UUIDType.get))))(
        _ => org.apache.iceberg.PartitionSpec.unpartitioned())
      spark.sql(s"INSERT INTO $t VALUES (1, named_struct('u', 'f79c3e09-677c-4f58-9b5a-5c6b1b0c7a21')), (2, null)")
    }
    assert(census(reason) == before + 1)
    // A fixed column too wide for a batch's room. (Not read back: Iceberg 1.12's vectorized
    // reader asks for 125 GB for it.)
    val wide = "fallback (Iceberg): Iceberg type fixed[5000] of column 'f', wider than 4096 bytes"
    val wideBefore = census(wide)
    import org.apache.iceberg.types.Types._
    // At the limit, natively; past it, Iceberg's writer.
    for ((width, writer) <- Seq(4096 -> "vecruntime", 5000 -> "parquet-mr")) {
      val t = table(s"fixed_$width")
      createTable(t, NestedField.required(1, "id", LongType.get), NestedField.optional(2, "f", FixedType.ofLength(width)))(
        _ => org.apache.iceberg.PartitionSpec.unpartitioned())
      spark.range(0, 3, 1, 1).selectExpr("id", s"if(id = 1, null, cast(repeat('x', $width) as binary)) as f")
        .writeTo(t).append()
      paths(t).foreach(f => assert(footer(f).getFileMetaData.getCreatedBy.startsWith(writer), f))
    }
    assert(census(wide) == wideBefore + 1)
  }

  test("a failed task commits no snapshot, leaves no data file and releases its native memory") {
    val t = table("failed")
    spark.sql(s"CREATE TABLE $t (id bigint, s string) USING iceberg")
    val memoryBefore = NativeBuffer.allocatedBytes()
    val writersBefore = ColumnarParquetWriter.openWriters()
    val e = intercept[Exception] {
      // Rows reach the native writer (and files are finished, rolling) before the task fails.
      spark.range(0, 100000, 1, 1).selectExpr("id", "if(id = 90000, raise_error('boom'), 's') as s")
        .writeTo(t).option("target-file-size-bytes", "10000").append()
    }
    assert(e.toString.contains("boom") || Option(e.getCause).exists(_.toString.contains("boom")), e)
    assert(spark.sql(s"SELECT * FROM $t.snapshots").count() == 0)
    val data = new File(warehouse, "db/failed/data")
    assert(!data.exists() || data.listFiles().isEmpty, s"files left: ${Option(data.listFiles()).map(_.toSeq)}")
    assert(NativeBuffer.allocatedBytes() == memoryBefore, "native buffers released")
    assert(ColumnarParquetWriter.openWriters() == writersBefore, "native writers released")

    // A merge-on-read UPDATE: native data files and Iceberg's position deletes both removed.
    // (Neither sorted nor shuffled: rows reach the writers before the failure.)
    val u = table("failed_update")
    spark.range(0, 30000, 1, 1).selectExpr("id", "'s' as s").writeTo(u)
      .tableProperty("format-version", "2").tableProperty("write.update.mode", "merge-on-read")
      .tableProperty("write.spark.fanout.enabled", "true").tableProperty("write.update.distribution-mode", "none")
      .create()
    // One file read by one task (a job's failure keeps the files of tasks that committed, as
    // Iceberg's own writer does), rolling small files.
    spark.sql(s"ALTER TABLE $u SET TBLPROPERTIES ('write.target-file-size-bytes' = '10000')")
    def dataFiles = new File(warehouse, "db/failed_update/data").listFiles().map(_.getName).toSet
    val before = dataFiles
    val e2 = intercept[Exception] {
      spark.sql(s"UPDATE $u SET s = if(id = 25000, raise_error('boom'), 'u') WHERE id % 2 = 0")
    }
    assert(e2.toString.contains("boom") || Option(e2.getCause).exists(_.toString.contains("boom")), e2)
    assert(spark.sql(s"SELECT * FROM $u.snapshots").count() == 1)
    assert(dataFiles == before, s"files left: ${dataFiles -- before}")
    assert(NativeBuffer.allocatedBytes() == memoryBefore, "native buffers released")
    assert(ColumnarParquetWriter.openWriters() == writersBefore, "native writers released")
  }

  test("pyiceberg reads the plugin's tables as Iceberg's", IcebergMainLine) {
    val (ours, theirs) = buildBoth("pyiceberg") { t =>
      rowsDf().writeTo(t).using("iceberg").partitionedBy(org.apache.spark.sql.functions.col("k")).create()
      rowsDf(500, 3000).writeTo(t).append()
    }
    assertPyicebergReads(ours, theirs)
  }

  /** pyiceberg reads the same rows and plans the same data files for both tables. */
  def assertPyicebergReads(ours: String, theirs: String): Unit = {
    def metadata(t: String) = spark.sql(s"SELECT file FROM $t.metadata_log_entries ORDER BY timestamp DESC LIMIT 1")
      .collect().head.getString(0)
    val python = new File(sys.props("user.dir")).getParentFile.toPath.resolve(".venv/bin/python").toString
    val out = new StringBuilder
    val rc = Seq(python, new File(sys.props("user.dir")).getParentFile.toPath
      .resolve("tests/iceberg_read.py").toString, metadata(ours), metadata(theirs))
      .!(ProcessLogger(l => out.append(l).append('\n'), l => out.append(l).append('\n')))
    assert(rc == 0, out.toString)
  }
}

object IcebergMainLine extends org.scalatest.Tag("io.vecruntime.spark.IcebergMainLine")
