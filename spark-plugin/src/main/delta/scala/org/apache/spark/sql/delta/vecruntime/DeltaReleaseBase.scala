package org.apache.spark.sql.delta.vecruntime

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.delta.{DeltaLog, DeltaOptions, IcebergCompat}
import org.apache.spark.sql.delta.actions.{Metadata, Protocol}
import org.apache.spark.sql.delta.constraints.Constraint
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.types.StructType

/**
 * The steps of `writeFiles` that Delta releases take their own way ([[VecRuntimeTransaction]]),
 * as the oldest release supported (3.3) takes them; each release's `DeltaRelease` overrides
 * what it does otherwise.
 */
abstract class DeltaReleaseBase {
  /** The Delta releases whose `writeFiles` the shim's is checked against. */
  val Releases: Set[String]

  /** The check of CHECK constraints before the write (none before 4.2). */
  def validateCheckConstraints(
      session: SparkSession,
      constraints: Seq[Constraint],
      deltaLog: DeltaLog,
      schema: StructType): Unit = ()

  def invariantChecker(session: SparkSession, plan: SparkPlan, constraints: Seq[Constraint]): SparkPlan

  /** The write's options Delta passes on: record limit and codec. */
  val KeptWriteOptions: Set[String] = Set(DeltaOptions.MAX_RECORDS_PER_FILE, DeltaOptions.COMPRESSION)

  /** `given` and whether partition columns are written into the files (IcebergCompat only). */
  def writerOptions(
      session: SparkSession,
      given: Map[String, String],
      protocol: Protocol,
      metadata: Metadata): Map[String, String] =
    given + (DeltaOptions.WRITE_PARTITION_COLUMNS -> IcebergCompat.isAnyEnabled(metadata).toString)

  /** The error a failed write reports. */
  def writeError(e: Throwable, metadata: Metadata): Throwable = e

  /** The IcebergCompat version each added file is tagged with, if any. */
  def icebergCompatTag(metadata: Metadata): Option[String]
}
