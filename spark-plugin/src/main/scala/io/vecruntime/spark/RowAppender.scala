package io.vecruntime.spark

import io.vecruntime.parquet.RowBatch

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.DataType

/**
 * Rows of these column types as UnsafeRows, and their bytes into a [[RowBatch]]: the one row
 * append of the plugin's writers. An UnsafeRow is taken as it is; any other row is copied into
 * one first (the projection made at the first such row).
 */
final class RowAppender(types: Array[DataType]) {
  private lazy val toUnsafe = UnsafeProjection.create(types)

  /** The row as it is (an UnsafeRow), or copied into one. */
  def unsafe(row: InternalRow): UnsafeRow = row match {
    case u: UnsafeRow => u
    case other => toUnsafe(other)
  }

  /** Appends the row's UnsafeRow bytes to `batch`; returns their size. */
  def append(batch: RowBatch, row: InternalRow): Int = {
    val u = unsafe(row)
    if (u.getBaseObject != null) {
      batch.append(u.getBaseObject, u.getBaseOffset, u.getSizeInBytes)
    } else {
      // A row in off-heap memory (Spark's off-heap pages): RowBatch copies only from arrays it
      // can bounds-check, so the row goes through a byte[] first.
      val bytes = u.getBytes
      batch.append(bytes, 0, bytes.length)
    }
    u.getSizeInBytes
  }
}
