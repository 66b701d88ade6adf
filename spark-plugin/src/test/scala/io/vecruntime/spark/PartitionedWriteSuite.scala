package io.vecruntime.spark

import java.io.File

import scala.jdk.CollectionConverters._

import io.vecruntime.parquet.{ColumnarParquetWriter, NativeBuffer}

import org.scalatest.concurrent.Eventually._
import org.scalatest.time.{Millis, Seconds, Span}

import org.apache.spark.SparkException
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.execution.SortExec
import org.apache.spark.sql.functions.{col, udf}

/**
 * Partitioned and bucketed writes, each written by vecruntime and by Spark's own writer
 * (vecruntime off) and compared: the directory tree, every file's name (less the job's uuid),
 * the rows of every file, the rows read back through partition discovery by Spark's vectorized
 * and row readers, the footers, `_SUCCESS`, and for tables the catalog's partitions.
 */
class PartitionedWriteSuite extends VecRuntimeSparkSession {

  /**
   * Writes with both writers, checks ours was native (`split(rows)` of its rows split by file
   * natively, the others by Spark's projections), compares the trees and Spark's write
   * statistics (files, dynamic partitions, rows).
   */
  def compare(name: String, split: Long => Long = identity)(write: (DataFrame, String) => Unit)(
      df: DataFrame): Map[String, File] = {
    val ours = newDir(s"$name-ours")
    val theirs = newDir(s"$name-spark")
    val plans = plansOf(write(df, ours))
    assert(usesVecRuntime(plans.last), s"vecruntime did not take the write:\n${plans.last}")
    val sparks = withConf(VecRuntimeConf.ENABLED -> "false") {
      val ps = plansOf(write(df, theirs))
      assert(!usesVecRuntime(ps.last))
      ps
    }
    val (o, t) = (writeMetrics(plans), writeMetrics(sparks))
    for (k <- Seq("numFiles", "numParts", "numOutputRows")) {
      assert(o(k) == t(k), s"$k: ours $o, Spark's $t")
    }
    assert(splitRows(plans) == split(o("numOutputRows")), s"$name: split rows")
    assertSameTree(ours, theirs)
  }

  def writerSorts(plan: org.apache.spark.sql.execution.SparkPlan): Seq[SortExec] =
    nodesOf(plan).collect { case s: SortExec => s }

  def events(n: Int, slices: Int = 2): DataFrame = spark.range(0, n, 1, slices).selectExpr(
    "id", "cast(id % 7 as int) as day", "cast(id * 3 as string) as s", "cast(id * 1.5 as double) as amount")

  test("partitionBy one column: a file per partition, no sort planned for the writer") {
    val df = events(5000)
    val ours = newDir("one-ours")
    val plan = planOf(df.write.partitionBy("day").parquet(ours))
    assert(usesVecRuntime(plan), plan)
    assert(writerSorts(plan).isEmpty, s"a sort is left for the writer:\n$plan")
    assert(plan.toString.contains("a file open per partition/bucket"), plan)
    val theirs = newDir("one-spark")
    withConf(VecRuntimeConf.ENABLED -> "false") {
      val p = planOf(df.write.partitionBy("day").parquet(theirs))
      assert(writerSorts(p).nonEmpty, "Spark's writer sorts for itself")
    }
    val files = assertSameTree(ours, theirs)
    assert(files.keySet.map(_.split('/').head) == (0 until 7).map(d => s"day=$d").toSet)
    assert(files.size == 14, files.keys)
  }

