package io.vecruntime.spark

import org.apache.spark.sql.connector.write.{BatchWrite, WriterCommitMessage}

/**
 * A `BatchWrite` whose commit and abort are `delegate`'s (a table format's). With
 * `shims.CommitSummary` the write's summary is handed on too, where the Spark line has one.
 */
trait DelegatingBatchWrite extends BatchWrite {
  protected def delegate: BatchWrite

  override def useCommitCoordinator(): Boolean = delegate.useCommitCoordinator()
  override def onDataWriterCommit(message: WriterCommitMessage): Unit =
    delegate.onDataWriterCommit(message)
  override def commit(messages: Array[WriterCommitMessage]): Unit = delegate.commit(messages)
  override def abort(messages: Array[WriterCommitMessage]): Unit = delegate.abort(messages)
}
