package io.vecruntime.spark.shims

import org.apache.spark.SparkException
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.execution.{SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.datasources.{FileFormat, WriteFilesExec}

/**
 * The plan node of a write that replaces Spark's `WriteFilesExec` (Spark 3.5). Spark 3.5 has no
 * `WriteFilesExecBase`: `FileFormatWriter` looks for a `WriteFilesExec` in the plan (for the
 * input's order) and runs the write on the plan's root. So this node is the root and keeps
 * Spark's `WriteFilesExec` as its child, never run, with the write's input below it.
 */
abstract class WriteFilesNode extends UnaryExecNode {
  override def output: Seq[Attribute] = Seq.empty

  /** The rows (or batches) to write: the input of the `WriteFilesExec` below. */
  def input: SparkPlan = child match {
    case w: WriteFilesExec => w.child
    case other => other
  }

  override protected def doExecute(): RDD[InternalRow] =
    throw SparkException.internalError(s"$nodeName does not support doExecute")
}

object WriteFilesNode {
  /** The child of a node that writes `input` in place of Spark's `w`. */
  def childFor(w: WriteFilesExec, input: SparkPlan): SparkPlan = w.copy(child = input)

  /**
   * The child of a node that writes `input` where no `WriteFilesExec` was planned (a table
   * format's own write): one for `FileFormatWriter` to find, never run.
   */
  def over(input: SparkPlan, fileFormat: FileFormat, partitionColumns: Seq[Attribute],
      options: Map[String, String]): SparkPlan =
    WriteFilesExec(input, fileFormat, partitionColumns, None, options, Map.empty)
}