  test("every partitionable type, two levels, nulls and empty strings") {
    val number = "id % 3 - 1"
    val types = Seq("boolean", "tinyint", "smallint", "int", "bigint", "float", "double",
      "decimal(9,2)", "decimal(30,5)", "string").map(t => t -> s"cast($number as $t)") ++ Seq(
      "date" -> s"date_add(date'2024-02-28', cast($number as int))",
      "timestamp" -> s"timestamp_seconds(1700000000 + ($number) * 86399)",
      "timestamp_ntz" -> s"cast(timestamp_seconds(1700000000 + ($number) * 86399) as timestamp_ntz)")
    for ((t, value) <- types) {
      val df = spark.range(0, 600, 1, 2).selectExpr("id",
        s"case when id % 5 = 0 then null else $value end as p",
        "case when id % 4 = 0 then '' when id % 4 = 1 then null else 'x/y=z %' end as q",
        "cast(id as string) as s")
      compare(s"type-$t")((d, dir) => d.write.partitionBy("p", "q").parquet(dir))(df)
    }
  }

  test("special characters in partition values and column names; timestamps in the write's zone") {
    val values = Seq("a/b", "a=b", "50%", "sp ace", "ünï", "colon:x", "hash#", "quote'\"", "new\nline",
      "back\\slash", "{brace}", "[x]", "*?", "^")
    val df = spark.createDataFrame(values.zipWithIndex.map { case (v, i) => Row(i.toLong, v) }.asJava,
      new org.apache.spark.sql.types.StructType().add("id", "long").add("we ird=col", "string"))
    compare("special")((d, dir) => d.write.partitionBy("we ird=col").parquet(dir))(df.repartition(2))
    val ts = spark.range(0, 50, 1, 2)
      .selectExpr("id", "timestamp_seconds(1700000000 + (id % 3) * 3600 * 7) as t")
    for (zone <- Seq(None, Some("America/Los_Angeles"))) {
      compare(s"ts-zone-$zone") { (d, dir) =>
        val w = d.write.partitionBy("t")
        zone.fold(w)(z => w.option("timeZone", z)).parquet(dir)
      }(ts)
    }
  }

  test("a single partition, and only null partition values") {
    // (Not a constant, which Spark 4 folds and so plans no sort and no concurrent writer.)
    compare("single")((d, dir) => d.write.partitionBy("p").parquet(dir))(
      events(3000).selectExpr("*", "if(id >= 0, 'only', 'x') as p"))
    val files = compare("nulls")((d, dir) => d.write.partitionBy("p").parquet(dir))(
      events(3000).selectExpr("*", "cast(null as string) as p"))
    assert(files.keySet.forall(_.startsWith("p=__HIVE_DEFAULT_PARTITION__/")), files.keySet)
  }

  test("1,000 partitions in one task: one file each", Slow) {
    val df = spark.range(0, 12000, 1, 1).selectExpr("id", "id % 1000 as p", "cast(id as string) as s")
    val files = compare("many")((d, dir) => d.write.partitionBy("p").parquet(dir))(df)
    assert(files.size == 1000)
  }

  test("maxRecordsPerFile counted per file within each partition") {
    val files = compare("maxrecords")((d, dir) =>
      d.write.option("maxRecordsPerFile", 100).partitionBy("day").parquet(dir))(events(5000))
    val counts = files.values.map(f => fileRows(f).size)
    assert(counts.forall(_ <= 100) && counts.sum == 5000, counts)
    // A task whose last row opens a new file (100, 100 and 1 rows). The day is not a constant:
    // Spark would fold it, plan no sort and so no concurrent writer.
    val last = compare("maxrecords-last")((d, dir) =>
      d.write.option("maxRecordsPerFile", 100).partitionBy("day").parquet(dir))(
      spark.range(0, 201, 1, 1).selectExpr("id", "if(id >= 0, 7, 8) as day"))
    assert(last.values.map(f => fileRows(f).size).toSeq.sorted == Seq(1, 100, 100), last.keys)
  }

  test("a small buffer budget encodes the largest batches early; files read back the same") {
    // (Rows split by Spark's projections are buffered per file; split natively, per batch.)
    withConf(VecRuntimeConf.TASK_BUFFER_BYTES -> "65536", VecRuntimeConf.NATIVE_SPLIT -> "false") {
      compare("budget", split = _ => 0L)((d, dir) => d.write.partitionBy("day").parquet(dir))(
        events(40000))
    }
  }

