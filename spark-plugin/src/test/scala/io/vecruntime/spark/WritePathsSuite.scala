package io.vecruntime.spark

import java.io.File
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files
import java.util.concurrent.atomic.AtomicBoolean

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.streaming.{StreamingQueryException, Trigger}
import org.apache.spark.sql.types.StructType

/**
 * The Parquet writes Spark runs without a `WriteFiles` node, each through the native writer and
 * compared with Spark's writer (vecruntime off): writes with planned writes off, INSERT
 * OVERWRITE DIRECTORY, and the Structured Streaming file sink.
 */
class WritePathsSuite extends VecRuntimeSparkSession {

  def df: DataFrame = spark.range(0, 6000, 1, 2).selectExpr("id", "cast(id % 5 as int) as p",
    "cast(id * 3 as string) as s", "cast(id * 1.5 as double) as amount",
    "cast(id as decimal(12, 2)) as price", "date_add(date'2020-01-01', cast(id % 90 as int)) as day")

  private val plannedWriteOff = SQLConf.PLANNED_WRITE_ENABLED.key -> "false"

  test("planned writes off: df.write.parquet natively, as Spark's writer writes it") {
    withConf(plannedWriteOff) {
      val (ours, _) = compareWriters("planned-off")(df)
      assert(dataFiles(ours).length == 2)
      // maxRecordsPerFile rolls files as Spark's writer rolls them.
      compareWriters("planned-off-max", (d, dir) => d.write.option("maxRecordsPerFile", 1000).parquet(dir))(df)
    }
  }

  test("planned writes off: partitioned, and INSERT into a partitioned table") {
    withConf(plannedWriteOff) {
      val ours = newDir("planned-off-part-ours")
      val theirs = newDir("planned-off-part-spark")
      assert(usesVecRuntime(planOf(df.write.partitionBy("p").parquet(ours))))
      withConf(VecRuntimeConf.ENABLED -> "false") {
        assert(!usesVecRuntime(planOf(df.write.partitionBy("p").parquet(theirs))))
      }
      assertSameTree(ours, theirs)

      df.createOrReplaceTempView("paths_src")
      def insert(table: String): Unit = {
        spark.sql(s"CREATE TABLE $table (id BIGINT, s STRING, amount DOUBLE, p INT) USING parquet " +
          "PARTITIONED BY (p)")
        spark.sql(s"INSERT INTO $table SELECT id, s, amount, p FROM paths_src")
        spark.sql(s"INSERT INTO $table PARTITION (p = 9) SELECT id, s, amount FROM paths_src WHERE id < 100")
      }
      try {
        val plans = plansOf(insert("paths_ours"))
        assert(plans.exists(usesVecRuntime), plans.mkString("\n"))
        withConf(VecRuntimeConf.ENABLED -> "false") { insert("paths_spark") }
        assertSameTree(tableDir("paths_ours"), tableDir("paths_spark"))
        assert(canonical(spark.table("paths_ours")) == canonical(spark.table("paths_spark")))
      } finally {
        spark.sql("DROP TABLE IF EXISTS paths_ours")
        spark.sql("DROP TABLE IF EXISTS paths_spark")
      }
    }
  }

  test("planned writes off: EXPLAIN names the native format, or Spark's writer and the reason") {
    withConf(plannedWriteOff) {
      df.createOrReplaceTempView("paths_src")
      spark.sql("CREATE TABLE paths_snappy (id BIGINT) USING parquet")
      spark.sql("CREATE TABLE paths_brotli (id BIGINT) USING parquet OPTIONS ('compression' 'brotli')")
      try {
        val native = explained("INSERT INTO paths_snappy SELECT id FROM paths_src")
        assert(native.contains("Parquet (vecruntime)"), native)
        val reason = "codec brotli is not written natively"
        val fallback = explained("INSERT INTO paths_brotli SELECT id FROM paths_src")
        assert(fallback.contains(s"Parquet [Spark's writer: $reason]"), fallback)
        val off = withConf(VecRuntimeConf.ENABLED -> "false") {
          explained("INSERT INTO paths_snappy SELECT id FROM paths_src")
        }
        assert(off.contains(", Parquet, ") && !off.contains("Parquet (vecruntime)"), off)
      } finally {
        spark.sql("DROP TABLE paths_snappy")
        spark.sql("DROP TABLE paths_brotli")
      }
    }
  }

