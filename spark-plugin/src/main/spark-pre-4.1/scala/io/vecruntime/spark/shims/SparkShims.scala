package io.vecruntime.spark.shims

import io.vecruntime.parquet.ParquetSchema
import io.vecruntime.spark.WideRows
import org.apache.hadoop.conf.Configuration
import org.apache.parquet.schema.LogicalTypeAnnotation

import org.apache.spark.sql.execution.datasources.OutputWriter
import org.apache.spark.sql.internal.{LegacyBehaviorPolicy, SQLConf}
import org.apache.spark.sql.types.{DataType, StructType}

/** What differs between Spark versions: Spark 4.0 and 3.5 (parquet-java 1.15 and 1.13). */
object SparkShims {
  /** Spark 4.0 and 3.5 have no TIME type. */
  def isMicrosTime(t: DataType): Boolean = false

  /** parquet-java 1.15 and 1.13 have no UNKNOWN annotation, and those Sparks write no void column. */
  def isUnknown(a: LogicalTypeAnnotation): Boolean = false

  /** The session's rebase modes in write (string settings in Spark 4.0 and 3.5). */
  def rebaseModesInWrite(conf: SQLConf): (LegacyBehaviorPolicy.Value, LegacyBehaviorPolicy.Value) =
    (LegacyBehaviorPolicy.withName(conf.getConf(SQLConf.PARQUET_REBASE_MODE_IN_WRITE)),
      LegacyBehaviorPolicy.withName(conf.getConf(SQLConf.PARQUET_INT96_REBASE_MODE_IN_WRITE)))

  /**
   * Variant stays Spark's writer's: Spark 3.5 has none, and Spark 4.0's writer (parquet-java
   * 1.15) leaves its group unannotated.
   */
  def isVariant(t: DataType): Boolean = false

  def variantSpecVersion(a: LogicalTypeAnnotation): Option[Int] = None

  def infersVariantShredding(options: Map[String, String], conf: SQLConf): Boolean = false

  /** Spark 4.0 and 3.5 have no geospatial types. */
  def isGeospatial(t: DataType): Boolean = false

  def isGeospatialAnnotation(a: LogicalTypeAnnotation): Boolean = false

  def addGeospatialColumn(
      b: ParquetSchema.Builder,
      name: String,
      a: LogicalTypeAnnotation,
      nullable: Boolean): Unit =
    throw new UnsupportedOperationException("geospatial columns are written natively from Spark 4.2")

  def variantFile(
      path: String,
      dataSchema: StructType,
      conf: Configuration,
      infer: Boolean,
      wide: Option[WideRows],
      open: StructType => OutputWriter): OutputWriter =
    throw new UnsupportedOperationException("Variant is written natively from Spark 4.1")
}
