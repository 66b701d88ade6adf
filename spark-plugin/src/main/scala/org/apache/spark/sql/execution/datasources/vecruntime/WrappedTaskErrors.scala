package org.apache.spark.sql.execution.datasources.vecruntime

import org.apache.hadoop.fs.FileAlreadyExistsException

import org.apache.spark.TaskOutputFileAlreadyExistException
import org.apache.spark.shuffle.FetchFailedException
import org.apache.spark.sql.errors.QueryExecutionErrors
import org.apache.spark.sql.internal.SQLConf

/**
 * A task write's errors wrapped by the task itself, as Spark 3.5's `FileFormatWriter.executeTask`
 * and Delta's `DeltaFileFormatWriter.executeTask` (on every Spark line) wrap them.
 */
private[vecruntime] object WrappedTaskErrors {
  def wrap[T](path: String)(task: => T): T = try task catch {
    case e: FetchFailedException => throw e
    case f: FileAlreadyExistsException if SQLConf.get.fastFailFileFormatOutput =>
      throw new TaskOutputFileAlreadyExistException(f)
    case t: Throwable => throw QueryExecutionErrors.taskFailedWhileWritingRowsError(path, t)
  }
}
