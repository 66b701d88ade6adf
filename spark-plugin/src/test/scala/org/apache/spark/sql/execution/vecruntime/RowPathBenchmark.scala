package org.apache.spark.sql.execution.vecruntime

import io.vecruntime.parquet.RowBatch
import io.vecruntime.spark.SparkParquetLayout
import io.vecruntime.spark.demo.StoreSalesDemo

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.RowToColumnConverter
import org.apache.spark.sql.execution.vectorized.{OffHeapColumnVector, WritableColumnVector}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * The row path alone: store_sales-shaped UnsafeRows to columns, vecruntime's way (one copy a
 * row into an off-heap batch, transposed natively) against Spark's RowToColumnarExec way
 * (RowToColumnConverter into off-heap column vectors), batches of 4,096 rows, one thread, the
 * same rows in memory. Prints ns per row and the ratio (median of 11 runs after 5 warm-up).
 */
object RowPathBenchmark {
  def main(args: Array[String]): Unit = {
    val n = args.headOption.map(_.toInt).getOrElse(1 << 20)
    val spark = SparkSession.builder().master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    try run(spark, n) finally spark.stop()
  }

  def run(spark: SparkSession, n: Int): Unit = {
    val df = StoreSalesDemo.synthetic(spark, n)
    val schema = df.schema
    val rows: Array[UnsafeRow] = df.queryExecution.toRdd.map(_.asInstanceOf[UnsafeRow].copy()).collect()
    val batchRows = 4096
    // Spark's converter settings of the write (INT96 timestamps, Spark's default).
    val conf = new org.apache.hadoop.conf.Configuration()
    conf.set(SQLConf.PARQUET_WRITE_LEGACY_FORMAT.key, "false")
    conf.set(SQLConf.PARQUET_OUTPUT_TIMESTAMP_TYPE.key, "INT96")
    conf.set(SQLConf.PARQUET_FIELD_ID_WRITE_ENABLED.key, "false")
    val layout = SparkParquetLayout(conf, schema)
    val types = layout.rowTypes
    val precisions = layout.rowArguments
    val batch = new RowBatch(batchRows, 4 << 20)
    val vectors: Array[WritableColumnVector] =
      OffHeapColumnVector.allocateColumns(batchRows, schema).map(v => v: WritableColumnVector)
    val converter = new RowToColumnConverter(schema)

    /** Copies every row into the batch; each full batch (and the last) goes to `handOver`. */
    def copyRows(handOver: RowBatch => Long): Long = {
      var sink = 0L
      var i = 0
      while (i < rows.length) {
        val r = rows(i)
        batch.append(r.getBaseObject, r.getBaseOffset, r.getSizeInBytes)
        if (batch.isFull) {
          sink += handOver(batch)
          batch.clear()
        }
        i += 1
      }
      if (!batch.isEmpty) { sink += handOver(batch); batch.clear() }
      sink
    }

    def ours(): Long = copyRows(_.transposeOnly(types, precisions))

    def copyOnly(): Long = copyRows(_.sizeInBytes().toLong)

    def sparks(): Long = {
      var sink = 0L
      var i = 0
      var inBatch = 0
      while (i < rows.length) {
        converter.convert(rows(i), vectors)
        inBatch += 1
        if (inBatch == batchRows) {
          val cb = new ColumnarBatch(vectors.map(v => v: org.apache.spark.sql.vectorized.ColumnVector), inBatch)
          sink += cb.numRows()
          vectors.foreach(_.reset())
          inBatch = 0
        }
        i += 1
      }
      vectors.foreach(_.reset())
      sink + inBatch
    }

    def time(f: () => Long): Double = {
      (1 to 5).foreach(_ => f())
      val runs = (1 to 11).map { _ =>
        val t = System.nanoTime()
        f()
        (System.nanoTime() - t).toDouble / rows.length
      }
      runs.sorted.apply(5)
    }
    val o = time(() => ours())
    val s = time(() => sparks())
    val c = time(() => copyOnly())
    println(f"rows: ${rows.length}%,d store_sales-shaped UnsafeRows (${schema.length} columns), batches of $batchRows")
    println(f"vecruntime row path (copy + native transpose): $o%.1f ns/row")
    println(f"  of which the JVM copy into the batch:         $c%.1f ns/row")
    println(f"Spark RowToColumnarExec converter:             $s%.1f ns/row")
    println(f"ratio Spark / vecruntime: ${s / o}%.2fx")
    batch.close()
    vectors.foreach(_.close())
  }
}