  test("INSERT OVERWRITE [LOCAL] DIRECTORY ... USING parquet natively, planned writes on and off") {
    df.createOrReplaceTempView("paths_src")
    for (planned <- Seq("true", "false"); local <- Seq("LOCAL ", "")) {
      withConf(SQLConf.PLANNED_WRITE_ENABLED.key -> planned) {
        val ours = newDir("dir-ours")
        val theirs = newDir("dir-spark")
        def insert(dir: String) = spark.sql(s"INSERT OVERWRITE ${local}DIRECTORY '$dir' USING parquet " +
          "OPTIONS ('compression' 'zstd') SELECT * FROM paths_src")
        insert(ours)
        withConf(VecRuntimeConf.ENABLED -> "false") { insert(theirs) }
        assert(dataFiles(ours).map(_.getName).forall(_.endsWith(".zstd.parquet")))
        assertSameOutput(ours, theirs)
      }
    }
  }

  // ---- Structured Streaming file sink ----

  private val streamSchema = StructType.fromDDL(
    "id BIGINT, p INT, s STRING, amount DOUBLE, price DECIMAL(12,2), day DATE, ts TIMESTAMP")

  /** `batches` JSON files of `rows` rows each, one micro-batch each, their order fixed by mtime. */
  private def streamInput(batches: Int, rows: Int): String = {
    val dir = new File(newDir("stream-in"))
    dir.mkdirs()
    for (b <- 0 until batches) {
      val lines = (b * rows until (b + 1) * rows).map { i =>
        val s = if (i % 11 == 0) "null" else s""""v$i""""
        s"""{"id":$i,"p":${i % 4},"s":$s,"amount":${i * 0.25},"price":${i % 1000}.${i % 100},""" +
          s""""day":"2021-0${1 + i % 9}-1${i % 10}","ts":"2021-03-0${1 + i % 9}T10:${10 + i % 50}:00Z"}"""
      }
      val f = new File(dir, f"in-$b%03d.json")
      Files.write(f.toPath, lines.mkString("", "\n", "\n").getBytes(UTF_8))
      f.setLastModified(1600000000000L + b * 1000L)
    }
    dir.getAbsolutePath
  }

  /** Runs a file-sink query over `input` to completion, a micro-batch per input file. */
  private def runStream(input: String, out: String, checkpoint: String, partitioned: Boolean): Unit = {
    val stream = spark.readStream.schema(streamSchema).option("maxFilesPerTrigger", 1).json(input)
      .withColumn("id", org.apache.spark.sql.functions.expr("vecruntime_boom(id)"))
    val writer = stream.writeStream.format("parquet").option("checkpointLocation", checkpoint)
      .trigger(Trigger.AvailableNow())
    val query = (if (partitioned) writer.partitionBy("p") else writer).start(out)
    try query.awaitTermination() finally query.stop()
  }

  /** `_spark_metadata`: per log file, its entries' (partition directory, action), sorted. */
  private def sinkLog(out: String): Map[String, Seq[String]] = {
    val log = new File(out, "_spark_metadata")
    log.listFiles().filterNot(_.getName.startsWith(".")).map { f =>
      val lines = Files.readAllLines(f.toPath, UTF_8).asScala.toSeq
      assert(lines.head == "v1", f)
      f.getName -> lines.tail.map { json =>
        val path = "\"path\":\"([^\"]+)\"".r.findFirstMatchIn(json).get.group(1)
        val size = "\"size\":(\\d+)".r.findFirstMatchIn(json).get.group(1).toLong
        val file = new File(new java.net.URI(path))
        // Every file in the log exists, whole.
        assert(file.length == size, s"$path: ${file.length} bytes, the log says $size")
        val action = "\"action\":\"([^\"]+)\"".r.findFirstMatchIn(json).get.group(1)
        val dir = file.getParentFile.getAbsolutePath.stripPrefix(new File(out).getAbsolutePath)
        assert(file.getName.matches("part-\\d{5}-[0-9a-f-]{36}[-.]c000\\.snappy\\.parquet"), file)
        s"$dir $action"
      }.sorted
    }.toMap
  }