  test("a file among many opens its native writer only when its rows are first encoded", Slow) {
    // The task's last row is computed while the 600 files of its first batch (65,536 rows,
    // split by file) are open, their rows buffered: none of them holds a native writer yet.
    // (Thousands of files' encoder state, held from their first row to the task's end, cost a
    // partitioned write a tenth of its CPU in malloc.)
    val openAtLastRow = udf { (id: Long) =>
      if (id == 69999) PartitionedWriteSuite.openWriters.add(ColumnarParquetWriter.openWriters())
      id
    }.asNondeterministic()
    val df = spark.range(0, 70000, 1, 1)
      .select(openAtLastRow(col("id")).as("id"), (col("id") % 600).as("p"))
    PartitionedWriteSuite.openWriters.clear()
    val before = ColumnarParquetWriter.openWriters()
    val files = compare("opened-late")((d, dir) => d.write.partitionBy("p").parquet(dir))(df)
    assert(files.size == 600)
    // Ours first, then Spark's writer, which opens none.
    assert(PartitionedWriteSuite.openWriters.asScala.toSeq == Seq(before, before))
  }

  test("past maxOpenFiles the rest of the task's rows are sorted, as Spark's concurrent writers") {
    withConf(VecRuntimeConf.MAX_OPEN_FILES -> "10") {
      // (The first batch's 40 partitions reach the limit: Spark's steps row by row.)
      val files = compare("maxopen", split = _ => 0L)((d, dir) => d.write.partitionBy("p").parquet(dir))(
        events(4000).selectExpr("*", "id % 40 as p"))
      assert(files.size == 80, "still one file per partition and task")
    }
  }

  test("a batch whose files would pass maxOpenFiles goes row by row, with the rest of the task") {
    // The first batch (split natively) opens 5 files; the next would open 35 more, past 10.
    val first = RowSplitting.DefaultBatchRows
    withConf(VecRuntimeConf.MAX_OPEN_FILES -> "10") {
      val files = compare("maxopen-later", split = _ => first)((d, dir) =>
        d.write.partitionBy("p").parquet(dir))(spark.range(0, first + 4000, 1, 1)
        .selectExpr("id", s"if(id < $first, id % 5, id % 40) as p", "cast(id as string) as s"))
      assert(files.size == 40, files.keys)
    }
  }

  test("spark.sql.maxConcurrentOutputFileWriters keeps Spark's semantics") {
    withConf("spark.sql.maxConcurrentOutputFileWriters" -> "3") {
      compare("concurrent", split = _ => 0L)((d, dir) => d.write.partitionBy("day").parquet(dir))(events(5000))
    }
  }

  test("a user's sort by a data column stays, and orders the rows of each file") {
    val ours = newDir("user-sort")
    val plan = planOf(events(3000).sortWithinPartitions("day", "amount").write.partitionBy("day")
      .parquet(ours))
    assert(usesVecRuntime(plan) && writerSorts(plan).nonEmpty, plan)
    dataTree(ours).values.foreach { f =>
      val amounts = fileRows(f).map(_.split('|')(2).toDouble)
      assert(amounts == amounts.sorted, f)
    }
  }

  test("sorted input: a file at each partition, maxRecordsPerFile, by Spark's steps") {
    // Input that stays sorted goes row by row through Spark's writer of sorted input, which
    // looks up no open files: splitting it natively costs more than it saves. Two levels of
    // partitions, files rolled within each.
    val df = spark.range(0, 150000, 1, 1).selectExpr("id", "cast(id div 20000 as int) as day",
      "cast(id % 3 as string) as s", "cast(id * 1.5 as double) as amount")
    withConf("spark.sql.files.maxRecordsPerFile" -> "3000") {
      val files = compare("sorted", split = _ => 0L)((d, dir) =>
        d.sortWithinPartitions("day", "s", "amount").write.partitionBy("day", "s").parquet(dir))(df)
      // 7 days of 3 files for each value of s, and a last day of 2.
      assert(files.size == 7 * 3 * 3 + 3 * 2, files.keys)
      files.values.foreach { f =>
        val amounts = fileRows(f).map(_.split('|')(1).toDouble)
        assert(amounts == amounts.sorted, f)
      }
    }
  }

