package io.vecruntime.spark.shims

import org.apache.spark.sql.connector.write.{BatchWrite, WriterCommitMessage}

/** A `BatchWrite` whose commit and abort are `delegate`'s (Spark before 4.1 has no summary). */
trait DelegatingBatchWrite extends BatchWrite {
  protected def delegate: BatchWrite

  override def useCommitCoordinator(): Boolean = delegate.useCommitCoordinator()
  override def onDataWriterCommit(message: WriterCommitMessage): Unit =
    delegate.onDataWriterCommit(message)
  override def commit(messages: Array[WriterCommitMessage]): Unit = delegate.commit(messages)
  override def abort(messages: Array[WriterCommitMessage]): Unit = delegate.abort(messages)
}
