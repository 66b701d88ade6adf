package io.vecruntime.spark

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.connector.write.WriterCommitMessage
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.datasources.{WriteFilesExecBase, WriteFilesSpec}

/**
 * Spark's own write (the wrapped `WriteFilesExec`) kept because vecruntime cannot take it; the
 * node only carries the reason so that EXPLAIN shows it.
 */
case class VecRuntimeFallbackWriteFilesExec(child: SparkPlan, reason: String)
  extends WriteFilesExecBase {

  override protected def doExecuteWrite(spec: WriteFilesSpec): RDD[WriterCommitMessage] =
    child.executeWrite(spec)

  override def simpleString(maxFields: Int): String =
    s"VecRuntimeFallback [Spark's writer: $reason]"

  override protected def withNewChildInternal(newChild: SparkPlan): SparkPlan =
    copy(child = newChild)
}
