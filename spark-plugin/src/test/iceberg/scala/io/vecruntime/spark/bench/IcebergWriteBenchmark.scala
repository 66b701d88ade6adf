package io.vecruntime.spark.bench

import java.io.File

import io.vecruntime.spark.{VecRuntimeConf, VecRuntimeExtensions}

import org.apache.spark.sql.{DataFrame, SparkSession}

/**
 * TPC-DS store_sales into Apache Iceberg tables (a Hadoop catalog), in one local[2] session per
 * launch, the writers alternating in it: Iceberg's writer (the plugin off) against the native
 * writer, or
 * (`comet`) Apache DataFusion Comet's native Iceberg writer. Cases: `flat` (a new table of the
 * whole table) and `days` (the same partitioned by days(ss_sold_date), a date made from
 * ss_sold_date_sk), each with zstd (Iceberg's default) and snappy. Input: `cached` (the table
 * cached in Spark's memory) or `file` (read from the Parquet file by the timed job: Comet's
 * writer writes natively only from its own native scan). The medians of the runs of the timed
 * statement's wall time and executor CPU time, and the bytes of the table's data files.
 * Tables are kept until the next launch starts: ext4 makes each new file's inode allocation scan
 * past inodes freed in the last 30 seconds, which would slow the next run's 3,600 files; the
 * partitioned case starts no sooner than 35 seconds after the launch deleted the last one's.
 * With `RESULTS=file` each measured run is appended to it; `summary file` prints the medians
 * of every writer in it (launches alternating: Comet needs its own launch). The writer `read`
 * is Spark's `noop` sink on the same rows: what producing them costs (the cache's row decoding,
 * or the scan), which Iceberg's writer pays, and the plugin too except where it decodes the
 * cached batches itself (the flat write: `CachedColumnsExec`). The writer `vecruntime_rows` is
 * the plugin with columnar input off (`spark.vecruntime.write.columnarInput.enabled=false`):
 * the cache read as Spark's rows.
 *
 * Arguments: `store_sales.parquet runs writers(iceberg,vecruntime[,vecruntime_rows][,read] | comet)
 * input(cached|file) [cases=flat,days] [codecs=zstd,snappy]`, or `summary results-file`.
 */
object IcebergWriteBenchmark {
  import LocalSpark.{deleteRecursively, parquetFiles}

  /** Comet 1.2's settings for its native Iceberg writes (its plugin, shuffle and off-heap pool). */
  val CometConf = Seq(
    "spark.plugins" -> "org.apache.spark.CometPlugin",
    "spark.shuffle.manager" -> "org.apache.spark.sql.comet.execution.shuffle.CometShuffleManager",
    "spark.comet.enabled" -> "true",
    "spark.comet.exec.enabled" -> "true",
    "spark.comet.write.iceberg.enabled" -> "true",
    "spark.comet.explain.fallback.enabled" -> "true")

  def main(args: Array[String]): Unit = if (args(0) == "summary") summary(args(1)) else run(args)

