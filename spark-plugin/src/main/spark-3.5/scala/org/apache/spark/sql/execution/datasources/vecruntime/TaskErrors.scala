package org.apache.spark.sql.execution.datasources.vecruntime

import org.apache.hadoop.fs.FileAlreadyExistsException

import org.apache.spark.TaskOutputFileAlreadyExistException
import org.apache.spark.shuffle.FetchFailedException
import org.apache.spark.sql.errors.QueryExecutionErrors
import org.apache.spark.sql.internal.SQLConf

/**
 * How a task write's errors reach Spark (Spark 3.5): wrapped by the task, as Spark 3.5's
 * `FileFormatWriter.executeTask` wraps them (its task writers do not).
 */
private[vecruntime] object TaskErrors {
  def wrap[T](path: String)(task: => T): T = try task catch {
    case e: FetchFailedException => throw e
    case f: FileAlreadyExistsException if SQLConf.get.fastFailFileFormatOutput =>
      throw new TaskOutputFileAlreadyExistException(f)
    case t: Throwable => throw QueryExecutionErrors.taskFailedWhileWritingRowsError(path, t)
  }
}
