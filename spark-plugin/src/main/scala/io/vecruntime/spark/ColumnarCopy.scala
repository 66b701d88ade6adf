package io.vecruntime.spark

import io.vecruntime.parquet.{ColumnBuffers, RowType, VectorBuffers}

import org.apache.spark.sql.catalyst.util.RebaseDateTime
import org.apache.spark.sql.execution.columnar.vecruntime.CachedColumnVector
import org.apache.spark.sql.execution.vectorized.WritableColumnVector
import org.apache.spark.sql.internal.LegacyBehaviorPolicy
import org.apache.spark.sql.vectorized.{ColumnarBatch, ColumnVector}

/**
 * Rows [start, start + n) of a Spark ColumnarBatch into the off-heap column buffers the native
 * writer reads, converting values as Spark's ParquetWriteSupport does. Ints, longs, floats,
 * doubles and narrow decimals of Spark's own vectors are copied in bulk, those of a cached
 * table's ([[CachedColumnVector]]) straight from its arrays.
 */
object ColumnarCopy {
  private val JulianDayOfEpoch = 2440588L
  private val MicrosPerDay = 86400000000L

  def copy(batch: ColumnarBatch, start: Int, n: Int, out: VectorBuffers, layout: SparkParquetLayout): Unit = {
    out.reset()
    val exception = LegacyBehaviorPolicy.EXCEPTION
    val refuse = Refuse(layout.rebase.datetime == exception, layout.rebase.int96 == exception)
    var c = 0
    while (c < layout.rowTypes.length) {
      column(batch.column(c), start, n, out.column(c), layout.rowTypes(c), layout.rowArguments(c),
        layout.sparkSchema.fields(c).dataType, refuse)
      c += 1
    }
    out.setRowCount(n)
  }

  /** A value EXCEPTION refuses, in an INT96 column or not ([[SparkRebase.refused]]). */
  case class Ancient(int96: Boolean) extends RuntimeException with scala.util.control.NoStackTrace

  /**
   * Spark's rebase mode EXCEPTION, which changes no value: a date before 1582-10-15 or a
   * timestamp before 1900-01-01T00:00:00Z (`datetime`; INT96 timestamps by `int96`) stops the copy
   * ([[Ancient]]): the write fails with Spark's error, as `ParquetWriteSupport` fails it.
   * TIMESTAMP_NTZ is never rebased.
   */
  private case class Refuse(datetime: Boolean, int96: Boolean) {
    def apply(t: RowType): Boolean = t match {
      case RowType.DATE | RowType.TIMESTAMP_MICROS | RowType.TIMESTAMP_MILLIS => datetime
      case RowType.TIMESTAMP_INT96 => int96
      case _ => false
    }
  }

