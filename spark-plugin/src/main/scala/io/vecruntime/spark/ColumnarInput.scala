package io.vecruntime.spark

import scala.jdk.CollectionConverters._

import org.apache.spark.TaskContext
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * A columnar child's batches handed to Spark's task write as rows (Spark's own
 * `ColumnarBatchRow` views, no data copied), while the batch itself is known to the writer on
 * this thread: [[VectorParquetOutputWriter]] copies the batch's columns in bulk for the rows it
 * was given, just before the batch is given up (a scan refills the same vectors for its next
 * batch). Spark's writer logic (maxRecordsPerFile, stats trackers, naming) still sees every row.
 */
object ColumnarInput {
  /** Who receives the end of each batch: the open writer of this task. */
  trait Listener {
    def endOfBatch(batch: ColumnarBatch): Unit
  }

  private class State {
    var batch: ColumnarBatch = _
    var listener: Listener = _
  }

  private val state = new ThreadLocal[State] {
    override def initialValue(): State = new State
  }

  /** The batch whose rows are being written on this thread, or null. */
  def currentBatch: ColumnarBatch = state.get().batch

  def register(l: Listener): Unit = state.get().listener = l

  def unregister(l: Listener): Unit = {
    val s = state.get()
    if (s.listener eq l) s.listener = null
  }

  /** The rows of `batches`, announcing each batch before its rows and its end after them. */
  def rows(batches: Iterator[ColumnarBatch]): Iterator[InternalRow] = {
    // A failed task must not leave its batch attached to the (pooled) executor thread.
    Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit](_ => state.remove()))
    batchRows(batches)
  }

  private def batchRows(batches: Iterator[ColumnarBatch]): Iterator[InternalRow] = new Iterator[InternalRow] {
    private var current: Iterator[InternalRow] = Iterator.empty
    private var open = false

    override def hasNext: Boolean = {
      while (!current.hasNext) {
        if (open) endBatch()
        if (!batches.hasNext) return false
        val b = batches.next()
        state.get().batch = b
        open = true
        current = b.rowIterator().asScala
      }
      true
    }

    override def next(): InternalRow = {
      if (!hasNext) throw new NoSuchElementException("no more rows")
      current.next()
    }

    private def endBatch(): Unit = {
      val s = state.get()
      open = false
      if (s.listener != null && s.batch != null) s.listener.endOfBatch(s.batch)
      s.batch = null
    }
  }
}
