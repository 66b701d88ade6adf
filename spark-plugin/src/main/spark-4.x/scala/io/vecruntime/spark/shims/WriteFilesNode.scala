package io.vecruntime.spark.shims

import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.execution.datasources.{FileFormat, WriteFilesExec, WriteFilesExecBase}

/**
 * The plan node of a write that replaces Spark's `WriteFilesExec` (Spark 4.x): a
 * `WriteFilesExecBase`, which `FileFormatWriter` finds as the write's own node and whose
 * `child` is the write's input.
 */
abstract class WriteFilesNode extends WriteFilesExecBase {
  /** The rows (or batches) to write. */
  def input: SparkPlan = child
}

object WriteFilesNode {
  /** The child of a node that writes `input` in place of Spark's `w`. */
  def childFor(w: WriteFilesExec, input: SparkPlan): SparkPlan = input

  /** The child of a node that writes `input` where no `WriteFilesExec` was planned. */
  def over(input: SparkPlan, fileFormat: FileFormat, partitionColumns: Seq[Attribute],
      options: Map[String, String]): SparkPlan = input
}
