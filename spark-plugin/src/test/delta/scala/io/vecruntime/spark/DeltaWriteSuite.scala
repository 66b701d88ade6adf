package io.vecruntime.spark

import java.io.File
import java.util.concurrent.{CountDownLatch, TimeUnit}

import scala.jdk.CollectionConverters._

import io.vecruntime.parquet.{ColumnarParquetWriter, NativeBuffer}

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.functions.expr
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.delta.{DeltaLog, OptimisticTransaction, TransactionExecutionObserver}
import org.apache.spark.sql.delta.actions.AddFile
import org.apache.spark.sql.delta.vecruntime.{NativeDeltaTaskStats, NativeWriteNode, VecRuntimeTransaction}

/**
 * Delta Lake tables written by Delta's writer (the plugin off) and natively (on), each case
 * twice from the same rows: the tables must read the same, their logs must record the same
 * files (count, partition values, statistics, sizes on disk) and the same history (operations,
 * their parameters and metrics), their files the same Parquet schema (physical column names
 * and field ids of column mapping); every file of the plugin's table is the native writer's.
 * Built for each Spark line's Delta release; the older lines run the tests not tagged
 * [[DeltaMainLine]].
 */
class DeltaWriteSuite extends VecRuntimeSparkSession {

  override def extraConf: Map[String, String] = Map(
    "spark.sql.extensions" ->
      s"io.delta.sql.DeltaSparkSessionExtension,${classOf[VecRuntimeExtensions].getName}",
    "spark.sql.catalog.spark_catalog" -> "org.apache.spark.sql.delta.catalog.DeltaCatalog",
    // Each snapshot's state in 2 tasks, not Delta's 50: most of the suite's time on 2 cores.
    "spark.databricks.delta.snapshotPartitions" -> "2")

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
    spark.read.format("delta").load(path).collect().map(_.toSeq.map {
      case b: Array[Byte] => b.mkString("0x", ".", "")
      case v => String.valueOf(v)
    }.mkString("[", ",", "]")).sorted.toSeq

  /**
   * Builds a table twice with `build(path)`, Delta's writer then the native one, and checks the
   * two are the same to every reader and in the log; returns (ours, Delta's).
   */
  def buildBoth(name: String, native: Boolean = true)(build: String => Unit): (String, String) = {
    val theirs = newDir(s"$name-delta")
    val ours = newDir(s"$name-ours")
    withConf(VecRuntimeConf.ENABLED -> "false")(build(theirs))
    build(ours)
    assertSameTables(ours, theirs, native)
    (ours, theirs)
  }