  private def run(args: Array[String]): Unit = {
    val input = new File(args(0)).getAbsolutePath
    val runs = args(1).toInt
    val writers = args(2).split(",").toSeq
    val fromFile = args(3) == "file"
    val cases = args.lift(4).map(_.split(",").toSeq).getOrElse(Seq("flat", "days"))
    val codecs = args.lift(5).map(_.split(",").toSeq).getOrElse(Seq("zstd", "snappy"))
    val comet = writers == Seq("comet")
    val warehouse = new File("benchmarks/data/iceberg-write").getAbsoluteFile
    deleteRecursively(warehouse)
    val deleted = System.nanoTime()
    val iceberg = LocalSpark.fileSystem ++ Seq(
      "spark.sql.catalog.bench" -> "org.apache.iceberg.spark.SparkCatalog",
      "spark.sql.catalog.bench.type" -> "hadoop",
      "spark.sql.catalog.bench.warehouse" -> warehouse.getPath,
      "spark.sql.shuffle.partitions" -> "2")
    val extensions = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
    val spark = if (comet) {
      val b = SparkSession.builder().master("local[2]").appName("iceberg-write benchmark (Comet)")
        .config("spark.ui.enabled", "false").config("spark.memory.offHeap.enabled", "true")
        .config("spark.memory.offHeap.size", "4g").config("spark.sql.extensions", extensions)
      val s = (iceberg ++ CometConf).foldLeft(b) { case (b, (k, v)) => b.config(k, v) }.getOrCreate()
      s.sparkContext.setLogLevel("WARN")
      s
    } else {
      LocalSpark.session("iceberg-write benchmark", "4g",
        iceberg :+ ("spark.sql.extensions" -> s"$extensions,${classOf[VecRuntimeExtensions].getName}"): _*)
    }
    val meter = new Meter(spark)
    try {
      // A date for days(): TPC-DS date keys are Julian day numbers (2415022 is 1900-01-02).
      def source(): DataFrame = spark.read.parquet(input)
        .selectExpr("*", "date_add(date'1900-01-02', ss_sold_date_sk - 2415022) as ss_sold_date")
      val df = if (fromFile) source() else source().cache()
      val rows = df.count()
      println(f"store_sales: $rows%,d rows from $input, ${if (fromFile) "read by each write" else "cached"}; " +
        s"local[2]; Iceberg ${org.apache.iceberg.IcebergBuild.version()}; median of $runs runs" +
        (if (LocalSpark.fileSystem.nonEmpty) "; file: without chmod processes for every writer" else ""))
      def withPlugin[T](writer: String)(f: => T): T = {
        if (!comet) {
          spark.conf.set(VecRuntimeConf.ENABLED, writer.startsWith("vecruntime").toString)
          spark.conf.set(VecRuntimeConf.COLUMNAR_INPUT, (writer != "vecruntime_rows").toString)
        }
        try f finally if (!comet) {
          spark.conf.set(VecRuntimeConf.ENABLED, "true")
          spark.conf.set(VecRuntimeConf.COLUMNAR_INPUT, "true")
        }
      }
      val results = for (name <- cases; codec <- codecs) yield {
        if (name == "days") Thread.sleep(math.max(0L, 35000L - (System.nanoTime() - deleted) / 1000000))
        val perWriter = writers.map(_ -> scala.collection.mutable.Buffer[TableRun]()).toMap
        // One unmeasured round, then the runs, writers alternating.
        for (run <- 0 to runs; writer <- writers) if (writer == "read") {
          val (wall, cpu) = withPlugin(writer)(meter.measure(df.write.format("noop").mode("overwrite").save()))
          if (run > 0) perWriter(writer) += TableRun(wall, cpu, 0)
        } else {
          val table = s"bench.db.${name}_${codec}_${writer}_$run"
          val partitioning = if (name == "days") "PARTITIONED BY (days(ss_sold_date))" else ""
          spark.sql(s"CREATE TABLE $table (${df.schema.toDDL}) USING iceberg $partitioning " +
            s"TBLPROPERTIES ('write.parquet.compression-codec' = '$codec')")
          val (wall, cpu) = withPlugin(writer)(meter.measure(df.writeTo(table).append()))
          val dir = new File(warehouse, s"db/${name}_${codec}_${writer}_$run")
          if (run > 0) {
            val r = TableRun(wall, cpu, parquetFiles(new File(dir, "data")).map(_.length).sum)
            perWriter(writer) += r
            sys.env.get("RESULTS").foreach(f => append(f, s"$name, $codec\t$writer\t${r.wall}\t${r.cpu}\t${r.bytes}"))
          } else {
            // Who wrote the files (Comet falls back to Iceberg's writer where its scan is not native).
            val createdBy = parquetFiles(new File(dir, "data")).map(createdByOf).distinct
            println(s"$name, $codec, $writer: ${createdBy.mkString(", ")}")
          }
        }
        s"$name, $codec" -> writers.map(w => w -> TableRun.median(perWriter(w).toSeq))
      }
      print(results)
    } finally spark.stop()
  }

  private def print(results: Seq[(String, Seq[(String, TableRun)])]): Unit = {
    println()
    println("| case | writer | time | CPU | bytes |")
    println("|---|---|--:|--:|--:|")
    for ((name, ws) <- results; (w, r) <- ws) {
      println(f"| $name | $w | ${r.wall}%.2f s | ${r.cpu}%.2f s | ${r.bytes}%,d |")
    }
    // vecruntime against each other writer.
    val peers = results.flatMap(_._2.map(_._1)).distinct.filter(w => w != "vecruntime" && w != "read")
    if (results.forall(_._2.exists(_._1 == "vecruntime")) && peers.nonEmpty) {
      println()
      println("| case | " + peers.map(p => s"vecruntime vs $p: speed-up | CPU: x less | bytes").mkString(" | ") + " |")
      println("|---|" + peers.map(_ => "--:|--:|--:|").mkString)
      for ((name, ws) <- results) {
        val m = ws.toMap
        val b = m("vecruntime")
        println(s"| $name | " + peers.map { p =>
          m.get(p).fold(" |  | ")(a => f"${a.wall / b.wall}%.2fx | ${a.cpu / b.cpu}%.2fx | ${b.bytes.toDouble / a.bytes}%.3f")
        }.mkString(" | ") + " |")
      }
    }
  }

  private def append(file: String, line: String): Unit = {
    val w = new java.io.FileWriter(file, true)
    try w.write(line + "\n") finally w.close()
  }

  /** The medians of each case and writer in a RESULTS file of alternating launches. */
  private def summary(file: String): Unit = {
    val lines = scala.io.Source.fromFile(file).getLines().map(_.split("\t")).toSeq
    val cases = lines.map(_(0)).distinct
    println(s"medians of ${lines.count(_(1) == lines.head(1)) / cases.size} launches per writer, alternating")
    print(cases.map { c =>
      c -> lines.filter(_(0) == c).map(_(1)).distinct.map { w =>
        w -> TableRun.median(lines.filter(l => l(0) == c && l(1) == w).map(l => TableRun(l(2).toDouble, l(3).toDouble, l(4).toLong)))
      }
    })
  }

  def createdByOf(f: File): String = {
    val r = org.apache.parquet.hadoop.ParquetFileReader.open(
      org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(f.getPath),
        new org.apache.hadoop.conf.Configuration()))
    try r.getFooter.getFileMetaData.getCreatedBy.split(" \\(").head finally r.close()
  }

}
