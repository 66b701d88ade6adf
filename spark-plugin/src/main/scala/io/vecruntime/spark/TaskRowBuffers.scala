package io.vecruntime.spark

import java.util.concurrent.ConcurrentHashMap

import scala.collection.mutable

import org.apache.spark.TaskContext
import org.apache.spark.memory.{MemoryConsumer, TaskMemoryManager}
import org.apache.spark.sql.execution.datasources.vecruntime.SparkWriteShim

/**
 * The open files of a task of a partitioned or bucketed write, and the row bytes they hold in
 * their batches. Those bytes are memory of Spark's memory manager (the off-heap pool when it is
 * on), asked for as they grow. When the manager grants no more, past `limit`, or when it asks
 * this consumer to spill, the largest batches are encoded until half of what is held is left:
 * their rows move into the files' encoded pages, a fraction of their size. A file still open
 * when the task ends is released: a failed task's writer closing stops at the first file whose
 * close fails, and the native memory of the others must not wait for the garbage collector.
 */
private[spark] final class TaskRowBuffers(val limit: Long, manager: Option[TaskMemoryManager]) {
  private val writers = mutable.LinkedHashSet[VectorParquetOutputWriter]()
  private var total = 0L
  private var granted = 0L
  // Encoding a batch asks the memory manager for the file's pages, which may ask this to spill.
  private var relieving = false

  private val consumer: Option[MemoryConsumer] = manager.map { m =>
    new MemoryConsumer(m, m.pageSizeBytes(), NativeMemory.mode(m)) {
      override def spill(size: Long, trigger: MemoryConsumer): Long =
        if ((trigger eq this) || relieving) 0L else relieve(math.max(0L, total - size))
    }
  }

  def register(w: VectorParquetOutputWriter): Unit = writers += w

  def unregister(w: VectorParquetOutputWriter): Unit = {
    if (writers.remove(w)) shrank(w.bufferedBytes)
  }

  def grew(bytes: Long): Unit = {
    total += bytes
    if (total > granted) {
      // In steps of at least a MiB: each request takes the memory manager's lock.
      val ask = math.max(total - granted, 1L << 20)
      granted += consumer.fold(ask)(_.acquireMemory(ask))
    }
    if ((total > granted || total > limit) && !relieving) relieve(math.min(granted, limit) / 2)
  }

  def shrank(bytes: Long): Unit = total -= bytes

  /** Releases every file still open, without finishing it, and the memory. */
  def releaseAll(): Unit = {
    writers.toArray.foreach(_.abortQuietly())
    giveBack(0L)
  }

  /** Encodes the largest batches until at most `target` bytes are held; returns bytes freed. */
  private def relieve(target: Long): Long = {
    val before = total
    relieving = true
    try {
      val largest = writers.toArray.sortBy(w => -w.bufferedBytes).iterator
      while (total > target && largest.hasNext) largest.next().encodeBuffered()
    } finally relieving = false
    giveBack(math.max(total, 1L << 20))
    before - total
  }

  /** Hands back what is granted beyond `keep`. */
  private def giveBack(keep: Long): Unit = if (granted > keep) {
    consumer.foreach(_.freeMemory(granted - keep))
    granted = keep
  }
}

private[spark] object TaskRowBuffers {
  private val tasks = new ConcurrentHashMap[Long, TaskRowBuffers]()

  /** The running task's buffers (made on first use, dropped when the task ends), if in a task. */
  def ofTask(limit: Long): Option[TaskRowBuffers] = Option(TaskContext.get()).map { context =>
    val id = context.taskAttemptId()
    tasks.computeIfAbsent(id, _ => {
      context.addTaskCompletionListener[Unit](_ => Option(tasks.remove(id)).foreach(_.releaseAll()))
      new TaskRowBuffers(limit, SparkWriteShim.taskMemoryManager())
    })
  }
}
