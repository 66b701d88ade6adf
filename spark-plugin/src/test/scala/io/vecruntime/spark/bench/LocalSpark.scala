package io.vecruntime.spark.bench

import java.io.File

import io.vecruntime.spark.VecRuntimeExtensions

import org.apache.spark.sql.SparkSession

/** The local[2] session of the demo and the benchmarks (vecruntime on, off-heap pool on), and their file helpers. */
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

  def deleteRecursively(f: File): Unit = {
    if (f.isDirectory) Option(f.listFiles()).getOrElse(Array.empty).foreach(deleteRecursively)
    f.delete()
  }

  /** The Parquet files under `f`, at any depth. */
  def parquetFiles(f: File): Seq[File] =
    if (f.isDirectory) Option(f.listFiles()).toSeq.flatten.flatMap(parquetFiles)
    else if (f.getName.endsWith(".parquet")) Seq(f) else Nil
}