  private def column(
      v: ColumnVector,
      start: Int,
      n: Int,
      out: ColumnBuffers,
      t: RowType,
      precision: Int,
      dataType: org.apache.spark.sql.types.DataType,
      refuse: Refuse): Unit = {
    val bulk = v.isInstanceOf[WritableColumnVector] || v.isInstanceOf[CachedColumnVector]
    val nulls = v.hasNull
    val refused = refuse(t)
    // A value before Spark's threshold in a row that is not null; the smallest values are rare,
    // so the null check follows the comparison.
    def ancient(below: Boolean, r: Int): Unit =
      if (below && !(nulls && v.isNullAt(start + r))) throw Ancient(t == RowType.TIMESTAMP_INT96)
    def eachValid(f: Int => Unit): Unit = {
      var r = 0
      while (r < n) {
        if (!nulls || !v.isNullAt(start + r)) f(r)
        r += 1
      }
    }
    def clearNulls(): Unit = if (nulls) v match {
      case c: CachedColumnVector => c.foreachNull(start, n)(r => out.setNull(r - start))
      case _ =>
        var r = 0
        while (r < n) {
          if (v.isNullAt(start + r)) out.setNull(r)
          r += 1
        }
    }
    t match {
      case RowType.INT | RowType.DATE =>
        val (days, from) = ints(v, start, n)
        if (refused) {
          var r = 0
          while (r < n) { ancient(days(from + r) < RebaseDateTime.lastSwitchGregorianDay, r); r += 1 }
        }
        out.setInts(0, days, from, n); clearNulls()
      case RowType.DECIMAL if precision <= 9 && bulk =>
        val (unscaled, from) = ints(v, start, n)
        out.setInts(0, unscaled, from, n); clearNulls()
      case RowType.DECIMAL if precision <= 9 =>
        eachValid(r => out.setInt(r, v.getDecimal(start + r, precision, scale(dataType)).toUnscaledLong.toInt))
      case RowType.LONG | RowType.TIMESTAMP_MICROS | RowType.TIMESTAMP_NTZ =>
        val (micros, from) = longs(v, start, n)
        if (refused) {
          var r = 0
          while (r < n) { ancient(micros(from + r) < RebaseDateTime.lastSwitchGregorianTs, r); r += 1 }
        }
        out.setLongs(0, micros, from, n); clearNulls()
      case RowType.DECIMAL if precision <= 18 && bulk =>
        val (unscaled, from) = longs(v, start, n)
        out.setLongs(0, unscaled, from, n); clearNulls()
      case RowType.DECIMAL if precision <= 18 =>
        eachValid(r => out.setLong(r, v.getDecimal(start + r, precision, scale(dataType)).toUnscaledLong))
      case RowType.DECIMAL =>
        val width = out.column().typeLength()
        eachValid { r =>
          val bytes = v.getDecimal(start + r, precision, scale(dataType)).toJavaBigDecimal.unscaledValue.toByteArray
          if (bytes.length == width) out.setBytes(r, bytes)
          else {
            val padded = Array.fill[Byte](width)(if (bytes(0) < 0) -1 else 0)
            System.arraycopy(bytes, 0, padded, width - bytes.length, bytes.length)
            out.setBytes(r, padded)
          }
        }
      case RowType.FLOAT => v match {
          case c: CachedColumnVector => out.setFloats(0, c.floats, start, n)
          case _ => out.setFloats(0, v.getFloats(start, n), 0, n)
        }
        clearNulls()
      case RowType.DOUBLE => v match {
          case c: CachedColumnVector => out.setDoubles(0, c.doubles, start, n)
          case _ => out.setDoubles(0, v.getDoubles(start, n), 0, n)
        }
        clearNulls()
      case RowType.BOOLEAN => eachValid(r => out.setBoolean(r, v.getBoolean(start + r)))
      case RowType.BYTE => eachValid(r => out.setInt(r, v.getByte(start + r)))
      case RowType.SHORT => eachValid(r => out.setInt(r, v.getShort(start + r)))
      // Millis from micros; TIME micros from nanos (Spark's nanosToMicros).
      case RowType.TIMESTAMP_MILLIS | RowType.TIME =>
        eachValid { r =>
          val micros = v.getLong(start + r)
          ancient(refused && micros < RebaseDateTime.lastSwitchGregorianTs, r)
          out.setLong(r, Math.floorDiv(micros, 1000L))
        }
      case RowType.TIMESTAMP_INT96 =>
        val buf = java.nio.ByteBuffer.allocate(12).order(java.nio.ByteOrder.LITTLE_ENDIAN)
        eachValid { r =>
          val micros = v.getLong(start + r)
          ancient(refused && micros < RebaseDateTime.lastSwitchGregorianTs, r)
          // Spark's DateTimeUtils.toJulianDay: truncating division, as the native kernel.
          val julianUs = micros + JulianDayOfEpoch * MicrosPerDay
          buf.clear()
          buf.putLong((julianUs % MicrosPerDay) * 1000L).putInt((julianUs / MicrosPerDay).toInt)
          out.setBytes(r, buf.array())
        }
      case RowType.STRING => eachValid(r => out.setBytes(r, v.getUTF8String(start + r).getBytes))
      case RowType.BINARY => eachValid(r => out.setBytes(r, v.getBinary(start + r)))
      // VectorWriteRule reads geospatial columns from rows only; Spark's writer makes no
      // fixed-width binary column (a table format's writer does, from rows).
      case RowType.GEOMETRY | RowType.GEOGRAPHY | RowType.FIXED_BINARY =>
        throw new IllegalStateException(s"$t columns are not copied from column vectors")
    }
  }

  /** Rows [start, start + n) of an int column: an array and the index of its row `start`. */
  private def ints(v: ColumnVector, start: Int, n: Int): (Array[Int], Int) = v match {
    case c: CachedColumnVector => (c.ints, start)
    case _ => (v.getInts(start, n), 0)
  }

  private def longs(v: ColumnVector, start: Int, n: Int): (Array[Long], Int) = v match {
    case c: CachedColumnVector => (c.longs, start)
    case _ => (v.getLongs(start, n), 0)
  }

  private def scale(t: org.apache.spark.sql.types.DataType): Int = t match {
    case d: org.apache.spark.sql.types.DecimalType => d.scale
    case _ => 0
  }
}
