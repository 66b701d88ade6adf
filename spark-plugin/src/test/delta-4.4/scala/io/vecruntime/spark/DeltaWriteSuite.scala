package io.vecruntime.spark

import java.io.File

import scala.jdk.CollectionConverters._

import io.vecruntime.parquet.{ColumnarParquetWriter, NativeBuffer}

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.delta.DeltaLog
import org.apache.spark.sql.delta.actions.AddFile

/**
 * Delta Lake tables written by Delta's writer (the plugin off) and natively (on), each case
 * twice from the same rows: the tables must read the same, their logs must record the same
 * files (count, partition values, statistics, sizes on disk), their files the same Parquet
 * schema (physical column names and field ids of column mapping); every file of the plugin's
 * table is the native writer's.
 */
class DeltaWriteSuite extends VecRuntimeSparkSession {

  override def extraConf: Map[String, String] = Map(
    "spark.sql.extensions" ->
      s"io.delta.sql.DeltaSparkSessionExtension,${classOf[VecRuntimeExtensions].getName}",
    "spark.sql.catalog.spark_catalog" -> "org.apache.spark.sql.delta.catalog.DeltaCatalog")

  /** Rows of most types Delta tables hold, with nulls, in two partitions. */
  def rowsDf(n: Int = 3000, offset: Int = 0): DataFrame = spark.range(offset, offset + n, 1, 2)
    .selectExpr(
      "id",
      "cast(id % 7 as int) as k",
      "if(id % 5 = 0, null, concat('s', cast(id % 113 as string))) as s",
      "cast(id as double) / 3 as d",
      "date_add(date'2024-01-01', cast(id % 40 as int)) as day",
      "if(id % 11 = 0, null, timestamp_seconds(1700000000 + id * 37)) as ts",
      "cast(id * 7 as decimal(12, 2)) as amount",
      "id % 2 = 0 as flag")

  /** A table's data files as Delta's log lists them, and its directory. */
  def addFiles(path: String): Seq[AddFile] =
    DeltaLog.forTable(spark, path).update().allFiles.collect().toSeq

  def rowsOf(path: String): Seq[String] =
    spark.read.format("delta").load(path).collect().map(_.toString).sorted.toSeq

  /**
   * Builds a table twice with `build(path)`, Delta's writer then the native one, and checks the
   * two are the same to every reader and in the log; returns (ours, Delta's).
   */
  def buildBoth(name: String)(build: String => Unit): (String, String) = {
    val theirs = newDir(s"$name-delta")
    val ours = newDir(s"$name-ours")
    withConf(VecRuntimeConf.ENABLED -> "false")(build(theirs))
    build(ours)
    assertSameTables(ours, theirs)
    (ours, theirs)
  }

  /**
   * A table's column mapping physical names (random per table) by their logical names, to
   * compare two tables' statistics and schemas.
   */
  def logical(path: String): String => String = {
    val fields = DeltaLog.forTable(spark, path).update().metadata.schema.fields
    val names = fields.flatMap(f => f.metadata.contains("delta.columnMapping.physicalName") match {
      case true => Some(f.metadata.getString("delta.columnMapping.physicalName") -> f.name)
      case false => None
    })
    text => names.foldLeft(text) { case (t, (physical, name)) => t.replace(physical, s"<$name>") }
  }

  def assertSameTables(ours: String, theirs: String): Unit = {
    assert(rowsOf(ours) == rowsOf(theirs), "rows")
    val (o, t) = (addFiles(ours), addFiles(theirs))
    assert(o.nonEmpty && o.size == t.size, s"files: ${o.size} against ${t.size}")
    // File for file, by partition and statistics (names are random).
    def key(names: String => String)(a: AddFile) =
      (a.partitionValues.toSeq.sorted.mkString(","), names(a.stats))
    assert(o.map(key(logical(ours))).sorted == t.map(key(logical(theirs))).sorted,
      "partition values and statistics per file")
    o.foreach { a =>
      assert(a.stats != null && a.stats.contains("\"numRecords\""), s"statistics of ${a.path}")
      val f = new File(new File(ours), new java.net.URI(a.path).getPath)
      assert(f.length == a.size, s"size of ${a.path} in the log")
      val createdBy = footer(f).getFileMetaData.getCreatedBy
      assert(createdBy.startsWith("vecruntime version"), s"${a.path}: $createdBy")
    }
    t.foreach { a =>
      val f = new File(new File(theirs), new java.net.URI(a.path).getPath)
      assert(footer(f).getFileMetaData.getCreatedBy.startsWith("parquet-mr"))
    }
    // Every file of both tables has one Parquet schema (field ids and physical names included).
    def schemas(path: String, files: Seq[AddFile]) = files.map(a => logical(path)(
      footer(new File(new File(path), new java.net.URI(a.path).getPath)).getFileMetaData.getSchema
        .toString)).distinct.sorted
    assert(schemas(ours, o) == schemas(theirs, t), "Parquet schema")
  }

