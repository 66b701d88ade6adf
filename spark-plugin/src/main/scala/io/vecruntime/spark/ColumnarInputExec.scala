package io.vecruntime.spark

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.execution.{SparkPlan, UnaryExecNode}

/**
 * In place of Spark's `ColumnarToRowExec` under a table format's write node that hands its
 * task writers rows (a DataSource V2 write): the child's batches as [[ColumnarInput]] rows, so
 * that a native writer taking one file at a time copies their columns in bulk. Any other
 * writer reads them as rows.
 */
case class ColumnarInputExec(child: SparkPlan) extends UnaryExecNode {
  override def output: Seq[Attribute] = child.output

  override def outputPartitioning: Partitioning = child.outputPartitioning

  override protected def doExecute(): RDD[InternalRow] =
    child.executeColumnar().mapPartitions(batches => ColumnarInput.rows(batches))

  override protected def withNewChildInternal(newChild: SparkPlan): ColumnarInputExec =
    copy(child = newChild)
}
