package org.apache.spark.sql.delta.vecruntime

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.delta.{DeltaLog, DeltaOptions, IcebergCompat, TransactionExecutionObserver}
import org.apache.spark.sql.delta.actions.{Metadata, Protocol}
import org.apache.spark.sql.delta.constraints.{Constraint, DeltaInvariantCheckerExec}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.types.StructType

/**
 * What Delta Lake 4.0's `writeFiles` does its own way ([[VecRuntimeTransaction]]): no check of
 * CHECK constraints before the write (the checker checks the rows), partition columns in the
 * files under IcebergCompat only, no Variant shredding options, and the write's options
 * reduced to record limit and codec.
 */
object DeltaRelease {
  /** The Delta releases whose `writeFiles` this shim's is checked against. */
  val Releases = Set("4.0.0")

  def validateCheckConstraints(
      session: SparkSession,
      constraints: Seq[Constraint],
      deltaLog: DeltaLog,
      schema: StructType): Unit = ()

  def invariantChecker(session: SparkSession, plan: SparkPlan, constraints: Seq[Constraint]): SparkPlan =
    DeltaInvariantCheckerExec(session, plan, constraints)

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

  /** The IcebergCompat version each added file is tagged with: from V2 on. */
  def icebergCompatTag(metadata: Metadata): Option[String] =
    IcebergCompat.anyEnabled(metadata).filter(_.version >= 2).map(_.version.toString)
}

/** Delta 4.0's observers have nothing of their own. */
trait ReleaseObserver extends TransactionExecutionObserver
