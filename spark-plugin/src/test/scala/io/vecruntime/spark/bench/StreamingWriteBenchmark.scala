package io.vecruntime.spark.bench

import java.io.File
import java.util.concurrent.{CountDownLatch, TimeUnit}
import java.util.concurrent.atomic.AtomicLong

import scala.collection.mutable

import io.vecruntime.spark.VecRuntimeConf

import org.apache.spark.scheduler.{SparkListener, SparkListenerTaskEnd}
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.streaming.StreamingQueryListener
import org.apache.spark.sql.streaming.StreamingQueryListener._
import org.apache.spark.vecruntime.ListenerShim

/**
 * A streaming ingest into Parquet: the `rate-micro-batch` source (exactly `rowsPerBatch` rows a
 * micro-batch, in 2 partitions, as fast as the query runs) turned into store_sales-shaped rows (9
 * INT keys, BIGINT ticket, INT quantity, 12 DECIMAL(7,2) amounts, about 4% nulls), written by the
 * file sink (`writeStream.format("parquet")`, snappy, its `_spark_metadata` log) with Spark's
 * writer and with vecruntime, and into the `noop` sink (the query without a write), in one
 * local[2] session, runs interleaved. Per run, for `batches` micro-batches: processed rows per
 * second (rows over the micro-batches' `triggerExecution` time), the time of the sink's
 * `addBatch`, executor CPU time (task metrics), bytes and files. Medians of the runs, after one
 * unmeasured run of each.
 *
 * Arguments: `[runs=5] [batches=30] [rowsPerBatch=50000] [outDir]`.
 */
object StreamingWriteBenchmark {
  import LocalSpark.{deleteRecursively, parquetFiles}

  case class Run(seconds: Double, addBatch: Double, cpu: Double, bytes: Long, files: Int)

  def main(args: Array[String]): Unit = {
    val runs = args.lift(0).map(_.toInt).getOrElse(5)
    val batches = args.lift(1).map(_.toInt).getOrElse(30)
    val rowsPerBatch = args.lift(2).map(_.toInt).getOrElse(50000)
    val out = new File(args.lift(3).getOrElse("benchmarks/data/streaming-write")).getAbsoluteFile
    val spark = LocalSpark.session("vecruntime streaming benchmark", "1g")
    val cpuNanos = new AtomicLong()
    spark.sparkContext.addSparkListener(new SparkListener {
      override def onTaskEnd(e: SparkListenerTaskEnd): Unit =
        if (e.taskMetrics != null) cpuNanos.addAndGet(e.taskMetrics.executorCpuTime)
    })
    val rows = batches.toLong * rowsPerBatch
    println(f"streaming ingest: $batches micro-batches of $rowsPerBatch%,d rows (store_sales-shaped), " +
      s"local[2], snappy; median of $runs runs")
    try {
      def run(sink: String, name: String): Run = {
        val dir = new File(out, name)
        deleteRecursively(dir)
        spark.conf.set(VecRuntimeConf.ENABLED, (sink == "vecruntime").toString)
        val progress = new Progress(batches)
        spark.streams.addListener(progress)
        ListenerShim.waitUntilEmpty(spark.sparkContext)
        System.gc()
        cpuNanos.set(0)
        val writer = source(spark, rowsPerBatch).writeStream
          .option("checkpointLocation", new File(dir, "checkpoint").getAbsolutePath)
        val query = if (sink == "noop") writer.format("noop").start()
        else writer.format("parquet").start(new File(dir, "table").getAbsolutePath)
        try {
          if (!progress.done.await(30, TimeUnit.MINUTES)) sys.error(s"$name: no $batches batches")
        } finally {
          query.stop()
          spark.streams.removeListener(progress)
        }
        ListenerShim.waitUntilEmpty(spark.sparkContext)
        val files = parquetFiles(new File(dir, "table"))
        val r = Run(progress.triggerMs / 1e3, progress.addBatchMs / 1e3, cpuNanos.get() / 1e9,
          files.map(_.length).sum, files.length)
        deleteRecursively(dir)
        r
      }
      val sinks = Seq("Spark's writer" -> "spark", "vecruntime" -> "vecruntime", "noop sink" -> "noop")
      sinks.foreach { case (_, s) => run(s, s"warmup-$s") }
      val results = mutable.LinkedHashMap[String, mutable.Buffer[Run]]()
      for (i <- 1 to runs; (label, s) <- sinks) {
        results.getOrElseUpdate(label, mutable.Buffer()) += run(s, s"$s-$i")
      }
      val medians = results.map { case (k, rs) =>
        def m(f: Run => Double) = rs.map(f).sorted.apply(rs.length / 2)
        k -> Run(m(_.seconds), m(_.addBatch), m(_.cpu), m(_.bytes.toDouble).toLong, m(_.files.toDouble).toInt)
      }
      println()
      println("| sink | rows/s | micro-batches | addBatch | CPU | bytes | files |")
      println("|---|--:|--:|--:|--:|--:|--:|")
      for ((k, r) <- medians) {
        println(f"| $k | ${rows / r.seconds}%,.0f | ${r.seconds}%.2f s | ${r.addBatch}%.2f s | ${r.cpu}%.2f s | ${r.bytes}%,d | ${r.files} |")
      }
      val (ours, theirs, noop) = (medians("vecruntime"), medians("Spark's writer"), medians("noop sink"))
      println()
      println(f"vecruntime / Spark's writer: rows/s ${theirs.seconds / ours.seconds}%.2fx, " +
        f"addBatch ${theirs.addBatch / ours.addBatch}%.2fx faster, CPU ${theirs.cpu / ours.cpu}%.2fx less, " +
        f"bytes ${ours.bytes.toDouble / theirs.bytes}%.3f; less the noop sink's query: " +
        f"time ${(theirs.seconds - noop.seconds) / (ours.seconds - noop.seconds)}%.2fx, " +
        f"CPU ${(theirs.cpu - noop.cpu) / (ours.cpu - noop.cpu)}%.2fx less")
    } finally spark.stop()
  }

