package io.vecruntime.spark.shims

import org.apache.spark.sql.connector.write.{BatchWrite, WriterCommitMessage, WriteSummary}

/**
 * A `BatchWrite` whose commit and abort are `delegate`'s, with the write's summary (a MERGE's
 * counts, Spark 4.1+) handed on.
 */
trait DelegatingBatchWrite extends BatchWrite {
  protected def delegate: BatchWrite

  override def useCommitCoordinator(): Boolean = delegate.useCommitCoordinator()
  override def onDataWriterCommit(message: WriterCommitMessage): Unit =
    delegate.onDataWriterCommit(message)
  override def commit(messages: Array[WriterCommitMessage]): Unit = delegate.commit(messages)
  override def commit(messages: Array[WriterCommitMessage], summary: WriteSummary): Unit =
    delegate.commit(messages, summary)
  override def abort(messages: Array[WriterCommitMessage]): Unit = delegate.abort(messages)
}
