package org.apache.spark.sql.execution.datasources.vecruntime

import org.apache.hadoop.mapreduce.TaskAttemptContext

import org.apache.spark.internal.io.FileCommitProtocol
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.datasources.{DynamicPartitionDataConcurrentWriter, DynamicPartitionDataSingleWriter, WriteJobDescription}
import org.apache.spark.sql.execution.datasources.FileFormatWriter.ConcurrentOutputWriterSpec
import org.apache.spark.sql.types.DataType

/**
 * Spark's partitioned and bucketed task writers, less one projection: Spark copies each row's
 * data columns into a new row before its writer sees it (`getOutputRow`, which re-encodes every
 * decimal: a quarter of the task time of store_sales partitioned by date). These hand the file
 * writer the whole input row instead, whose data columns the native writer reads in place
 * (`WideRows`). Everything else is Spark's: partition and bucket look-up, file naming, the
 * open-writer limit and its sort, maxRecordsPerFile, stats. The stats trackers see the whole
 * row too, so this is used only with Spark's own, which count rows and read no values.
 */
private[vecruntime] object WholeRows {
  /** The input row as it is (an UnsafeRow), or copied into one. */
  final class Pass(types: Array[DataType]) extends UnsafeProjection {
    private lazy val toUnsafe = UnsafeProjection.create(types)

    override def apply(row: InternalRow): UnsafeRow = row match {
      case u: UnsafeRow => u
      case other => toUnsafe(other)
    }
  }
}

/** Spark's writer of a file open per partition and bucket, handing over whole rows. */
private[vecruntime] class WholeRowConcurrentWriter(
    description: WriteJobDescription,
    taskAttemptContext: TaskAttemptContext,
    committer: FileCommitProtocol,
    spec: ConcurrentOutputWriterSpec)
  extends DynamicPartitionDataConcurrentWriter(description, taskAttemptContext, committer, spec) {
  override protected val getOutputRow: UnsafeProjection =
    new WholeRows.Pass(description.allColumns.map(_.dataType).toArray)
}

/** Spark's writer of sorted input, one file open at a time, handing over whole rows. */
private[vecruntime] class WholeRowSingleWriter(
    description: WriteJobDescription,
    taskAttemptContext: TaskAttemptContext,
    committer: FileCommitProtocol)
  extends DynamicPartitionDataSingleWriter(description, taskAttemptContext, committer) {
  override protected val getOutputRow: UnsafeProjection =
    new WholeRows.Pass(description.allColumns.map(_.dataType).toArray)
}
