package io.vecruntime.spark

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.execution.datasources.WriteJobStatsTracker

/**
 * A job's stats tracker whose task trackers can read a partitioned write's whole input rows
 * (the write's every column, not only a file's data columns), so that the write hands its files
 * whole rows ([[org.apache.spark.sql.execution.datasources.vecruntime.SparkWriteShim.takesWholeRows]]).
 */
trait WholeRowStatsTracker extends WriteJobStatsTracker {
  /**
   * The tracker whose task trackers are handed rows of `allColumns`, or None where it cannot
   * read them; the job's results are still processed by this tracker.
   */
  def forWholeRows(allColumns: Seq[Attribute]): Option[WriteJobStatsTracker]
}
