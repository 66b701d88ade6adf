package org.apache.spark.sql.delta.vecruntime

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.delta.{DeltaConfigs, DeltaLog, DeltaOptions, IcebergCompat}
import org.apache.spark.sql.delta.{MaterializePartitionColumnsTableFeature, TransactionExecutionObserver}
import org.apache.spark.sql.delta.actions.{Metadata, Protocol}
import org.apache.spark.sql.delta.constraints.{Constraint, Constraints, DeltaInvariantCheckerExec}
import org.apache.spark.sql.delta.shims.VariantShreddingShims
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.types.StructType

/**
 * What Delta Lake 4.2's `writeFiles` does its own way ([[VecRuntimeTransaction]]): as 4.0's, and
 * it validates CHECK constraints before the write, writes partition columns into the files
 * under the materializePartitionColumns feature too, and passes the table's Variant shredding.
 */
object DeltaRelease extends DeltaReleaseBase {
  val Releases = Set("4.2.0")

  override def validateCheckConstraints(
      session: SparkSession,
      constraints: Seq[Constraint],
      deltaLog: DeltaLog,
      schema: StructType): Unit =
    Constraints.validateCheckConstraints(session, constraints, deltaLog, schema)

  def invariantChecker(session: SparkSession, plan: SparkPlan, constraints: Seq[Constraint]): SparkPlan =
    DeltaInvariantCheckerExec(session, plan, constraints)

  override def writerOptions(
      session: SparkSession,
      given: Map[String, String],
      protocol: Protocol,
      metadata: Metadata): Map[String, String] = {
    val partitionColumnsInFiles = IcebergCompat.isAnyEnabled(metadata) ||
      protocol.isFeatureSupported(MaterializePartitionColumnsTableFeature)
    given + (DeltaOptions.WRITE_PARTITION_COLUMNS -> partitionColumnsInFiles.toString) ++
      VariantShreddingShims.getVariantInferShreddingSchemaOptions(
        DeltaConfigs.ENABLE_VARIANT_SHREDDING.fromMetaData(metadata))
  }

  def icebergCompatTag(metadata: Metadata): Option[String] =
    IcebergCompat.anyEnabled(metadata).filter(_.version >= 2).map(_.version.toString)
}

/** Delta 4.2's observers have nothing of their own. */
trait ReleaseObserver extends TransactionExecutionObserver
