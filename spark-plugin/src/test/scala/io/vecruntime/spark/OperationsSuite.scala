package io.vecruntime.spark

import java.io.File
import java.net.URI
import java.nio.file.Files

import scala.concurrent.{Await, Future}
import scala.concurrent.ExecutionContext.Implicits.global
import scala.concurrent.duration._

import scala.collection.mutable
import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.{LocalFileSystem, Path}
import org.apache.hadoop.io.nativeio.NativeIO
import org.apache.logging.log4j.{Level, LogManager}
import org.apache.logging.log4j.core.LogEvent
import org.apache.logging.log4j.core.appender.AbstractAppender
import org.apache.logging.log4j.core.config.Property
import org.scalatest.concurrent.Eventually._
import org.scalatest.time.{Millis, Seconds, Span}

import org.apache.spark.sql.execution.command.DataWritingCommandExec

/** The native writer under what operators do to jobs (cancelling them) and what they see of it. */
class OperationsSuite extends VecRuntimeSparkSession {

  /** Runs `body` and returns what the plugin's write nodes logged meanwhile (INFO and above). */
  def logged(body: => Unit): Seq[(Level, String)] = {
    val events = mutable.Buffer[(Level, String)]()
    val appender = new AbstractAppender("vecruntime-capture", null, null, true,
        Property.EMPTY_ARRAY) {
      override def append(e: LogEvent): Unit =
        events.synchronized(events += ((e.getLevel, e.getMessage.getFormattedMessage)))
    }
    appender.start()
    val loggers = Seq(classOf[VecRuntimeFallbackWriteFilesExec], classOf[TaskWriteStats])
      .map(c => LogManager.getLogger(c).asInstanceOf[org.apache.logging.log4j.core.Logger])
    val levels = loggers.map(_.getLevel)
    loggers.foreach { l => l.addAppender(appender); l.setLevel(Level.INFO) }
    try body finally {
      loggers.zip(levels).foreach { case (l, level) => l.removeAppender(appender); l.setLevel(level) }
      appender.stop()
    }
    events.synchronized(events.toList)
  }

  test("Parquet settings Spark's writer takes are taken as parquet-java takes them") {
    val df = spark.range(0, 5000, 1, 1).selectExpr("id", "id % 7 as k", "cast(id as string) as s")
    val settings = Seq(
      Map("parquet.block.size" -> "-1"),
      Map("parquet.block.size" -> "0"),
      Map("parquet.block.size" -> "3221225472"),
      Map("compression" -> "zstd", "parquet.compression.codec.zstd.level" -> "99"),
      Map("parquet.bloom.filter.enabled#k" -> "true", "parquet.bloom.filter.fpp" -> "2.0",
        "parquet.bloom.filter.expected.ndv" -> "-3"),
      Map("parquet.bloom.filter.enabled" -> "true", "parquet.bloom.filter.adaptive.enabled" -> "true",
        "parquet.bloom.filter.candidates.number" -> "0"),
      Map("parquet.enable.dictionary" -> "maybe"),
      // A column's key for a column the file lacks: parquet-java ignores it.
      Map("parquet.enable.dictionary#absent" -> "false", "parquet.bloom.filter.enabled#absent" -> "true"),
      // A column's statistics; an expected NDV alone turns a column's bloom filter on.
      Map("parquet.column.statistics.enabled#k" -> "false", "parquet.bloom.filter.expected.ndv#id" -> "5000"),
      // Another codec's level is not read.
      Map("compression" -> "snappy", "zlib.compress.level" -> "FAST"))
    for (options <- settings) {
      val ours = newDir("setting")
      val theirs = newDir("setting-spark")
      assert(usesVecRuntime(planOf(df.write.options(options).parquet(ours))), options)
      withConf(VecRuntimeConf.ENABLED -> "false")(df.write.options(options).parquet(theirs))
      assert(readBack(ours, vectorized = true) == readBack(theirs, vectorized = true), options)
      val (o, t) = (footer(dataFiles(ours).head), footer(dataFiles(theirs).head))
      // Row groups: one, or (block size 0 or less) one at every size check, 100 rows each.
      assert(o.getBlocks.size == t.getBlocks.size, s"$options: row groups")
      val chunks = (m: org.apache.parquet.hadoop.metadata.ParquetMetadata) =>
        m.getBlocks.asScala.head.getColumns.asScala.map(c =>
          (c.getPath.toDotString, c.getCodec, c.hasDictionaryPage, c.getBloomFilterOffset >= 0,
            c.getStatistics.isEmpty))
      assert(chunks(o) == chunks(t), s"$options: codec, dictionary, bloom filter, statistics per column")
    }
  }

