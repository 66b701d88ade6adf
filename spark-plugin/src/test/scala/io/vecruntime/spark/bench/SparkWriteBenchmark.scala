package io.vecruntime.spark.bench

import java.io.File
import java.util.concurrent.atomic.AtomicLong

import io.vecruntime.spark.VecRuntimeConf

import org.apache.spark.scheduler.{SparkListener, SparkListenerTaskEnd}
import org.apache.spark.sql.{functions, DataFrame, SparkSession}
import org.apache.spark.vecruntime.ListenerShim

/**
 * TPC-DS store_sales written by Spark's writer v1 (the default), Spark's writer v2,
 * vecruntime (v2 pages) and vecruntime with `parquet.writer.version=v1`, in one local[2] session (table cached, off-heap pool on), per shape and codec.
 * Shapes (`SHAPES`, default all): `flat` (every codec), `partitioned`
 * (`partitionBy("ss_sold_date_sk")`, snappy) and `bucketed` (`bucketBy(64, "ss_item_sk")` with
 * `saveAsTable`, snappy) and `nested` (store_sales grouped by ticket: its lines an
 * `array<struct<...>>` and a `map<string,int>`, snappy), and on request (`SHAPES=variant`)
 * `variant` (each row a Variant object of 8 of its fields, snappy), `geo` (Spark 4.2: each row
 * a POINT and a 4-point LINESTRING, snappy) and `bucketed-sorted` (`bucketed` with
 * `sortBy("ss_ticket_number")`: Spark's sort stays, each file written from sorted input); all
 * but `flat` against Spark v1 only, and vecruntime v1 in flat writes only. Per case the median
 * of the runs of: whole write time, write alone (minus a `noop` write of the same DataFrame
 * run next to it), executor CPU time (task metrics, whole and minus the noop's), bytes and
 * files (the heap collected before each measured write and noop). Prints a Markdown table and the ratios of
 * ours to each Spark writer (vecruntime v1 to Spark v1: the same page format).
 *
 * Arguments: `store_sales.parquet [runs=5] [codecs=snappy,zstd,none] [outDir] [writers]`
 * (writers: a comma-separated subset of `v1,v2,vecruntime,vecv1,vec43`; `vec43` is vecruntime
 * with `spark.vecruntime.write.oldestSparkReader=4.3`, flat only). Before the measured
 * runs, `WARMUPS` (default 1) unmeasured rounds of every case.
 */
object SparkWriteBenchmark {
  import LocalSpark.{deleteRecursively, parquetFiles}

  case class Run(wall: Double, noopWall: Double, cpu: Double, noopCpu: Double, bytes: Long, files: Int) {
    def alone: Double = wall - noopWall
    def cpuAlone: Double = cpu - noopCpu
  }

