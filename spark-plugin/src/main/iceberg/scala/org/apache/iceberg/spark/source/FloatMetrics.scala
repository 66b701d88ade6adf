package org.apache.iceberg.spark.source

import scala.jdk.CollectionConverters._

import org.apache.iceberg.{FieldMetrics, Schema}
import org.apache.iceberg.types.{Type, Types}

import org.apache.spark.sql.catalyst.InternalRow

/**
 * The metrics Iceberg's value writers keep for float and double columns (its `FloatWriter`,
 * `DoubleWriter` and `OptionWriter`), which Iceberg takes instead of the footer's: values and
 * nulls (a null struct's columns count one each), NaNs, and bounds over the values that are not
 * NaN in `Float.compare` order (-0.0 below 0.0). Columns in lists and maps get no metrics from
 * Iceberg at all, so none are kept for them.
 */
final class FloatMetrics(schema: Schema) {
  /** A float or double column: its field id, struct ordinals down to it, and its width. */
  private final case class Column(id: Int, path: Array[Int], widths: Array[Int], double: Boolean) {
    var values = 0L
    var nulls = 0L
    var nans = 0L
    var lower = Double.NaN
    var upper = Double.NaN

    def update(row: InternalRow): Unit = {
      var r = row
      var i = 0
      while (i < path.length - 1) {
        // Within a null struct the struct's option writer adds a null to each of its columns'
        // metrics (a required column's too; not in Iceberg 1.10); their value writers are not
        // called.
        if (r.isNullAt(path(i))) {
          if (IcebergRelease.NullStructCounts) {
            values += 1
            nulls += 1
          }
          return
        }
        r = r.getStruct(path(i), widths(i))
        i += 1
      }
      val at = path(i)
      values += 1
      if (r.isNullAt(at)) nulls += 1
      else {
        val v = if (double) r.getDouble(at) else r.getFloat(at).toDouble
        if (v.isNaN) nans += 1
        else {
          if (lower.isNaN || java.lang.Double.compare(v, lower) < 0) lower = v
          if (upper.isNaN || java.lang.Double.compare(v, upper) > 0) upper = v
        }
      }
    }

    def metrics: FieldMetrics[_] = {
      // Option writers count nulls among the values.
      if (double) {
        new FieldMetrics[java.lang.Double](id, values, nulls, nans,
          if (lower.isNaN) null else java.lang.Double.valueOf(lower),
          if (upper.isNaN) null else java.lang.Double.valueOf(upper))
      } else {
        new FieldMetrics[java.lang.Float](id, values, nulls, nans,
          if (lower.isNaN) null else java.lang.Float.valueOf(lower.toFloat),
          if (upper.isNaN) null else java.lang.Float.valueOf(upper.toFloat))
      }
    }
  }

  private val columns: Array[Column] = {
    def walk(s: Types.StructType, path: Seq[Int], widths: Seq[Int]): Seq[Column] =
      s.fields.asScala.toSeq.zipWithIndex.flatMap { case (f, i) =>
        f.`type`.typeId match {
          case Type.TypeID.FLOAT | Type.TypeID.DOUBLE =>
            Seq(Column(f.fieldId, (path :+ i).toArray, (widths :+ 0).toArray,
              f.`type`.typeId == Type.TypeID.DOUBLE))
          case Type.TypeID.STRUCT =>
            val st = f.`type`.asStructType
            walk(st, path :+ i, widths :+ st.fields.size)
          case _ => Nil
        }
      }
    walk(schema.asStruct, Nil, Nil).toArray
  }

  def isEmpty: Boolean = columns.isEmpty

  def update(row: InternalRow): Unit = {
    var i = 0
    while (i < columns.length) {
      columns(i).update(row)
      i += 1
    }
  }

  def metrics: java.util.stream.Stream[FieldMetrics[_]] =
    columns.toSeq.map(_.metrics).asJava.stream()
}
