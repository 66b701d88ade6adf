package io.vecruntime.spark.demo

import java.io.File

import io.vecruntime.spark.VecRuntimeConf
import io.vecruntime.spark.bench.LocalSpark
import io.vecruntime.spark.bench.LocalSpark.deleteRecursively
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.util.HadoopInputFile

import org.apache.spark.sql.{DataFrame, SparkSession}

/**
 * The demo: a local Spark session writes TPC-DS `store_sales` (dsdgen's file when given, else
 * synthetic rows of the same shape) with vecruntime and with Spark's own writer, and prints
 * times, sizes and a row-by-row comparison of what Spark reads back.
 *
 * Arguments: `[store_sales.parquet] [output dir]`.
 */
object StoreSalesDemo {
  def main(args: Array[String]): Unit = {
    val input = args.headOption.map(new File(_)).filter(_.exists())
    val out = new File(args.lift(1).getOrElse("benchmarks/data/spark-demo")).getAbsoluteFile
    val spark = LocalSpark.session("vecruntime demo", "2g", "spark.sql.shuffle.partitions" -> "4")
    try run(spark, input, out) finally spark.stop()
  }

  def run(spark: SparkSession, input: Option[File], out: File): Unit = {
    val source = input match {
      case Some(f) =>
        println(s"store_sales: dsdgen file ${f.getPath}")
        spark.read.parquet(f.getAbsolutePath)
      case None =>
        println("store_sales: dsdgen file not found, synthetic rows of the same shape")
        synthetic(spark, 2880404)
    }
    val df = source.repartition(4).cache()
    val rows = df.count()
    println(f"$rows%,d rows, ${df.schema.length} columns, cached in 4 partitions; local[2]")
    deleteRecursively(out)
    val results = for (writer <- Seq("vecruntime", "spark")) yield {
      val times = (1 to 3).map { run =>
        val dir = new File(out, s"$writer-$run").getAbsolutePath
        spark.conf.set(VecRuntimeConf.ENABLED, (writer == "vecruntime").toString)
        val t = System.nanoTime()
        df.write.parquet(dir)
        (System.nanoTime() - t) / 1e9
      }
      spark.conf.set(VecRuntimeConf.ENABLED, "true")
      val dir = new File(out, s"$writer-1")
      val files = dir.listFiles().filter(_.getName.endsWith(".parquet"))
      val bytes = files.map(_.length).sum
      val createdBy = footerCreatedBy(files.head)
      (writer, times.sorted.apply(1), bytes, files.length, createdBy, dir.getAbsolutePath)
    }
    println()
    println("| writer | write time (median of 3) | bytes | files | created_by |")
    println("|---|---|---|---|---|")
    results.foreach { case (w, t, b, n, cb, _) => println(f"| $w | $t%.2f s | $b%,d | $n | $cb |") }
    val (ours, theirs) = (results(0), results(1))
    println(f"\nvecruntime against Spark's writer: ${theirs._2 / ours._2}%.2fx the speed, " +
      f"${ours._3.toDouble / theirs._3}%.2fx the bytes")
    val a = spark.read.parquet(ours._6)
    val b = spark.read.parquet(theirs._6)
    val missing = b.exceptAll(a).count()
    val extra = a.exceptAll(b).count()
    println(s"row-by-row: ${a.count()} rows read back from vecruntime's files, ${b.count()} from Spark's; " +
      s"rows only in Spark's: $missing, only in vecruntime's: $extra")
    if (missing != 0 || extra != 0 || a.count() != rows) {
      throw new IllegalStateException("row-by-row comparison failed")
    }
    println("row-by-row comparison: identical")
  }

  private def footerCreatedBy(f: File): String = {
    val r = ParquetFileReader.open(HadoopInputFile.fromPath(new Path(f.getAbsolutePath), new Configuration()))
    try r.getFooter.getFileMetaData.getCreatedBy.split(" \\(").head finally r.close()
  }

  /** store_sales-shaped rows (as Spark's TPC-DS schema types them) when no dsdgen file exists. */
  def synthetic(spark: SparkSession, rows: Long): DataFrame = {
    val keys = Seq("ss_sold_date_sk" -> "2450816 + (t % 1823)", "ss_sold_time_sk" -> "28800 + (t * 7 % 46800)",
      "ss_item_sk" -> "1 + (id * 2654435761 % 18000)", "ss_customer_sk" -> "1 + (t * 40503 % 100000)",
      "ss_cdemo_sk" -> "1 + (t * 69069 % 1920800)", "ss_hdemo_sk" -> "1 + (t * 3 % 7200)",
      "ss_addr_sk" -> "1 + (t * 17 % 50000)", "ss_store_sk" -> "1 + 2 * (t % 6)",
      "ss_promo_sk" -> "1 + (id * 31 % 300)")
    val amounts = Seq("ss_wholesale_cost", "ss_list_price", "ss_sales_price", "ss_ext_discount_amt",
      "ss_ext_sales_price", "ss_ext_wholesale_cost", "ss_ext_list_price", "ss_ext_tax",
      "ss_coupon_amt", "ss_net_paid", "ss_net_paid_inc_tax", "ss_net_profit")
    val cols = keys.map { case (n, e) => s"CASE WHEN (id * 7 + ${n.length}) % 1000 < 45 THEN NULL ELSE CAST($e AS INT) END AS $n" } ++
      Seq("CAST(t AS BIGINT) AS ss_ticket_number", "CAST(1 + id % 100 AS INT) AS ss_quantity") ++
      amounts.zipWithIndex.map { case (n, i) =>
        s"CASE WHEN (id * 13 + $i) % 1000 < 45 THEN NULL ELSE CAST(((id * ${i + 3}) % 1000000) / 100.0 AS DECIMAL(7,2)) END AS $n"
      }
    spark.range(rows).selectExpr("id", "id div 10 AS t").selectExpr(cols: _*)
  }
}
