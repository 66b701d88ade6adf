package org.apache.spark.sql.delta.vecruntime

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.delta.{DeltaConfigs, DeltaLog, DeltaOptions, IcebergCompat}
import org.apache.spark.sql.delta.{MaterializePartitionColumnsTableFeature, TransactionExecutionObserver}
import org.apache.spark.sql.delta.actions.{Metadata, Protocol}
import org.apache.spark.sql.delta.constraints.{Constraint, Constraints, DeltaInvariantCheckerExec}
import org.apache.spark.sql.delta.schema.EmptySchemaWriteException
import org.apache.spark.sql.delta.shims.VariantShreddingShims
import org.apache.spark.sql.delta.util.TableParquetVersionOption
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.types.StructType

/**
 * What Delta Lake 4.4's `writeFiles` does its own way ([[VecRuntimeTransaction]]): as 4.2's, and
 * it keeps the write's Parquet version and timestamp type, passes the table's Parquet version,
 * and reports a write of an empty group with its own error.
 */
object DeltaRelease extends DeltaReleaseBase {
  val Releases = Set("4.4.0")

  override def validateCheckConstraints(
      session: SparkSession,
      constraints: Seq[Constraint],
      deltaLog: DeltaLog,
      schema: StructType): Unit =
    Constraints.validateCheckConstraints(session, constraints, deltaLog, schema)

  def invariantChecker(session: SparkSession, plan: SparkPlan, constraints: Seq[Constraint]): SparkPlan =
    DeltaInvariantCheckerExec(session, plan, constraints)

  /** The write's options Delta passes on: record limit, codec, Parquet version, timestamp type. */
  override val KeptWriteOptions: Set[String] = Set(DeltaOptions.MAX_RECORDS_PER_FILE,
    DeltaOptions.COMPRESSION, DeltaOptions.PARQUET_VERSION, DeltaOptions.PARQUET_OUTPUT_TIMESTAMP_TYPE)

  /**
   * `given` and whether partition columns are written into the files, the table's Variant
   * shredding, and the table's Parquet version.
   */
  override def writerOptions(
      session: SparkSession,
      given: Map[String, String],
      protocol: Protocol,
      metadata: Metadata): Map[String, String] = {
    val partitionColumnsInFiles = IcebergCompat.isAnyEnabled(metadata) ||
      protocol.isFeatureSupported(MaterializePartitionColumnsTableFeature) ||
      DeltaConfigs.WRITE_PARTITION_COLUMNS_TO_PARQUET.fromMetaData(metadata).getOrElse(true)
    val chosen = given + (DeltaOptions.WRITE_PARTITION_COLUMNS -> partitionColumnsInFiles.toString)
    chosen ++
      VariantShreddingShims.getVariantInferShreddingSchemaOptions(
        DeltaConfigs.ENABLE_VARIANT_SHREDDING.fromMetaData(metadata)) ++
      TableParquetVersionOption.getWriterOptions(session, chosen, metadata.configuration)
  }

  /** The error a failed write reports: Delta's own (thrown) for a write of an empty group. */
  override def writeError(e: Throwable, metadata: Metadata): Throwable = {
    if (EmptySchemaWriteException.isEmptySchemaWriteException(e)) {
      EmptySchemaWriteException.throwEmptySchemaWriteException(e, metadata)
    }
    e
  }

  def icebergCompatTag(metadata: Metadata): Option[String] =
    IcebergCompat.anyEnabled(metadata).filter(_.version >= 2).map(_.version.toString)
}

/** Delta 4.4's observers also tell their next observer. */
trait ReleaseObserver extends TransactionExecutionObserver {
  def next: TransactionExecutionObserver

  override def getNextObserver: Option[TransactionExecutionObserver] = next.getNextObserver
}
