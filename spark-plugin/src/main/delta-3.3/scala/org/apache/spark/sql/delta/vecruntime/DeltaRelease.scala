package org.apache.spark.sql.delta.vecruntime

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.delta.{DeltaLog, DeltaOptions, IcebergCompat, IcebergCompatV2}
import org.apache.spark.sql.delta.TransactionExecutionObserver
import org.apache.spark.sql.delta.actions.{Metadata, Protocol}
import org.apache.spark.sql.delta.constraints.{Constraint, DeltaInvariantCheckerExec}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.types.StructType

/**
 * What Delta Lake 3.3's `writeFiles` does its own way ([[VecRuntimeTransaction]]): as 4.0's, and
 * its constraint checker takes no session, and only IcebergCompatV2 tags the files it adds.
 */
object DeltaRelease {
  /** The Delta releases whose `writeFiles` this shim's is checked against. */
  val Releases = Set("3.3.2")

  def validateCheckConstraints(
      session: SparkSession,
      constraints: Seq[Constraint],
      deltaLog: DeltaLog,
      schema: StructType): Unit = ()

  def invariantChecker(session: SparkSession, plan: SparkPlan, constraints: Seq[Constraint]): SparkPlan =
    DeltaInvariantCheckerExec(plan, constraints)

  /** The write's options Delta passes on: record limit and codec. */
  val KeptWriteOptions = Set(DeltaOptions.MAX_RECORDS_PER_FILE, DeltaOptions.COMPRESSION)

  /** `given` and whether partition columns are written into the files. */
  def writerOptions(
      session: SparkSession,
      given: Map[String, String],
      protocol: Protocol,
      metadata: Metadata): Map[String, String] =
    given + (DeltaOptions.WRITE_PARTITION_COLUMNS -> IcebergCompat.isAnyEnabled(metadata).toString)

  def writeError(e: Throwable, metadata: Metadata): Throwable = e

  /** IcebergCompatV2's tag of each added file. */
  def icebergCompatTag(metadata: Metadata): Option[String] =
    if (IcebergCompatV2.isEnabled(metadata)) Some("2") else None
}

/** Delta 3.3's observers have nothing of their own. */
trait ReleaseObserver extends TransactionExecutionObserver