  test("append into a new table, and again; the census counts the native writes") {
    def native = WriteCensus.snapshot().getOrElse((getClass.getSimpleName, "native (Delta)"), 0L)
    val before = native
    buildBoth("append") { path =>
      rowsDf().write.format("delta").save(path)
      rowsDf(500, 3000).write.format("delta").mode("append").save(path)
    }
    assert(native == before + 2)
  }

  test("a partitioned table") {
    buildBoth("partitioned") { path =>
      rowsDf().write.format("delta").partitionBy("k").save(path)
    }
  }

  test("overwrite, and replaceWhere") {
    buildBoth("overwrite") { path =>
      rowsDf().write.format("delta").partitionBy("k").save(path)
      rowsDf(1000, 50).write.format("delta").mode("overwrite").save(path)
      rowsDf(2000, 7).where("k = 3").write.format("delta").mode("overwrite")
        .option("replaceWhere", "k = 3").save(path)
    }
  }

  test("SQL: CTAS, INSERT INTO and INSERT OVERWRITE of catalog tables") {
    rowsDf().createOrReplaceTempView("delta_src")
    var n = 0
    buildBoth("sql") { path =>
      n += 1
      val t = s"delta_sql_$n"
      spark.sql(s"CREATE TABLE $t USING delta LOCATION '$path' AS SELECT * FROM delta_src")
      spark.sql(s"INSERT INTO $t SELECT * FROM delta_src WHERE id < 100")
      spark.sql(s"INSERT OVERWRITE $t SELECT * FROM delta_src WHERE id >= 1500")
    }
  }

  test("MERGE, UPDATE and DELETE rewrite files natively, with and without deletion vectors") {
    for (dv <- Seq(false, true)) {
      buildBoth(s"dml-dv-$dv") { path =>
        rowsDf().write.format("delta")
          .option("delta.enableDeletionVectors", dv.toString).save(path)
        // 10% updated and 1% new rows.
        rowsDf(330, 2700).createOrReplaceTempView("changes")
        spark.sql(s"""MERGE INTO delta.`$path` t USING changes c ON t.id = c.id
          WHEN MATCHED THEN UPDATE SET t.s = 'merged', t.d = c.d + 1
          WHEN NOT MATCHED THEN INSERT *""")
        spark.sql(s"UPDATE delta.`$path` SET amount = amount * 2 WHERE k = 2")
        spark.sql(s"DELETE FROM delta.`$path` WHERE k = 4 AND flag")
      }
    }
  }

  test("OPTIMIZE compacts into native files") {
    buildBoth("optimize") { path =>
      for (i <- 0 until 8) rowsDf(200, i * 200).write.format("delta").mode("append").save(path)
      spark.sql(s"OPTIMIZE delta.`$path`")
    }
  }

  test("saveAsTable, insertInto, dynamic partition overwrite and mergeSchema") {
    var n = 0
    buildBoth("catalog") { path =>
      n += 1
      val t = s"delta_catalog_$n"
      rowsDf().write.format("delta").partitionBy("k").option("path", path).saveAsTable(t)
      rowsDf(200, 9000).write.insertInto(t)
      rowsDf(300, 20000).where("k in (1, 2)").write.format("delta").mode("overwrite")
        .option("partitionOverwriteMode", "dynamic").save(path)
      rowsDf(100, 30000).withColumn("extra", org.apache.spark.sql.functions.lit("x"))
        .write.format("delta").mode("append").option("mergeSchema", "true").save(path)
    }
  }

