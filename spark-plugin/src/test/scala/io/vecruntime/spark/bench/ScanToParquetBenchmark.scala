package io.vecruntime.spark.bench

import java.io.File

import io.vecruntime.spark.{VecRuntimeConf, VecRuntimeExtensions}

import org.apache.spark.sql.SparkSession

/**
 * Parquet to Parquet (`spark.read.parquet(in).write.parquet(out)`, no cache): the scan is
 * columnar, so vecruntime reads its batches directly; compared with vecruntime through rows
 * (`spark.vecruntime.write.columnarInput.enabled=false`) and Spark's writer. Median of 5 runs.
 *
 * Arguments: `store_sales.parquet [outDir]`.
 */
object ScanToParquetBenchmark {
  def main(args: Array[String]): Unit = {
    val input = new File(args(0)).getAbsolutePath
    val out = new File(args.lift(1).getOrElse("benchmarks/data/scan-to-parquet")).getAbsoluteFile
    val spark = SparkSession.builder().master("local[2]").appName("scan to parquet")
      .config("spark.sql.extensions", classOf[VecRuntimeExtensions].getName)
      .config("spark.ui.enabled", "false").getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    try {
      val cases = Seq(
        "vecruntime, columnar input" -> Seq(VecRuntimeConf.ENABLED -> "true", VecRuntimeConf.COLUMNAR_INPUT -> "true"),
        "vecruntime, rows" -> Seq(VecRuntimeConf.ENABLED -> "true", VecRuntimeConf.COLUMNAR_INPUT -> "false"),
        "Spark v1" -> Seq(VecRuntimeConf.ENABLED -> "false"))
      val times = cases.map(_._1 -> scala.collection.mutable.Buffer[Double]()).toMap
      for (run <- 0 until 6; (name, conf) <- cases) {
        conf.foreach { case (k, v) => spark.conf.set(k, v) }
        val dir = new File(out, s"${name.replaceAll("[^a-z0-9]", "")}-$run").getAbsolutePath
        val t = System.nanoTime()
        spark.read.parquet(input).write.parquet(dir)
        if (run > 0) times(name) += (System.nanoTime() - t) / 1e9 // run 0 warms up
      }
      println("| write (Parquet scan input, snappy) | median of 5 |")
      println("|---|---|")
      cases.foreach { case (name, _) => println(f"| $name | ${times(name).sorted.apply(2)}%.2f s |") }
    } finally spark.stop()
  }
}
