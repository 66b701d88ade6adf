package io.vecruntime.spark

import org.apache.spark.SparkException
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.physical.{Partitioning, SinglePartition, UnknownPartitioning}
import org.apache.spark.sql.execution.{SparkPlan, UnaryExecNode}
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * Spark's `CoalesceExec` (fewer partitions, no shuffle) over a columnar child, batches kept: a
 * table format's compaction (Delta's OPTIMIZE) coalesces its scan into one file per bin, which
 * the native writer then reads batch by batch.
 */
case class ColumnarCoalesceExec(numPartitions: Int, child: SparkPlan) extends UnaryExecNode {
  override def output: Seq[Attribute] = child.output

  override def outputPartitioning: Partitioning =
    if (numPartitions == 1) SinglePartition else UnknownPartitioning(numPartitions)

  override def supportsColumnar: Boolean = true

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] =
    child.executeColumnar().coalesce(numPartitions, shuffle = false)

  override protected def doExecute(): RDD[InternalRow] =
    throw SparkException.internalError(s"$nodeName reads batches only")

  override protected def withNewChildInternal(newChild: SparkPlan): ColumnarCoalesceExec =
    copy(child = newChild)
}
