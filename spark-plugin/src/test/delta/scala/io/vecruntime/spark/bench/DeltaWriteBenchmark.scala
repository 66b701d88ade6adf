package io.vecruntime.spark.bench

import java.io.File

import io.vecruntime.spark.VecRuntimeConf

import org.apache.spark.sql.{DataFrame, SparkSession}

/**
 * TPC-DS store_sales into Delta Lake tables, Delta's writer (the plugin off) against the native
 * writer, in one local[2] session (the table cached, snappy), launches alternating. Cases:
 * `append` (a new table from the whole table), `partitioned` (the same, partitioned by
 * ss_sold_date_sk), `merge` (MERGE of 10% of the rows updated and 1% new into a table of
 * store_sales that Delta's writer wrote), `optimize` (OPTIMIZE of a table of 40 appends that
 * Delta's writer wrote). The medians of the runs of the timed statement's wall time and
 * executor CPU time, and the bytes of the table's data files.
 *
 * Arguments: `store_sales.parquet [runs=5] [cases=append,partitioned,merge,optimize]
 * [writers=Delta,vecruntime]` (one writer alone: to profile it).
 */
object DeltaWriteBenchmark {
  import LocalSpark.deleteRecursively

  def main(args: Array[String]): Unit = {
    val input = new File(args(0)).getAbsolutePath
    val runs = args.lift(1).map(_.toInt).getOrElse(5)
    val cases = args.lift(2).map(_.split(",").toSeq)
      .getOrElse(Seq("append", "partitioned", "merge", "optimize"))
    val out = new File("benchmarks/data/delta-write").getAbsoluteFile
    val spark = LocalSpark.session("vecruntime delta-write benchmark", "4g", LocalSpark.fileSystem ++ Seq(
      "spark.sql.extensions" ->
        "io.delta.sql.DeltaSparkSessionExtension,io.vecruntime.spark.VecRuntimeExtensions",
      "spark.sql.catalog.spark_catalog" -> "org.apache.spark.sql.delta.catalog.DeltaCatalog",
      "spark.sql.shuffle.partitions" -> "2"): _*)
    val meter = new Meter(spark)
    try {
      val df = spark.read.parquet(input).cache()
      val rows = df.count()
      println(f"store_sales: $rows%,d rows from $input, ${df.rdd.getNumPartitions} partitions, " +
        s"cached; local[2]; Delta Lake ${io.delta.VERSION}; median of $runs runs" +
        (if (LocalSpark.fileSystem.nonEmpty) "; file: without chmod processes for every writer" else ""))
      // 10% of the rows with a new quantity, and 1% new rows (ticket numbers past the table's).
      val updates = df.where("abs(hash(ss_ticket_number, ss_item_sk)) % 10 = 0")
        .selectExpr("*").withColumn("ss_quantity", org.apache.spark.sql.functions.expr("ss_quantity + 1"))
      val inserts = df.where("abs(hash(ss_item_sk, ss_ticket_number)) % 100 = 1")
        .withColumn("ss_ticket_number", org.apache.spark.sql.functions.expr("ss_ticket_number + 1000000000"))
      val changes = updates.unionByName(inserts).cache()
      println(f"merge source: ${changes.count()}%,d rows (10%% updated, 1%% new), cached")
      changes.createOrReplaceTempView("bench_changes")

      def bytes(dir: File): Long =
        if (dir.isDirectory) Option(dir.listFiles()).toSeq.flatten.filterNot(_.getName == "_delta_log")
          .map(bytes).sum
        else if (dir.getName.endsWith(".parquet")) dir.length else 0L
      def withPlugin[T](on: Boolean)(f: => T): T = {
        spark.conf.set(VecRuntimeConf.ENABLED, on.toString)
        try f finally spark.conf.set(VecRuntimeConf.ENABLED, "true")
      }
      // The table a case starts from, written once by Delta's writer, untimed; each run starts
      // from a copy.
      def source(name: String): Option[File] = {
        val dir = new File(out, s"$name-source")
        deleteRecursively(dir)
        withPlugin(on = false) {
          name match {
            case "merge" => df.write.format("delta").save(dir.getPath)
            case "optimize" =>
              val parts = df.randomSplit(Array.fill(40)(1.0), seed = 7)
              parts.foreach(_.coalesce(1).write.format("delta").mode("append").save(dir.getPath))
            case _ =>
          }
        }
        Some(dir).filter(_.exists)
      }
      def copy(from: File, to: File): Unit = {
        val (src, dst) = (from.toPath, to.toPath)
        java.nio.file.Files.walk(src).forEach { p =>
          java.nio.file.Files.copy(p, dst.resolve(src.relativize(p)))
        }
      }
      def timed(name: String, dir: File): Unit = name match {
        case "append" => df.write.format("delta").save(dir.getPath)
        case "partitioned" => df.write.format("delta").partitionBy("ss_sold_date_sk").save(dir.getPath)
        case "merge" => spark.sql(s"""MERGE INTO delta.`${dir.getPath}` t USING bench_changes c
          ON t.ss_ticket_number = c.ss_ticket_number AND t.ss_item_sk = c.ss_item_sk
          WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *""")
        case "optimize" => spark.sql(s"OPTIMIZE delta.`${dir.getPath}`")
      }
      val writers = Seq("Delta" -> false, "vecruntime" -> true)
        .filter(w => args.lift(3).forall(_.split(",").contains(w._1)))
      val results = for (name <- cases) yield {
        val perWriter = writers.map(_._1 -> scala.collection.mutable.Buffer[TableRun]()).toMap
        // One unmeasured round, then the runs, writers alternating. The tables are deleted when
        // the case ends: a run right after thousands of files were deleted would pay ext4's scan
        // past their inodes (recently_deleted) for each file it creates.
        val start = source(name)
        val dirs = for (run <- 0 to runs; (writer, on) <- writers) yield {
          val dir = new File(out, s"$name-$writer-$run")
          deleteRecursively(dir)
          start.foreach(copy(_, dir))
          val (wall, cpu) = withPlugin(on)(meter.measure(timed(name, dir)))
          // The bytes the case wrote, not those it started from.
          if (run > 0) perWriter(writer) += TableRun(wall, cpu, bytes(dir) - start.fold(0L)(bytes))
          dir
        }
        (dirs ++ start).foreach(deleteRecursively)
        name -> writers.map { case (w, _) => w -> TableRun.median(perWriter(w).toSeq) }
      }
      println()
      println("| case | writer | time | CPU | bytes |")
      println("|---|---|--:|--:|--:|")
      for ((name, ws) <- results; (w, r) <- ws) {
        println(f"| $name | $w | ${r.wall}%.2f s | ${r.cpu}%.2f s | ${r.bytes}%,d |")
      }
      println()
      println("| case | speed-up | CPU: x less | bytes: ours / Delta's |")
      println("|---|--:|--:|--:|")
      for ((name, ws) <- results if ws.size == 2) {
        val (d, v) = (ws.head._2, ws(1)._2)
        println(f"| $name | ${d.wall / v.wall}%.2fx | ${d.cpu / v.cpu}%.2fx | ${v.bytes.toDouble / d.bytes}%.3f |")
      }
    } finally spark.stop()
  }
}
