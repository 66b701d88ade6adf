package org.apache.spark.sql.delta.vecruntime

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.delta.{IcebergCompatV2, TransactionExecutionObserver}
import org.apache.spark.sql.delta.actions.Metadata
import org.apache.spark.sql.delta.constraints.{Constraint, DeltaInvariantCheckerExec}
import org.apache.spark.sql.execution.SparkPlan

/**
 * What Delta Lake 3.3's `writeFiles` does its own way ([[VecRuntimeTransaction]]): its constraint
 * checker takes no session, and only IcebergCompatV2 tags the files it adds.
 */
object DeltaRelease extends DeltaReleaseBase {
  val Releases = Set("3.3.2")

  def invariantChecker(session: SparkSession, plan: SparkPlan, constraints: Seq[Constraint]): SparkPlan =
    DeltaInvariantCheckerExec(plan, constraints)

  def icebergCompatTag(metadata: Metadata): Option[String] =
    if (IcebergCompatV2.isEnabled(metadata)) Some("2") else None
}

/** Delta 3.3's observers have nothing of their own. */
trait ReleaseObserver extends TransactionExecutionObserver