  def main(args: Array[String]): Unit = {
    val input = new File(args(0)).getAbsolutePath
    val runs = args.lift(1).map(_.toInt).getOrElse(5)
    val codecs = args.lift(2).map(_.split(",").toSeq).getOrElse(Seq("snappy", "zstd", "none"))
    val out = new File(args.lift(3).getOrElse("benchmarks/data/spark-write")).getAbsoluteFile
    val spark = LocalSpark.session("vecruntime spark-write benchmark", "4g")
    val cpuNanos = new AtomicLong()
    val taskMillis = new AtomicLong()
    spark.sparkContext.addSparkListener(new SparkListener {
      override def onTaskEnd(e: SparkListenerTaskEnd): Unit =
        if (e.taskMetrics != null) {
          cpuNanos.addAndGet(e.taskMetrics.executorCpuTime)
          taskMillis.addAndGet(e.taskMetrics.executorRunTime)
        }
    })
    try {
      val df = spark.read.parquet(input).cache()
      val rows = df.count()
      println(f"store_sales: $rows%,d rows from $input, ${df.rdd.getNumPartitions} partitions, cached; " +
        s"local[2], off-heap pool on; median of $runs runs; " +
        (if (dropsPageCache) "page cache dropped before each measured write" else "page cache kept"))

      def measure(write: => Unit): (Double, Double) = {
        ListenerShim.waitUntilEmpty(spark.sparkContext)
        dropPageCache()
        // Each measured write starts from a collected heap: a young collection of the garbage
        // the previous write left (Spark's writers leave gigabytes) would otherwise land in
        // whichever write or noop runs next and count in its time.
        System.gc()
        cpuNanos.set(0)
        taskMillis.set(0)
        val t = System.nanoTime()
        write
        val wall = (System.nanoTime() - t) / 1e9
        ListenerShim.waitUntilEmpty(spark.sparkContext)
        if (sys.env.contains("TASK_TIMES")) {
          println(f"  wall $wall%.2f s, tasks ${taskMillis.get() / 1e3}%.2f s, CPU ${cpuNanos.get() / 1e9}%.2f s")
        }
        (wall, cpuNanos.get() / 1e9)
      }

      val warmups = sys.env.get("WARMUPS").map(_.toInt).getOrElse(1)
      val chosen = args.lift(4).map(_.split(",").toSet)
        .getOrElse(Set("v1", "v2", "vecruntime", "vecv1"))
      val shapes = sys.env.get("SHAPES").map(_.split(",").toSeq)
        .getOrElse(Seq("flat", "partitioned", "bucketed", "nested"))
      // The nested table: store_sales grouped by ticket, its lines an array of structs, plus a
      // map<string,int> and two flat columns (about 240,000 rows at sf=1), in 2 partitions as
      // the flat table (the aggregation's 200 would make 200 small files).
      lazy val nested = {
        val n = df.groupBy("ss_ticket_number").agg(
          functions.first("ss_customer_sk").as("customer"),
          functions.first("ss_sold_date_sk").as("day"),
          functions.collect_list(functions.struct(
            functions.col("ss_item_sk").as("item"), functions.col("ss_quantity").as("quantity"),
            functions.col("ss_wholesale_cost").as("wholesale_cost"),
            functions.col("ss_list_price").as("list_price"),
            functions.col("ss_sales_price").as("sales_price"),
            functions.col("ss_net_paid").as("net_paid"),
            functions.col("ss_net_profit").as("net_profit"),
            functions.col("ss_promo_sk").as("promo"))).as("lines"),
          functions.first("ss_store_sk").as("store"), functions.count("*").as("n"),
          functions.first("ss_hdemo_sk").as("hdemo"))
          .selectExpr("ss_ticket_number", "customer", "day", "lines",
            "map('store', store, 'lines', cast(n as int), 'hdemo', hdemo) as attrs")
          .coalesce(2).cache()
        println(f"nested: ${n.count()}%,d tickets (array<struct<8 fields>>, map<string,int>), cached")
        n
      }
      // Event-like data: each store_sales row as a Variant object of 8 fields (Spark 4.1+),
      // shredded by both writers as Spark infers it (typed_value columns per field).
      lazy val variant = {
        val v = df.selectExpr("ss_ticket_number", "to_variant_object(named_struct(" +
          "'item', ss_item_sk, 'customer', ss_customer_sk, 'quantity', ss_quantity, " +
          "'list_price', ss_list_price, 'sales_price', ss_sales_price, 'net_paid', ss_net_paid, " +
          "'promo', ss_promo_sk, 'sold', ss_sold_date_sk)) AS event").cache()
        println(f"variant: ${v.count()}%,d rows (a Variant object of 8 fields), cached")
        v
      }
      // Spatial data (Spark 4.2): each row a POINT (GEOMETRY(4326)) and a 4-point LINESTRING
      // (GEOMETRY(0)) from its keys and prices.
      lazy val geo = {
        def wkb(code: Int, coords: Seq[Double], count: Boolean): Array[Byte] = {
          val b = java.nio.ByteBuffer.allocate(9 + 8 * coords.size).order(java.nio.ByteOrder.LITTLE_ENDIAN)
          b.put(1.toByte).putInt(code)
          if (count) b.putInt(coords.size / 2)
          coords.foreach(c => b.putDouble(c))
          java.util.Arrays.copyOf(b.array(), b.position())
        }
        val rows = df.selectExpr("CAST(ss_ticket_number AS BIGINT)", "ss_item_sk", "ss_customer_sk",
            "CAST(ss_sales_price AS DOUBLE)", "CAST(ss_net_profit AS DOUBLE)").rdd.map { r =>
          def d(i: Int) = if (r.isNullAt(i)) 0.0 else r.getAs[Number](i).doubleValue
          val (x, y) = (d(1) % 360 - 180 + d(3) / 1000, d(2) % 180 - 90 + d(4) / 100000)
          org.apache.spark.sql.Row(r.get(0), wkb(1, Seq(x, y), count = false),
            wkb(2, Seq(x, y, x + d(3), y, x + d(3), y + d(4), x, y + d(4)), count = true))
        }
        val schema = new org.apache.spark.sql.types.StructType().add("ss_ticket_number", "bigint")
          .add("p", "binary").add("l", "binary")
        // Spark's cache holds no geospatial column: the WKB is cached, and each write (and
        // its noop) makes the geometries of it.
        val wkbs = spark.createDataFrame(rows, schema).cache()
        println(f"geo: ${wkbs.count()}%,d rows (a POINT and a 4-point LINESTRING), WKB cached")
        wkbs.selectExpr("ss_ticket_number", "st_geomfromwkb(p, 4326) AS location",
          "st_geomfromwkb(l) AS path")
      }
      def source(shape: String) = shape match {
        case "nested" => nested
        case "variant" => variant
        case "geo" => geo
        case _ => df
      }
      val allWriters = Seq("Spark v1" -> "v1", "Spark v2" -> "v2", "vecruntime" -> "vecruntime",
        "vecruntime v1" -> "vecv1", "vecruntime readers 4.3+" -> "vec43").filter(w => chosen.contains(w._2)).map(_._1)
      def isOurs(writer: String) = writer.startsWith("vecruntime")
      // (shape, codec, writers): partitioned and bucketed writes against Spark's default writer.
      val cases = shapes.flatMap {
        case "flat" => codecs.map(c => ("flat", c, allWriters))
        case shape =>
          Seq((shape, "snappy", allWriters.filter(w => w == "Spark v1" || w == "vecruntime")))
      }
      def write(shape: String, writer: String, codec: String, dir: File): Unit = {
        var w = source(shape).write.option("compression", codec)
        if (writer == "Spark v2") w = w.option("parquet.writer.version", "v2")
        if (writer == "vecruntime v1") w = w.option("parquet.writer.version", "v1")
        if (writer == "vecruntime readers 4.3+") w = w.option(VecRuntimeConf.OLDEST_SPARK_READER, "4.3")
        shape match {
          case "flat" | "nested" | "variant" | "geo" => w.parquet(dir.getAbsolutePath)
          case "partitioned" => w.partitionBy("ss_sold_date_sk").parquet(dir.getAbsolutePath)
          case "bucketed" | "bucketed-sorted" =>
            spark.sql("DROP TABLE IF EXISTS bench_bucketed")
            val b = w.bucketBy(64, "ss_item_sk")
            (if (shape == "bucketed") b else b.sortBy("ss_ticket_number"))
              .option("path", dir.getAbsolutePath).saveAsTable("bench_bucketed")
            spark.sql("DROP TABLE IF EXISTS bench_bucketed")
          case other => throw new IllegalArgumentException(s"unknown shape $other")
        }
      }
      // Every run writes into a new directory, and all of them are deleted only after the last
      // run: on an ext4 file system without a journal (this machine's), creating a file scans
      // past every inode deleted in the last minutes (`recently_deleted`), so deleting one run's
      // 7,296 files before the next would charge each later file creation with that scan, a
      // quarter of the partitioned write's CPU, for every writer alike.
      val written = scala.collection.mutable.Buffer[File]()
      def fresh(name: String): File = {
        val dir = new File(out, name)
        deleteRecursively(dir)
        written += dir
        dir
      }
      // Warm-up, not measured: JIT compilation of every writer's path (and the first use of
      // each codec) otherwise lands in the first case's runs, for every writer.
      for (round <- 1 to warmups; (shape, codec, writers) <- cases; writer <- writers) {
        spark.conf.set(VecRuntimeConf.ENABLED, isOurs(writer).toString)
        source(shape).write.format("noop").mode("overwrite").save()
        write(shape, writer, codec, fresh(s"warmup$round-$shape-$codec-${writer.replace(' ', '-')}"))
      }
      println(s"warm-up: $warmups round(s) of every case, not measured")
      val results = for ((shape, codec, writers) <- cases) yield {
        val perWriter = writers.map(_ -> scala.collection.mutable.Buffer[Run]()).toMap
        for (run <- 1 to runs; writer <- writers) {
          spark.conf.set(VecRuntimeConf.ENABLED, isOurs(writer).toString)
          val (noopWall, noopCpu) = measure(source(shape).write.format("noop").mode("overwrite").save())
          val dir = fresh(s"$shape-$codec-${writer.replace(' ', '-')}-$run")
          val (wall, cpu) = measure(write(shape, writer, codec, dir))
          val files = parquetFiles(dir)
          perWriter(writer) += Run(wall, noopWall, cpu, noopCpu, files.map(_.length).sum, files.length)
        }
        spark.conf.set(VecRuntimeConf.ENABLED, "true")
        (shape, codec) -> writers.map(w => w -> median(perWriter(w).toSeq))
      }
      println()
      println("| shape | codec | writer | write | write alone | CPU | CPU alone | bytes | files |")
      println("|---|---|---|---|---|---|---|---|---|")
      for (((shape, codec), ws) <- results; (w, r) <- ws) {
        println(f"| $shape | $codec | $w | ${r.wall}%.2f s | ${r.alone}%.2f s | ${r.cpu}%.2f s | ${r.cpuAlone}%.2f s | ${r.bytes}%,d | ${r.files} |")
      }
      println()
      println("| shape | codec | ours | vs | write: speed-up | write alone: speed-up | CPU: x less | CPU alone: ours / theirs | bytes: ours / theirs | files: ours / theirs |")
      println("|---|---|---|---|---|---|---|---|---|---|")
      for (((shape, codec), ws) <- results; (o, ours) <- ws if isOurs(o)) {
        // vecruntime v1 against Spark v1 only: the same page format.
        for ((w, r) <- ws if !isOurs(w) && (o == "vecruntime" || w == "Spark v1")) {
          println(f"| $shape | $codec | $o | $w | ${r.wall / ours.wall}%.2fx | ${r.alone / ours.alone}%.2fx | ${r.cpu / ours.cpu}%.2fx | ${ours.cpuAlone / r.cpuAlone}%.3f (${r.cpuAlone / ours.cpuAlone}%.2fx less) | ${ours.bytes.toDouble / r.bytes}%.3f | ${ours.files} / ${r.files} |")
        }
      }
      written.foreach(deleteRecursively)
    } finally spark.stop()
  }

