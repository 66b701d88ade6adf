package org.apache.spark.sql.delta.vecruntime

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.delta.{IcebergCompat, TransactionExecutionObserver}
import org.apache.spark.sql.delta.actions.Metadata
import org.apache.spark.sql.delta.constraints.{Constraint, DeltaInvariantCheckerExec}
import org.apache.spark.sql.execution.SparkPlan

/**
 * What Delta Lake 4.0's `writeFiles` does its own way ([[VecRuntimeTransaction]]): its constraint
 * checker takes the session, and IcebergCompat from V2 on tags the files it adds.
 */
object DeltaRelease extends DeltaReleaseBase {
  val Releases = Set("4.0.0")

  def invariantChecker(session: SparkSession, plan: SparkPlan, constraints: Seq[Constraint]): SparkPlan =
    DeltaInvariantCheckerExec(session, plan, constraints)

  def icebergCompatTag(metadata: Metadata): Option[String] =
    IcebergCompat.anyEnabled(metadata).filter(_.version >= 2).map(_.version.toString)
}

/** Delta 4.0's observers have nothing of their own. */
trait ReleaseObserver extends TransactionExecutionObserver