  /** store_sales' columns from the rate source's `value`, as dsdgen's types and ranges. */
  def source(spark: SparkSession, rowsPerBatch: Int): DataFrame = {
    val keys = Seq("ss_sold_date_sk" -> 1823, "ss_sold_time_sk" -> 86400, "ss_item_sk" -> 18000,
      "ss_customer_sk" -> 100000, "ss_cdemo_sk" -> 1920800, "ss_hdemo_sk" -> 7200,
      "ss_addr_sk" -> 50000, "ss_store_sk" -> 12, "ss_promo_sk" -> 300)
    val amounts = Seq("ss_wholesale_cost", "ss_list_price", "ss_sales_price", "ss_ext_discount_amt",
      "ss_ext_sales_price", "ss_ext_wholesale_cost", "ss_ext_list_price", "ss_ext_tax",
      "ss_coupon_amt", "ss_net_paid", "ss_net_paid_inc_tax", "ss_net_profit")
    // One 64-bit hash a row and one a ticket (about 10 lines sharing date, time, customer and
    // store), each column a slice of them: the query stays cheap next to the write.
    def slice(h: String, i: Int, range: Int) = s"pmod(shiftright($h, ${i * 3}), $range)"
    def nullable(i: Int, e: String) = s"if(pmod(shiftright(n, ${i * 2}), 25) = 0, null, $e)"
    val columns = keys.zipWithIndex.map { case ((name, range), i) =>
      val shared = i < 2 || name == "ss_customer_sk" || name == "ss_store_sk"
      nullable(i, s"cast(${slice(if (shared) "t" else "h", i, range)} + 1 as int)") + s" as $name"
    } ++ Seq("div(value, 10) as ss_ticket_number",
      nullable(10, s"cast(${slice("h", 10, 100)} + 1 as int)") + " as ss_quantity") ++
      amounts.zipWithIndex.map { case (name, i) =>
        nullable(11 + i % 8, s"cast(${slice("h", 11 + i % 7, 2000000)} / 100 as decimal(7,2))") + s" as $name"
      }
    spark.readStream.format("rate-micro-batch").option("rowsPerBatch", rowsPerBatch)
      .option("numPartitions", 2).load()
      .selectExpr("value", "xxhash64(value) as h", "xxhash64(div(value, 10)) as t",
        "xxhash64(value, 7) as n")
      .selectExpr(columns: _*)
  }

  /** The first `batches` micro-batches' times; `done` once they are in. */
  class Progress(batches: Int) extends StreamingQueryListener {
    val done = new CountDownLatch(1)
    @volatile var triggerMs = 0L
    @volatile var addBatchMs = 0L
    private var seen = 0
    override def onQueryStarted(e: QueryStartedEvent): Unit = ()
    override def onQueryTerminated(e: QueryTerminatedEvent): Unit = ()
    override def onQueryProgress(e: QueryProgressEvent): Unit = synchronized {
      val p = e.progress
      if (seen < batches && p.numInputRows > 0) {
        seen += 1
        triggerMs += p.durationMs.getOrDefault("triggerExecution", 0L)
        addBatchMs += p.durationMs.getOrDefault("addBatch", 0L)
        if (seen == batches) done.countDown()
      }
    }
  }

}
