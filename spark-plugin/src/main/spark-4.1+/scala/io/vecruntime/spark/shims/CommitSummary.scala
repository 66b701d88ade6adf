package io.vecruntime.spark.shims

import io.vecruntime.spark.DelegatingBatchWrite

import org.apache.spark.sql.connector.write.{WriterCommitMessage, WriteSummary}

/** The write's summary (a MERGE's counts, Spark 4.1+) handed on to the delegate's commit. */
trait CommitSummary extends DelegatingBatchWrite {
  override def commit(messages: Array[WriterCommitMessage], summary: WriteSummary): Unit =
    delegate.commit(messages, summary)
}