  test("byte stream split for all floating-point columns, as parquet-java's configuration") {
    val df = spark.range(0, 5000, 1, 1).selectExpr("id", "cast(id as double) / 7 as d",
      "cast(id as float) / 3 as f", "cast(id as double) / 11 as e")
    val options = Map("parquet.enable.bytestreamsplit" -> "true", "parquet.enable.dictionary" -> "false",
      "parquet.enable.bytestreamsplit#e" -> "false")
    val ours = newDir("bss")
    val theirs = newDir("bss-spark")
    assert(usesVecRuntime(planOf(df.write.options(options).parquet(ours))))
    withConf(VecRuntimeConf.ENABLED -> "false")(df.write.options(options).parquet(theirs))
    val split = (dir: String) => footer(dataFiles(dir).head).getBlocks.asScala.head.getColumns.asScala
      .map(c => c.getPath.toDotString -> c.getEncodings.asScala.exists(_.name == "BYTE_STREAM_SPLIT")).toMap
    // (ParquetOutputFormat reads no column's own key for it.)
    assert(split(ours) == Map("id" -> false, "d" -> true, "f" -> true, "e" -> true))
    assert(split(ours) == split(theirs))
  }

  test("a bad vecruntime setting fails the write before any task, naming the key") {
    import VecRuntimeConf._
    val bad = Seq(BATCH_ROWS -> "0", BATCH_ROWS -> "-1", BATCH_ROWS -> "abc", BATCH_ROWS -> "2e9",
      BATCH_ROWS -> "2000000000", BATCH_BYTES -> "0", TASK_BUFFER_BYTES -> "lots",
      MAX_OPEN_FILES -> "-5", COLUMNAR_INPUT -> "maybe", DELTA_NATIVE_STATISTICS -> "yes")
    for ((key, value) <- bad) {
      val tasks = new java.util.concurrent.atomic.AtomicInteger()
      val listener = new org.apache.spark.scheduler.SparkListener {
        override def onTaskStart(t: org.apache.spark.scheduler.SparkListenerTaskStart): Unit =
          tasks.incrementAndGet()
      }
      spark.sparkContext.addSparkListener(listener)
      val e = try withConf(key -> value) {
        intercept[Exception](spark.range(10).write.parquet(newDir("bad-setting")))
      } finally {
        org.apache.spark.vecruntime.ListenerShim.waitUntilEmpty(spark.sparkContext)
        spark.sparkContext.removeSparkListener(listener)
      }
      val messages = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).toList
      assert(messages.exists(m => m.isInstanceOf[IllegalArgumentException] &&
        m.getMessage.contains(key) && m.getMessage.contains(value)), s"$key=$value: $e")
      assert(tasks.get == 0, s"$key=$value: tasks ran")
    }
  }

  test("VectorWriteFiles reports SQL metrics; Spark's write metrics keep their values") {
    val n = 60000
    // Two files of 30,000 rows: 20,000 of 50 distinct values, then every value new. Small pages
    // and dictionary pages: `a` and `s` fall back to plain pages mid-chunk, `k` does not.
    val df = spark.range(0, n, 1, 2).selectExpr(
      "if(id % 30000 < 20000, id % 50, id * 7) as a",
      "if(id % 30000 < 20000, cast(id % 50 as string), cast(id * 7 as string)) as s",
      "id % 10 as k")
    val ours = newDir("metrics")
    val theirs = newDir("metrics-spark")
    val options = Map("parquet.page.size" -> "4096", "parquet.dictionary.page.size" -> "8192")
    val plan = planOf(df.write.options(options).parquet(ours))
    val sparkPlan = withConf(VecRuntimeConf.ENABLED -> "false") {
      planOf(df.write.options(options).parquet(theirs))
    }
    val node = nodesOf(plan).collectFirst { case v: VectorWriteFilesExec => v }
      .getOrElse(fail(s"not native: $plan"))
    val m = node.metrics.map { case (k, v) => k -> v.value }
    val files = dataFiles(ours)
    val fallbacks = files.map(f => footer(f).getBlocks.asScala.map(_.getColumns.asScala.count(c =>
      c.hasDictionaryPage && c.getEncodingStats.hasNonDictionaryEncodedPages)).sum).sum
    assert(m(TaskWriteStats.Rows) == n)
    assert(m(TaskWriteStats.Files) == files.size)
    assert(m(TaskWriteStats.Bytes) == files.map(_.length).sum)
    assert(fallbacks == 2 * files.size && m(TaskWriteStats.DictionaryFallbacks) == fallbacks)
    assert(m(TaskWriteStats.EncodeTime) > 0 && m(TaskWriteStats.KernelTime) > 0, m)
    assert(m(TaskWriteStats.PeakMemory) > 0, m)
    // Spark's own write metrics, on the command, as Spark's writer reports them.
    def command(p: org.apache.spark.sql.execution.SparkPlan) =
      nodesOf(p).collectFirst { case c: DataWritingCommandExec => c.metrics.map { case (k, v) => k -> v.value } }.get
    val (c, s) = (command(plan), command(sparkPlan))
    for (k <- Seq("numOutputRows", "numFiles", "numParts")) assert(c(k) == s(k), k)
    assert(c("numOutputBytes") == files.map(_.length).sum)
  }

  test("a fallback is a warning once a write; each task logs one line at INFO") {
    val events = logged {
      // A writer version parquet-java does not know: Spark's writer takes the write (in two
      // tasks) and fails it as its own.
      val v3 = spark.range(0, 10, 1, 2).write.option("parquet.writer.version", "v3")
      intercept[Exception](v3.parquet(newDir("logged-fallback")))
      spark.range(0, 1000, 1, 2).write.parquet(newDir("logged"))
    }
    val warnings = events.filter(_._1 == Level.WARN).map(_._2)
    assert(warnings.count(_.contains("Spark's writer writes this: parquet.writer.version=v3")) == 1, events)
    val tasks = events.filter(e => e._1 == Level.INFO && e._2.startsWith("vecruntime: task"))
    assert(tasks.size == 2, events)
    val rows = tasks.map { case (_, l) => "wrote (\\d+) rows to (\\d+) files".r.findFirstMatchIn(l).get }
    assert(rows.map(_.group(1).toLong).sum == 1000 && rows.map(_.group(2).toInt).sum == 2, tasks)
  }

  def files(dir: File): Seq[File] =
    if (dir.isDirectory) Option(dir.listFiles()).toSeq.flatten.flatMap(files)
    else if (dir.exists) Seq(dir) else Nil

  /**
   * Spark aborts the job (deleting `_temporary`) while its killed tasks still run: a task that
   * opens a file before its kill arrives makes the directories again, with Spark's writer as with
   * ours, and its own abort then deletes its files. What must not remain is a file.
   */
  test("a cancelled write stops at its next batch and leaves no file behind") {
    spark.udf.register("slow", (x: Long) => { if (x % 1000 == 0) Thread.sleep(25); x })
    for (round <- 1 to 4; partitioned = round % 2 == 0) {
      val dir = new File(newDir("cancelled"))
      val df = spark.range(0, 400000, 1, 2)
        .selectExpr("slow(id) as id", "cast(id as string) as s", "id % 50 as p")
      val writing = Future {
        val w = df.write.option("maxRecordsPerFile", 500)
        (if (partitioned) w.partitionBy("p") else w).parquet(dir.getAbsolutePath)
      }
      eventually(timeout(Span(60, Seconds)), interval(Span(20, Millis))) {
        assert(files(dir).exists(_.getName.contains("part-")), "the tasks are writing")
      }
      spark.sparkContext.cancelAllJobs()
      intercept[Exception](Await.result(writing, 60.seconds))
      eventually(timeout(Span(60, Seconds)), interval(Span(50, Millis))) {
        assert(spark.sparkContext.statusTracker.getExecutorInfos.map(_.numRunningTasks).sum == 0)
      }
      Thread.sleep(500)
      assert(files(dir).isEmpty,
        s"round $round (partitioned: $partitioned): ${files(dir).take(5).mkString(", ")}")
    }
  }

  test("local files are created as Hadoop's local file system creates them, with no chmod process") {
    val conf = spark.sessionState.newHadoopConf()
    val dir = new File(newDir("local-files"))
    // With Hive on the class path (as in pyspark), `file:` paths get Hive's ProxyLocalFileSystem.
    val proxy = new Path(dir.toURI).getFileSystem(conf)
    assert(proxy.getClass.getName == "org.apache.hadoop.hive.ql.io.ProxyLocalFileSystem")
    val plain = new LocalFileSystem()
    plain.initialize(URI.create("file:///"), conf)
    for (fs <- Seq(proxy, plain)) {
      assert(LocalFiles.chmodFreeFor(fs) == !NativeIO.isAvailable, fs.getClass)
      val name = fs.getClass.getSimpleName
      val (ours, theirs) = (new Path(s"${dir.toURI}/$name/ours/part"), new Path(s"${dir.toURI}/$name/theirs/part"))
      val bytes = Array.tabulate[Byte](70000)(i => (i * 31 % 251).toByte)
      Seq(LocalFiles.create(fs, ours, 4096), fs.create(theirs, false, 4096)).foreach { out =>
        try out.write(bytes) finally out.close()
      }
      def local(p: Path, crc: Boolean = false) =
        new File(if (crc) new File(p.toUri).getParent + "/." + p.getName + ".crc" else p.toUri.getPath).toPath
      for (crc <- Seq(false, true)) {
        assert(Files.readAllBytes(local(ours, crc)).sameElements(Files.readAllBytes(local(theirs, crc))), s"$name $crc")
        assert(Files.getPosixFilePermissions(local(ours, crc)) == Files.getPosixFilePermissions(local(theirs, crc)))
      }
      assert(Files.getPosixFilePermissions(local(ours).getParent) ==
        Files.getPosixFilePermissions(local(theirs).getParent))
    }
  }
}