  /**
   * On a virtual machine whose host backs guest memory lazily (this one: virtio balloon with
   * free page reporting), a page cache grown past the memory the host has backed costs a host
   * fault on every page a write dirties: one 29 MB file written with a FileOutputStream took
   * 7 ms until about 600 MB of files had been written and kept, then 71 ms each, with or
   * without `sync`; dropping the clean page cache between files kept every one at 7 ms. Runs
   * keep their output (see `fresh`), so later runs paid that per byte written, every writer
   * alike. Before each measured write and noop, the output is synced and the clean page cache
   * dropped (when /proc/sys/vm/drop_caches is writable; `DROP_CACHES=0` keeps it), so that
   * writes land in recycled pages, as on a machine whose page cache is warm.
   */
  private val dropsPageCache =
    !sys.env.get("DROP_CACHES").contains("0") && new File("/proc/sys/vm/drop_caches").canWrite

  private def dropPageCache(): Unit = if (dropsPageCache) {
    new ProcessBuilder("sync").inheritIO().start().waitFor()
    java.nio.file.Files.writeString(java.nio.file.Paths.get("/proc/sys/vm/drop_caches"), "1")
  }

  /** Each measure of the runs' median, separately. */
  def median(rs: Seq[Run]): Run = {
    def m(f: Run => Double): Double = rs.map(f).sorted.apply(rs.length / 2)
    Run(m(_.wall), m(_.noopWall), m(_.cpu), m(_.noopCpu), m(_.bytes.toDouble).toLong, m(_.files.toDouble).toInt)
  }
}
