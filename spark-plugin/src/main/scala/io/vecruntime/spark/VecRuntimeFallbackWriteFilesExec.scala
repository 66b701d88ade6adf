package io.vecruntime.spark

import org.apache.spark.internal.Logging
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.connector.write.WriterCommitMessage
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.datasources.{WriteFilesExec, WriteFilesSpec}

import io.vecruntime.spark.shims.WriteFilesNode

/**
 * Spark's own write (the wrapped `WriteFilesExec`) kept because vecruntime cannot take it; the
 * node carries the reason so that EXPLAIN shows it, and logs it when it runs (a warning for a
 * Parquet write).
 */
case class VecRuntimeFallbackWriteFilesExec(child: SparkPlan, reason: String)
  extends WriteFilesNode with Logging {

  // Logged as the write runs: once a write, not once a planning pass. A warning for a Parquet
  // write the plugin could not take; other formats are not its business.
  override protected def doExecuteWrite(spec: WriteFilesSpec): RDD[WriterCommitMessage] = {
    val message = s"vecruntime: Spark's writer writes this: $reason"
    child match {
      case w: WriteFilesExec if !VectorWriteRule.writesParquet(w.fileFormat) => logInfo(message)
      case _ => logWarning(message)
    }
    child.executeWrite(spec)
  }

  override def simpleString(maxFields: Int): String =
    s"VecRuntimeFallback [Spark's writer: $reason]"

  override protected def withNewChildInternal(newChild: SparkPlan): SparkPlan =
    copy(child = newChild)
}