  /** Runs `sql(table)` for a table made by each writer; compares the tables' files. */
  def compareTables(name: String)(statements: String => Seq[String]): Unit = {
    for ((t, on) <- Seq(s"${name}_ours" -> "true", s"${name}_spark" -> "false")) {
      withConf(VecRuntimeConf.ENABLED -> on) {
        spark.sql(s"DROP TABLE IF EXISTS $t")
        statements(t).foreach { s =>
          val plans = plansOf(spark.sql(s))
          if (on.toBoolean && s.startsWith("INSERT")) assert(plans.exists(usesVecRuntime), s)
        }
      }
    }
    assertSameTree(tableDir(s"${name}_ours"), tableDir(s"${name}_spark"))
    def partitions(t: String) = spark.sql(s"SHOW PARTITIONS $t").collect().map(_.getString(0)).toSeq
    assert(partitions(s"${name}_ours") == partitions(s"${name}_spark"))
    assert(canonical(spark.table(s"${name}_ours")) == canonical(spark.table(s"${name}_spark")))
  }

  test("INSERT with static and dynamic partitions; dynamic overwrite keeps untouched partitions") {
    events(2000).createOrReplaceTempView("ev")
    compareTables("static_dynamic") { t => Seq(
      s"CREATE TABLE $t (id bigint, s string, amount double, region string, day int) USING parquet " +
        "PARTITIONED BY (region, day)",
      s"INSERT INTO $t PARTITION (region = 'eu', day) SELECT id, s, amount, day FROM ev",
      s"INSERT INTO $t PARTITION (region, day) SELECT id, s, amount, 'us', day FROM ev WHERE id < 500")
    }
    withConf("spark.sql.sources.partitionOverwriteMode" -> "dynamic") {
      compareTables("dyn_overwrite") { t => Seq(
        s"CREATE TABLE $t (id bigint, s string, amount double, day int) USING parquet PARTITIONED BY (day)",
        s"INSERT INTO $t SELECT id, s, amount, day FROM ev",
        s"INSERT OVERWRITE TABLE $t SELECT id, s, amount, day FROM ev WHERE day < 3 AND id < 100")
      }
      assert(spark.table("dyn_overwrite_ours").where("day >= 3").count() ==
        events(2000).where("day >= 3").count(), "untouched partitions are kept")
    }
  }

  test("custom partition locations") {
    events(1000).createOrReplaceTempView("ev")
    val locations = Seq("ours", "spark").map(w => w -> newDir(s"custom-location-$w")).toMap
    compareTables("custom_loc") { t =>
      val where = locations(if (t.endsWith("ours")) "ours" else "spark")
      Seq(
        s"CREATE TABLE $t (id bigint, s string, amount double, day int) USING parquet PARTITIONED BY (day)",
        s"ALTER TABLE $t ADD PARTITION (day = 3) LOCATION '$where'",
        s"INSERT INTO $t SELECT id, s, amount, day FROM ev")
    }
    val o = dataTree(locations("ours"))
    val s = dataTree(locations("spark"))
    assert(o.nonEmpty && o.keySet == s.keySet, (o.keySet, s.keySet))
    o.foreach { case (k, f) => assert(fileRows(f).sorted == fileRows(s(k)).sorted, k) }
  }