  /**
   * A table's column mapping physical names (random per table) by their logical names, to
   * compare two tables' statistics and schemas.
   */
  def logical(path: String): String => String = {
    import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructType}
    def fields(t: DataType): Seq[org.apache.spark.sql.types.StructField] = t match {
      case s: StructType => s.fields.toSeq.flatMap(f => f +: fields(f.dataType))
      case a: ArrayType => fields(a.elementType)
      case m: MapType => fields(m.keyType) ++ fields(m.valueType)
      case _ => Nil
    }
    val key = "delta.columnMapping.physicalName"
    val names = fields(DeltaLog.forTable(spark, path).update().metadata.schema)
      .filter(_.metadata.contains(key)).map(f => f.metadata.getString(key) -> f.name)
    text => names.foldLeft(text) { case (t, (physical, name)) => t.replace(physical, s"<$name>") }
  }

  /** A metric that counts bytes: the two writers' files differ by a few bytes. */
  case class Bytes(n: Double)

  /**
   * A table's history, version by version: the operation, its parameters, and its metrics, those
   * that count time left out, those that count bytes as [[Bytes]].
   */
  def history(path: String): Seq[(String, Map[String, String], Map[String, Any])] =
    DeltaLog.forTable(spark, path).history.getHistory(None).sortBy(_.getVersion).map { c =>
      val metrics = c.operationMetrics.getOrElse(Map.empty).collect {
        case (k, v) if !k.endsWith("TimeMs") && !k.endsWith("Time") =>
          val name = k.toLowerCase(java.util.Locale.ROOT)
          k -> (if (name.contains("bytes") || name.contains("size")) Bytes(v.toDouble) else v)
      }
      // Parameters as Delta records them, but for a stream's query id and expression ids.
      val parameters = (c.operationParameters - "queryId").map { case (k, v) =>
        k -> Option(v).map(_.replaceAll("#\\d+", "#")).orNull }
      (c.operation, parameters, metrics)
    }

  /** The same operations, parameters and metrics; byte counts within 10% (small files). */
  def assertSameHistory(ours: String, theirs: String): Unit = {
    val (o, t) = (history(ours), history(theirs))
    assert(o.size == t.size, "versions")
    o.zip(t).zipWithIndex.foreach { case ((a, b), version) =>
      assert(a._1 == b._1, s"operation of version $version")
      assert(a._2 == b._2, s"operation parameters of version $version")
      assert(a._3.keySet == b._3.keySet, s"operation metrics of version $version")
      a._3.foreach { case (k, v) => (v, b._3(k)) match {
        case (Bytes(x), Bytes(y)) => assert((x == 0) == (y == 0) &&
          math.abs(x - y) <= 0.1 * math.max(x, y), s"$k of version $version: $x against $y")
        case (x, y) => assert(x == y, s"$k of version $version: ${a._3} against ${b._3}")
      }}
    }
  }

  /** `native`: every file of `ours` is the native writer's (else Delta's writer's, a fallback). */
  def assertSameTables(ours: String, theirs: String, native: Boolean = true): Unit = {
    assert(rowsOf(ours) == rowsOf(theirs), "rows")
    assertSameHistory(ours, theirs)
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
      assert(createdBy.startsWith(if (native) "vecruntime version" else "parquet-mr"),
        s"${a.path}: $createdBy")
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

  test("file statistics from column chunks and rows are Delta's, edge values included", DeltaMainLine) {
    // Strings past Delta's 32-character prefix (and multi-byte ones across it), strings whose
    // min + max outgrow the footer's statistics, NaN and -0.0, decimals of each physical type,
    // a struct's leaves, an array's nulls, and several row groups per file.
    def edges(path: String): Unit = {
      // The max, 4,200 bytes: no footer statistics.
      val long = "\u00ff" * 2100
      spark.range(0, 4000, 1, 2).selectExpr(
        "id",
        "cast(id % 100 as tinyint) as b",
        "cast(id % 1000 - 500 as smallint) as sh",
        "cast(id % 13 as int) as k",
        "case when id % 9 = 0 then null when id % 7 = 0 then concat(repeat('é', 40), id) " +
          s"when id = 1234 then '$long' else concat('v', id) end as s",
        // Spark's min keeps the first of -0.0 and 0.0 (equal to it): -0.0 in one file.
        "case when id % 17 = 0 then double('NaN') when id % 1000 = 1 then double('-0.0') " +
          "when id % 5 = 0 then 0.0 else id / 7.0 end as d",
        "if(id % 4 = 0, null, float(id) / 3) as f",
        "date_add(date'1999-12-31', cast(id % 500 as int)) as day",
        "timestamp_micros(1700000000000000 + id * 1234567) as ts",
        "cast(id * 3 - 6000 as decimal(7, 2)) as small",
        "cast(id * 7 as decimal(15, 3)) as mid",
        "if(id % 6 = 0, null, cast(id * 11 - 9999 as decimal(30, 5))) as big",
        "if(id % 19 = 0, null, named_struct('a', if(id % 8 = 0, null, id), 'b', " +
          "concat('n', id % 50))) as st",
        "if(id % 10 = 0, null, array(id, id + 1)) as arr",
        "id % 2 = 0 as flag",
        "if(id % 3 = 0, null, binary(concat('b', id))) as bin"
      ).write.format("delta").save(path)
    }
    val counted = () => NativeDeltaTaskStats.filesFromChunks.get()
    val before = counted()
    /** Builds both tables; the native one's files have several row groups. */
    def build(name: String): Unit = {
      NativeDeltaTaskStats.fromRows.clear()
      val (ours, _) = buildBoth(name)(edges)
      addFiles(ours).foreach { a =>
        val f = new File(new File(ours), new java.net.URI(a.path).getPath)
        assert(footer(f).getBlocks.size > 1, s"row groups of ${a.path}")
      }
    }
    // Only float and double bounds and an array's nulls (and INT96 timestamps) come from rows.
    val fromRows = Set("bounds d", "bounds f", "nulls arr")
    withConf("parquet.block.size" -> (64 << 10).toString) {
      build("stats-int96")
      assert(NativeDeltaTaskStats.fromRows.asScala == fromRows + "bounds ts")
      // Byte-array decimals of every precision; strings cut to 5 characters.
      withConf("spark.sql.parquet.outputTimestampType" -> "TIMESTAMP_MICROS",
          "spark.sql.parquet.writeLegacyFormat" -> "true",
          "spark.databricks.io.skipping.stringPrefixLength" -> "5") {
        build("stats-micros")
        assert(NativeDeltaTaskStats.fromRows.asScala == fromRows)
      }
    }
    assert(counted() == before + 4, "every file's statistics came from its chunks")
  }

  /** The native write node of the last Delta write, and what it did (its metrics). */
  def lastNode(): (NativeWriteNode, Map[String, Long]) = {
    val node = VecRuntimeTransaction.lastNativeWrite
    assert(node.isDefined, "the last Delta write had no native write node")
    (node.get, node.get.metrics.map { case (k, m) => k -> m.value })
  }

  test("a partitioned table") {
    // Partition values Delta writes its own way: empty strings (as null), timestamps (UTC).
    buildBoth("partitioned") { path =>
      rowsDf().withColumn("p", expr("case id % 3 when 0 then '' when 1 then null else 'x' end"))
        .withColumn("t", expr("timestamp_seconds(1700000000 + (id % 2) * 3600)"))
        .write.format("delta").partitionBy("k", "p", "t").save(path)
    }
    // Whole rows split by file natively, a file open per partition; d's bounds read from them.
    val (node, metrics) = lastNode()
    assert(node.openFiles && metrics(TaskWriteStats.SplitRows) == 3000, metrics)
  }

  test("overwrite, and replaceWhere", DeltaMainLine) {
    buildBoth("overwrite") { path =>
      rowsDf().write.format("delta").partitionBy("k").save(path)
      rowsDf(1000, 50).write.format("delta").mode("overwrite").save(path)
      rowsDf(2000, 7).where("k = 3").write.format("delta").mode("overwrite")
        .option("replaceWhere", "k = 3").save(path)
    }
  }

  test("SQL: CTAS, INSERT INTO and INSERT OVERWRITE of catalog tables", DeltaMainLine) {
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

  def mergeUpdateDelete(deletionVectors: Boolean): Unit =
    buildBoth(s"dml-dv-$deletionVectors") { path =>
      rowsDf().write.format("delta")
        .option("delta.enableDeletionVectors", deletionVectors.toString).save(path)
      // 10% updated and 1% new rows.
      rowsDf(330, 2700).createOrReplaceTempView("changes")
      spark.sql(s"""MERGE INTO delta.`$path` t USING changes c ON t.id = c.id
        WHEN MATCHED THEN UPDATE SET t.s = 'merged', t.d = c.d + 1
        WHEN NOT MATCHED THEN INSERT *""")
      spark.sql(s"UPDATE delta.`$path` SET amount = amount * 2 WHERE k = 2")
      spark.sql(s"DELETE FROM delta.`$path` WHERE k = 4 AND flag")
    }

  test("MERGE, UPDATE and DELETE rewrite files natively") {
    mergeUpdateDelete(deletionVectors = false)
  }

  test("MERGE, UPDATE and DELETE with deletion vectors: the rows written anew natively", DeltaMainLine) {
    mergeUpdateDelete(deletionVectors = true)
  }

  test("OPTIMIZE compacts into native files", DeltaMainLine) {
    buildBoth("optimize") { path =>
      // Nullable columns (a NOT NULL column's check reads rows).
      for (i <- 0 until 8) {
        val df = rowsDf(200, i * 200)
        spark.createDataFrame(df.rdd, StructType(df.schema.map(_.copy(nullable = true))))
          .write.format("delta").mode("append").save(path)
      }
      spark.sql(s"OPTIMIZE delta.`$path`")
    }
    // The scan's batches read by the native writer.
    val (node, metrics) = lastNode()
    assert(node.columnarInput && metrics(TaskWriteStats.Rows) == 1600, metrics)
  }

  test("saveAsTable, insertInto, dynamic partition overwrite and mergeSchema", DeltaMainLine) {
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

  test("the change data feed's _change_data files and ZORDER BY are native too", DeltaMainLine) {
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

  test("a streaming query into a Delta table, and foreachBatch", DeltaMainLine) {
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

  test("time travel and VACUUM on the native table", DeltaMainLine) {
    val path = newDir("travel")
    rowsDf(1000).write.format("delta").save(path)
    rowsDf(500, 1000).write.format("delta").mode("overwrite").save(path)
    assert(spark.read.format("delta").option("versionAsOf", 0).load(path).count() == 1000)
    assert(spark.read.format("delta").load(path).count() == 500)
    // (VACUUM lists the table in as many tasks as this says: 10,000 by default.)
    withConf("spark.databricks.delta.retentionDurationCheck.enabled" -> "false",
        "spark.sql.sources.parallelPartitionDiscovery.parallelism" -> "2") {
      spark.sql(s"VACUUM delta.`$path` RETAIN 0 HOURS")
    }
    assert(dataFiles(path).size == addFiles(path).size)
    assert(spark.read.format("delta").load(path).count() == 500)
  }

  test("column mapping by name and by id: physical names and field ids as Delta writes them", DeltaMainLine) {
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

  test("CREATE OR REPLACE TABLE AS SELECT, overwriteSchema and optimized writes", DeltaMainLine) {
    rowsDf().createOrReplaceTempView("delta_replace_src")
    buildBoth("replace") { path =>
      spark.sql(s"CREATE TABLE delta.`$path` USING delta AS SELECT * FROM delta_replace_src")
      spark.sql(s"""CREATE OR REPLACE TABLE delta.`$path` USING delta PARTITIONED BY (k)
        AS SELECT id, k, s FROM delta_replace_src WHERE id % 3 = 0""")
      rowsDf(800).selectExpr("id", "cast(d as string) as d", "day").write.format("delta")
        .mode("overwrite").option("overwriteSchema", "true").save(path)
      // An optimized write: Delta's shuffle of the rows into a file per partition bin.
      rowsDf(2000, 5000).selectExpr("id", "cast(d as string) as d", "day").repartition(6)
        .write.format("delta").mode("append").option("optimizeWrite", "true").save(path)
    }
  }

  /** The error a statement fails with: its class and Delta's error class, if any. */
  def failure(statement: => Unit): String = {
    val e = intercept[Throwable](statement)
    val chain = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).toSeq
    chain.map {
      case t: org.apache.spark.SparkThrowable if TestShims.condition(t) != null =>
        s"${t.getClass.getSimpleName} ${TestShims.condition(t)}"
      case t => t.getClass.getSimpleName
    }.mkString(" <- ")
  }

  test("CHECK and NOT NULL constraints, generated and identity columns, as Delta checks and fills", DeltaMainLine) {
    var errors = Seq.empty[Seq[String]]
    buildBoth("checks") { path =>
      spark.sql(s"""CREATE TABLE delta.`$path` (id BIGINT NOT NULL, k INT, s STRING,
        twice BIGINT GENERATED ALWAYS AS (id * 2),
        ident BIGINT GENERATED ALWAYS AS IDENTITY (START WITH 10 INCREMENT BY 3)) USING delta""")
      spark.sql(s"ALTER TABLE delta.`$path` ADD CONSTRAINT k_range CHECK (k >= 0 AND k < 7)")
      rowsDf().selectExpr("id", "k", "s").write.format("delta").mode("append").save(path)
      spark.sql(s"INSERT INTO delta.`$path` (id, k, s) VALUES (90001, 2, 'sql')")
      errors :+= Seq(
        failure(rowsDf(10).selectExpr("if(id = 5, null, id) as id", "k", "s")
          .write.format("delta").mode("append").save(path)),
        failure(rowsDf(10).selectExpr("id", "if(id = 5, 9, k) as k", "s")
          .write.format("delta").mode("append").save(path)),
        failure(spark.sql(s"INSERT INTO delta.`$path` (id, k, s, twice) VALUES (1, 1, 'x', 3)")))
    }
    val Seq(delta, ours) = errors
    assert(ours == delta)
    assert(ours.head.contains("DELTA_NOT_NULL_CONSTRAINT_VIOLATED") &&
      ours(1).contains("DELTA_VIOLATE_CONSTRAINT_WITH_VALUES"), ours)
  }

  test("type widening, timestamp without time zone and Variant columns", DeltaMainLine) {
    buildBoth("types") { path =>
      spark.sql(s"""CREATE TABLE delta.`$path` (id BIGINT, k INT, ntz TIMESTAMP_NTZ, v VARIANT)
        USING delta TBLPROPERTIES ('delta.enableTypeWidening' = 'true')""")
      val rows = rowsDf(2000).selectExpr("id", "k", "cast(ts as timestamp_ntz) as ntz",
        "parse_json(concat('{\"a\": ', id, ', \"s\": \"', s, '\"}')) as v")
      rows.write.format("delta").mode("append").save(path)
      spark.sql(s"ALTER TABLE delta.`$path` CHANGE COLUMN k TYPE BIGINT")
      rows.selectExpr("id", "cast(k as bigint) * 10000000000 as k", "ntz", "v")
        .write.format("delta").mode("append").save(path)
    }
  }

  test("an UPDATE whose files a concurrent DELETE removed fails as Delta's, committing nothing", DeltaMainLine) {
    // Holds a transaction between its write and its commit.
    class Paused(entered: CountDownLatch, resume: CountDownLatch) extends TransactionExecutionObserver {
      override def startingTransaction(f: => OptimisticTransaction): OptimisticTransaction = f
      override def preparingCommit[T](f: => T): T = {
        entered.countDown()
        assert(resume.await(2, TimeUnit.MINUTES))
        f
      }
      override def beginDoCommit(): Unit = ()
      override def beginBackfill(): Unit = ()
      override def beginPostCommit(): Unit = ()
      override def transactionCommitted(): Unit = ()
      override def transactionAborted(): Unit = ()
      override def createChild(): TransactionExecutionObserver = this
    }
    def conflict(native: Boolean): (String, Seq[String]) = withConf(VecRuntimeConf.ENABLED -> native.toString) {
      val path = newDir(s"conflict-$native")
      rowsDf().write.format("delta").save(path)
      val (entered, resume) = (new CountDownLatch(1), new CountDownLatch(1))
      var error: String = null
      val update = new Thread(() => error = failure {
        TransactionExecutionObserver.withObserver(new Paused(entered, resume)) {
          spark.sql(s"UPDATE delta.`$path` SET s = 'updated' WHERE k = 1")
        }
      })
      update.start()
      assert(entered.await(2, TimeUnit.MINUTES))
      // The UPDATE's files are written, not committed.
      val written = dataFiles(path).map(f => footer(f).getFileMetaData.getCreatedBy)
      spark.sql(s"DELETE FROM delta.`$path` WHERE k = 1")
      resume.countDown()
      update.join()
      assert(DeltaLog.forTable(spark, path).update().version == 1)
      assert(rowsOf(path).forall(r => !r.contains("updated")))
      (error, written)
    }
    val (delta, _) = conflict(native = false)
    // Every file, the first append's and the UPDATE's uncommitted ones, the native writer's.
    val (ours, native) = conflict(native = true)
    // (The DELETE's rewritten files fall in what the UPDATE read.)
    assert(ours == delta && delta.contains("DELTA_CONCURRENT_APPEND"), ours)
    assert(native.nonEmpty && native.forall(_.startsWith("vecruntime")), native)
  }

  test("IcebergCompat: V1 native with INT64 timestamps; V2's nested field ids keep Delta's writer", DeltaMainLine) {
    def census(kind: String => Boolean) = WriteCensus.snapshot().collect {
      case ((suite, k), n) if suite == getClass.getSimpleName && kind(k) => n
    }.sum
    val reason = "fallback (Delta): the table format writes through its own write support " +
      "(org.apache.spark.sql.delta.DeltaParquetWriteSupport)"
    for (version <- Seq(1, 2)) {
      val (fallbacks, natives) = (census(_ == reason), census(_ == "native (Delta)"))
      val (ours, _) = buildBoth(s"iceberg-compat-v$version", native = version == 1) { path =>
        // IcebergCompatV1 takes no arrays; V2 writes the field ids of their elements.
        val (nested, value) = if (version == 1) ("STRUCT<a: INT>", "named_struct('a', k)")
          else ("STRUCT<arr: ARRAY<INT>>", "named_struct('arr', array(k, k + 1))")
        spark.sql(s"""CREATE TABLE delta.`$path` (id BIGINT, ts TIMESTAMP, st $nested)
          USING delta TBLPROPERTIES ('delta.columnMapping.mode' = 'name',
          'delta.enableIcebergCompatV$version' = 'true')""")
        rowsDf().selectExpr("id", "ts", s"$value as st")
          .write.format("delta").mode("append").save(path)
      }
      if (version == 1) {
        assert(census(_ == "native (Delta)") == natives + 1)
        val ts = footer(new File(new File(ours), addFiles(ours).head.path)).getFileMetaData
          .getSchema.getFields.get(1)
        assert(ts.toString.contains("int64") && ts.toString.contains("TIMESTAMP(MICROS,true)"), ts)
      } else {
        assert(census(_ == reason) == fallbacks + 1)
      }
    }
  }
}

/** A Delta test run with the main Spark line's Delta release only. */
object DeltaMainLine extends org.scalatest.Tag("io.vecruntime.spark.DeltaMainLine")