  test("the change data feed's _change_data files and ZORDER BY are native too") {
    val (ours, theirs) = buildBoth("cdf") { path =>
      rowsDf().write.format("delta").option("delta.enableChangeDataFeed", "true").save(path)
      spark.sql(s"UPDATE delta.`$path` SET s = 'changed' WHERE k = 1")
      spark.sql(s"DELETE FROM delta.`$path` WHERE k = 2")
      spark.sql(s"OPTIMIZE delta.`$path` ZORDER BY (d)")
    }
    def changes(path: String) = spark.read.format("delta").option("readChangeFeed", "true")
      .option("startingVersion", 0).load(path).drop("_commit_timestamp")
      .collect().map(_.toString).sorted.toSeq
    assert(changes(ours) == changes(theirs))
    val changeFiles = Option(new File(s"$ours/_change_data").listFiles()).toSeq.flatten
      .filter(_.getName.endsWith(".parquet"))
    assert(changeFiles.nonEmpty)
    changeFiles.foreach(f => assert(footer(f).getFileMetaData.getCreatedBy.startsWith("vecruntime")))
  }

  test("a streaming query into a Delta table, and foreachBatch") {
    val source = newDir("stream-source")
    rowsDf(5000).write.parquet(source)
    buildBoth("stream") { path =>
      val q = spark.readStream.schema(rowsDf(1).schema).parquet(source)
        .writeStream.format("delta").option("checkpointLocation", s"$path-checkpoint")
        .trigger(org.apache.spark.sql.streaming.Trigger.AvailableNow()).start(path)
      q.awaitTermination()
      val f = spark.readStream.schema(rowsDf(1).schema).parquet(source)
        .writeStream.option("checkpointLocation", s"$path-checkpoint2")
        .foreachBatch { (batch: DataFrame, _: Long) =>
          batch.where("k = 3").write.format("delta").mode("append").save(path)
        }
        .trigger(org.apache.spark.sql.streaming.Trigger.AvailableNow()).start()
      f.awaitTermination()
    }
  }

  test("time travel and VACUUM on the native table") {
    val path = newDir("travel")
    rowsDf(1000).write.format("delta").save(path)
    rowsDf(500, 1000).write.format("delta").mode("overwrite").save(path)
    assert(spark.read.format("delta").option("versionAsOf", 0).load(path).count() == 1000)
    assert(spark.read.format("delta").load(path).count() == 500)
    withConf("spark.databricks.delta.retentionDurationCheck.enabled" -> "false") {
      spark.sql(s"VACUUM delta.`$path` RETAIN 0 HOURS")
    }
    assert(dataFiles(path).size == addFiles(path).size)
    assert(spark.read.format("delta").load(path).count() == 500)
  }

  test("column mapping by name and by id: physical names and field ids as Delta writes them") {
    for (mode <- Seq("name", "id")) {
      val (ours, _) = buildBoth(s"mapping-$mode") { path =>
        spark.sql(s"""CREATE TABLE delta.`$path` (id BIGINT, s STRING, d DOUBLE)
          USING delta TBLPROPERTIES ('delta.columnMapping.mode' = '$mode',
          'delta.minReaderVersion' = '2', 'delta.minWriterVersion' = '5')""")
        rowsDf().selectExpr("id", "s", "d").write.format("delta").mode("append").save(path)
        spark.sql(s"ALTER TABLE delta.`$path` RENAME COLUMN s TO name")
        rowsDf(100, 5000).selectExpr("id", "s as name", "d").write.format("delta")
          .mode("append").save(path)
      }
      val schema = footer(new File(new File(ours),
        addFiles(ours).head.path)).getFileMetaData.getSchema
      assert(schema.getFields.asScala.forall(_.getId != null), s"field ids: $schema")
      assert(schema.getFields.asScala.forall(_.getName.startsWith("col-")), s"physical names: $schema")
    }
  }

  test("a failed task commits nothing to the log and releases its native memory") {
    val path = newDir("failed")
    rowsDf(100).write.format("delta").save(path)
    val memoryBefore = NativeBuffer.allocatedBytes()
    val writersBefore = ColumnarParquetWriter.openWriters()
    val e = intercept[Exception] {
      // Rows reach the native writer before the task fails.
      spark.range(0, 100000, 1, 1).selectExpr("id", "if(id = 90000, raise_error('boom'), 's') as s")
        .write.format("delta").mode("append").option("mergeSchema", "true").save(path)
    }
    assert(e.toString.contains("boom") || Option(e.getCause).exists(_.toString.contains("boom")), e)
    assert(DeltaLog.forTable(spark, path).update().version == 0)
    assert(spark.read.format("delta").load(path).count() == 100)
    assert(addFiles(path).size == 2)
    assert(NativeBuffer.allocatedBytes() == memoryBefore, "native buffers released")
    assert(ColumnarParquetWriter.openWriters() == writersBefore, "native writers released")
  }
}