  test("bucketBy with saveAsTable: bucket ids and file names as Spark's, partitioned too") {
    val df = spark.range(0, 3000, 1, 2).selectExpr("id", "cast(id % 97 as int) as k",
      "case when id % 9 = 0 then null else concat('v', id % 31) end as s", "id % 3 as p",
      "cast(id % 13 as double) * (case when id % 2 = 0 then -1 else 1 end) as d")
    for ((name, cols, partition) <- Seq(("bucket_k", Seq("k"), false), ("bucket_sd", Seq("s", "d"), false),
        ("bucket_part", Seq("k"), true))) {
      for ((t, on) <- Seq(s"${name}_ours" -> "true", s"${name}_spark" -> "false")) {
        withConf(VecRuntimeConf.ENABLED -> on) {
          spark.sql(s"DROP TABLE IF EXISTS $t")
          val w = df.write.bucketBy(8, cols.head, cols.tail: _*).format("parquet")
          val plans = plansOf((if (partition) w.partitionBy("p") else w).saveAsTable(t))
          assert(plans.exists(usesVecRuntime) == on.toBoolean, plans)
          assert(splitRows(plans) == (if (on.toBoolean) 3000 else 0), s"$t: split rows")
          if (on.toBoolean) assert(plans.flatMap(writerSorts).isEmpty, plans)
        }
      }
      val files = assertSameTree(tableDir(s"${name}_ours"), tableDir(s"${name}_spark"))
      assert(files.keys.forall(_.matches(".*part-\\d+_\\d{5}\\.c000\\.snappy\\.parquet")), files.keys)
    }
  }

  test("Hive-compatible bucketing: HiveHash bucket ids, file prefix NNNNN_0_") {
    val df = spark.range(0, 3000, 1, 2).selectExpr("id", "cast(id % 97 as int) as k",
      "case when id % 9 = 0 then null else concat('v', id % 31) end as s", "id % 3 as p")
    for ((t, on) <- Seq("hive_bucket_ours" -> "true", "hive_bucket_spark" -> "false")) {
      withConf(VecRuntimeConf.ENABLED -> on) {
        spark.sql(s"DROP TABLE IF EXISTS $t")
        val plans = plansOf(df.write.option("__hive_compatible_bucketed_table_insertion__", "true")
          .bucketBy(8, "k", "s").partitionBy("p").format("parquet").saveAsTable(t))
        assert(plans.exists(usesVecRuntime) == on.toBoolean, plans)
        assert(splitRows(plans) == (if (on.toBoolean) 3000 else 0), s"$t: split rows")
      }
    }
    val files = assertSameTree(tableDir("hive_bucket_ours"), tableDir("hive_bucket_spark"))
    assert(files.keys.forall(_.matches("p=\\d/\\d{5}_0_part-\\d+_\\d{5}\\.c000\\.snappy\\.parquet")), files.keys)
  }

  test("bucketed with sortBy: the sort stays and orders each bucket file") {
    val df = spark.range(0, 3000, 1, 2).selectExpr("id", "cast(id % 97 as int) as k", "(id * 7919) % 1000 as v")
    for ((t, on) <- Seq("sorted_ours" -> "true", "sorted_spark" -> "false")) {
      withConf(VecRuntimeConf.ENABLED -> on) {
        spark.sql(s"DROP TABLE IF EXISTS $t")
        val plans = plansOf(df.write.bucketBy(4, "k").sortBy("v").format("parquet").saveAsTable(t))
        assert(plans.exists(usesVecRuntime) == on.toBoolean, plans)
        assert(splitRows(plans) == 0, s"$t: split rows")
      }
    }
    val files = assertSameTree(tableDir("sorted_ours"), tableDir("sorted_spark"))
    files.values.foreach { f =>
      val v = fileRows(f).map(_.split('|')(2).toLong)
      assert(v == v.sorted, s"$f is not sorted by v")
    }
  }

