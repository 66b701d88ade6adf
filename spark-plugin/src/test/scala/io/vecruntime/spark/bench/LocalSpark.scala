package io.vecruntime.spark.bench

import java.io.File
import java.util.concurrent.atomic.AtomicLong

import io.vecruntime.spark.VecRuntimeExtensions

import org.apache.spark.scheduler.{SparkListener, SparkListenerTaskEnd}
import org.apache.spark.sql.SparkSession
import org.apache.spark.vecruntime.ListenerShim

/** Hadoop's local file system, checksummed, with permissions set through chmod(2). */
class ChmodFreeLocalFileSystem extends org.apache.hadoop.fs.LocalFileSystem(
  new io.vecruntime.spark.ChmodFreeRawLocalFileSystem)

/** The local[2] session of the demo and the benchmarks (vecruntime on, off-heap pool on), and their file helpers. */
object LocalSpark {
  /**
   * With CHMOD_FREE=1, `file:` served to every writer by Hadoop's local file system setting
   * permissions through chmod(2), as the plugin creates its files, instead of a chmod process a
   * file and directory (without Hadoop's native library): the writers' own difference.
   */
  def fileSystem: Seq[(String, String)] =
    if (sys.env.get("CHMOD_FREE").contains("1")) {
      Seq("spark.hadoop.fs.file.impl" -> classOf[ChmodFreeLocalFileSystem].getName)
    } else Nil

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

/** A timed statement's wall time and its tasks' CPU time, in seconds (after a GC). */
final class Meter(spark: SparkSession) {
  private val cpuNanos = new AtomicLong()
  spark.sparkContext.addSparkListener(new SparkListener {
    override def onTaskEnd(e: SparkListenerTaskEnd): Unit =
      if (e.taskMetrics != null) cpuNanos.addAndGet(e.taskMetrics.executorCpuTime)
  })

  def measure(body: => Unit): (Double, Double) = {
    ListenerShim.waitUntilEmpty(spark.sparkContext)
    System.gc()
    cpuNanos.set(0)
    val t = System.nanoTime()
    body
    val wall = (System.nanoTime() - t) / 1e9
    ListenerShim.waitUntilEmpty(spark.sparkContext)
    (wall, cpuNanos.get() / 1e9)
  }
}

/** One run of a table format benchmark: wall and CPU seconds, the table's data bytes. */
case class TableRun(wall: Double, cpu: Double, bytes: Long)

object TableRun {
  def median(rs: Seq[TableRun]): TableRun = {
    def m(f: TableRun => Double): Double = rs.map(f).sorted.apply(rs.length / 2)
    TableRun(m(_.wall), m(_.cpu), m(_.bytes.toDouble).toLong)
  }
}