  /** Data files the sink's log names. */
  private def loggedFiles(out: String): Seq[File] = {
    val dir = new File(out, "_spark_metadata")
    dir.listFiles().filterNot(_.getName.startsWith(".")).toSeq.flatMap { f =>
      Files.readAllLines(f.toPath, UTF_8).asScala.tail.map { json =>
        new File(new java.net.URI("\"path\":\"([^\"]+)\"".r.findFirstMatchIn(json).get.group(1)))
      }
    }.distinct
  }

  private def registerBoom(): Unit = spark.udf.register("vecruntime_boom",
    (id: Long) => if (WritePathsSuite.armed.get() && id == WritePathsSuite.poison) {
      throw new IllegalStateException(s"planted failure at id $id")
    } else id)

  for (partitioned <- Seq(false, true)) {
    val shape = if (partitioned) "partitioned by p" else "unpartitioned"
    test(s"streaming file sink, $shape: 20 micro-batches natively, as Spark's writer writes them") {
      registerBoom()
      val input = streamInput(batches = 20, rows = 700)
      val (ours, theirs) = (newDir("stream-ours"), newDir("stream-spark"))
      runStream(input, ours, newDir("stream-ours-cp"), partitioned)
      withConf(VecRuntimeConf.ENABLED -> "false") {
        runStream(input, theirs, newDir("stream-spark-cp"), partitioned)
      }
      val (ol, tl) = (sinkLog(ours), sinkLog(theirs))
      assert(ol.keySet.size >= 20, ol.keySet)
      assert(ol == tl, "_spark_metadata entries")
      val (of, tf) = (loggedFiles(ours), loggedFiles(theirs))
      assert(of.length == tf.length, "files")
      of.foreach(f => assert(footer(f).getFileMetaData.getCreatedBy.startsWith("vecruntime version"), f))
      tf.foreach(f => assert(footer(f).getFileMetaData.getCreatedBy.startsWith("parquet-mr"), f))
      assert(footer(of.head).getFileMetaData.getKeyValueMetaData ==
        footer(tf.head).getFileMetaData.getKeyValueMetaData, "footer metadata")
      for (vectorized <- Seq(false, true)) {
        firstDifference(readBack(ours, vectorized), readBack(theirs, vectorized)).foreach { d =>
          fail(s"rows read back (vectorized=$vectorized) differ: $d")
        }
      }
      assert(spark.read.parquet(ours).count() == 20 * 700)
    }
  }

  test("a streaming micro-batch that fails mid-write and is run again: no row lost or twice") {
    registerBoom()
    val input = streamInput(batches = 8, rows = 700)
    def failThenRecover(out: String, checkpoint: String): Unit = {
      WritePathsSuite.armed.set(true)
      // Batch 5's rows before the poison reach the writer before the task fails.
      val e = intercept[StreamingQueryException](runStream(input, out, checkpoint, partitioned = true))
      assert(Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null)
        .exists(_.getMessage.contains("planted failure")), e)
      assert(sinkLog(out).keySet == (0 until 5).map(_.toString).toSet)
      WritePathsSuite.armed.set(false)
      runStream(input, out, checkpoint, partitioned = true)
    }
    val (ours, theirs) = (newDir("retry-ours"), newDir("retry-spark"))
    try {
      failThenRecover(ours, newDir("retry-ours-cp"))
      withConf(VecRuntimeConf.ENABLED -> "false") { failThenRecover(theirs, newDir("retry-spark-cp")) }
    } finally WritePathsSuite.armed.set(false)
    val expected = canonical(spark.read.schema(streamSchema).json(input))
    val back = spark.read.parquet(ours)
    val rows = canonical(back.select(streamSchema.fieldNames.toSeq.map(back.col): _*))
    assert(rows.length == 8 * 700)
    firstDifference(rows, expected).foreach(d => fail(s"rows against the input: $d"))
    assert(sinkLog(ours) == sinkLog(theirs), "_spark_metadata entries")
    loggedFiles(ours).foreach(f => assert(footer(f).getFileMetaData.getCreatedBy.startsWith("vecruntime version"), f))
  }
}

object WritePathsSuite {
  val armed = new AtomicBoolean(false)
  val poison = 5L * 700 + 350
}