  test("bucket ids of every bucketable type, Spark's and Hive's hash: each row in Spark's file", Slow) {
    val columns = BucketableValues.columns
    val df = BucketableValues.df(spark, 2000, 2)
    for ((c, _) <- columns; hive <- Seq(false, true)) {
      val name = s"bucket_type_${c}_${if (hive) "hive" else "spark"}"
      for ((t, on) <- Seq(s"${name}_ours" -> "true", s"${name}_theirs" -> "false")) {
        withConf(VecRuntimeConf.ENABLED -> on) {
          spark.sql(s"DROP TABLE IF EXISTS $t")
          val w = df.write.option("__hive_compatible_bucketed_table_insertion__", hive.toString)
          val plans = plansOf(w.bucketBy(8, c).format("parquet").saveAsTable(t))
          assert(plans.exists(usesVecRuntime) == on.toBoolean, s"$c: $plans")
          // Natively hashed, but for Hive's hash of TIMESTAMP_NTZ (see RowSplitting).
          val native = on.toBoolean && !(hive && c == "ntz")
          assert(splitRows(plans) == (if (native) 2000 else 0), s"$t: split rows")
        }
      }
      val files = assertSameTree(tableDir(s"${name}_ours"), tableDir(s"${name}_theirs"))
      // Both tasks' rows over several buckets (a boolean has 3 values with null; Hive's hash
      // of whole multiples of 100 takes 2 of 8 buckets).
      assert(files.size >= (if (c == "b" || c == "d38z") 4 else 12), s"$c: ${files.keys}")
    }
  }

  test("an error in a task's first input row fails the write as it fails Spark's writer") {
    // The second task's first row raises: Spark runs it (under its sort) before the task
    // write's own error handling on 3.5, within it on 4.x; the cause chains must agree.
    val df = spark.range(0, 100, 1, 2)
      .selectExpr("CASE WHEN id = 50 THEN raise_error('boom') ELSE id END AS v", "id % 3 AS p")
    def failure(plugin: Boolean): Seq[String] = withConf(VecRuntimeConf.ENABLED -> plugin.toString) {
      val e = intercept[Exception](df.write.partitionBy("p").parquet(newDir(s"first-row-$plugin")))
      val chain = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).toSeq
      assert(chain.exists(t => String.valueOf(t.getMessage).contains("boom")), chain)
      chain.map(t => t.getClass.getName +
        (if (String.valueOf(t.getMessage).contains("TASK_WRITE_FAILED")) " TASK_WRITE_FAILED" else ""))
    }
    assert(failure(plugin = true) == failure(plugin = false))
  }

  test("a task failing with 600 open files: TASK_WRITE_FAILED, nothing committed, memory released") {
    val memoryBefore = NativeBuffer.allocatedBytes()
    val writersBefore = ColumnarParquetWriter.openWriters()
    val dir = newDir("failing-many")
    val e = intercept[SparkException] {
      spark.range(0, 6000, 1, 1).selectExpr("id", "id % 600 as p").write
        .option("fs.failing.impl", classOf[FailingFileSystem].getName)
        .option("fs.failing.impl.disable.cache", "true")
        .partitionBy("p")
        .parquet("failing://" + dir)
    }
    val messages = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null)
      .map(t => s"${t.getClass.getName}: ${t.getMessage}").toSeq
    assert(messages.exists(_.contains("TASK_WRITE_FAILED")), messages.mkString("\n"))
    assert(dataTree(dir).isEmpty, "no data file committed")
    eventually(timeout(Span(30, Seconds)), interval(Span(100, Millis))) {
      assert(NativeBuffer.allocatedBytes() == memoryBefore, "native buffers released")
      assert(ColumnarParquetWriter.openWriters() == writersBefore, "native writers released")
    }
  }
}

object PartitionedWriteSuite {
  /** Native writers open when a test's task computed a given row (local mode: one JVM). */
  val openWriters = new java.util.concurrent.ConcurrentLinkedQueue[Long]()
}
