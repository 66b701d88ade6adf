package io.vecruntime.spark.bench

import io.vecruntime.spark.VecRuntimeExtensions

import org.apache.spark.sql.SparkSession

/** The local[2] session of the demo and the benchmarks: vecruntime on, off-heap pool on. */
object LocalSpark {
  def session(appName: String, offHeap: String, conf: (String, String)*): SparkSession = {
    val b = SparkSession.builder()
      .master("local[2]")
      .appName(appName)
      .config("spark.sql.extensions", classOf[VecRuntimeExtensions].getName)
      .config("spark.ui.enabled", "false")
      .config("spark.memory.offHeap.enabled", "true")
      .config("spark.memory.offHeap.size", offHeap)
    val spark = conf.foldLeft(b) { case (b, (k, v)) => b.config(k, v) }.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    spark
  }
}
