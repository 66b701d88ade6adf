package io.vecruntime.spark.shims

import io.vecruntime.parquet.ParquetSchema
import io.vecruntime.spark.WideRows
import org.apache.hadoop.conf.Configuration
import org.apache.parquet.schema.LogicalTypeAnnotation
import org.apache.parquet.schema.LogicalTypeAnnotation.{GeographyLogicalTypeAnnotation, GeometryLogicalTypeAnnotation, UnknownLogicalTypeAnnotation, VariantLogicalTypeAnnotation}

import org.apache.spark.sql.execution.datasources.OutputWriter
import org.apache.spark.sql.execution.datasources.parquet.ParquetOptions
import org.apache.spark.sql.internal.{LegacyBehaviorPolicy, SQLConf}
import org.apache.spark.sql.types.{DataType, GeographyType, GeometryType, StructType, TimeType, VariantType}

/** What differs between Spark versions: Spark 4.1 and 4.2 (parquet-java 1.16 and 1.17). */
object SparkShims {
  /**
   * Spark's TIME type to microseconds, which Spark writes as TIME(MICROS). Spark 4.3's TIME(7) to
   * TIME(9) it writes as TIME(NANOS), which the native writer leaves to it.
   */
  def isMicrosTime(t: DataType): Boolean = t match {
    case t: TimeType => t.precision <= 6
    case _ => false
  }

  /** The UNKNOWN annotation Spark's converter gives a void column. */
  def isUnknown(a: LogicalTypeAnnotation): Boolean = a.isInstanceOf[UnknownLogicalTypeAnnotation]

  /** The session's rebase modes in write: dates and timestamps, then INT96. */
  def rebaseModesInWrite(conf: SQLConf): (LegacyBehaviorPolicy.Value, LegacyBehaviorPolicy.Value) =
    (conf.getConf(SQLConf.PARQUET_REBASE_MODE_IN_WRITE),
      conf.getConf(SQLConf.PARQUET_INT96_REBASE_MODE_IN_WRITE))

  /** Spark's Variant type (written natively from Spark 4.1, whose writer annotates its group). */
  def isVariant(t: DataType): Boolean = t == VariantType

  /** The Variant specification version of a group Spark's converter annotates VARIANT. */
  def variantSpecVersion(a: LogicalTypeAnnotation): Option[Int] = a match {
    case v: VariantLogicalTypeAnnotation => Some(v.getSpecVersion.toInt)
    case _ => None
  }

  /**
   * Spark's GEOMETRY and GEOGRAPHY, written natively where Spark's writer writes them: from
   * Spark 4.2 (Spark 4.1's writer refuses them).
   */
  def isGeospatial(t: DataType): Boolean =
    writesGeospatial && (t.isInstanceOf[GeometryType] || t.isInstanceOf[GeographyType])

  // This shim builds for Spark 4.1 and 4.2.
  private lazy val writesGeospatial = !org.apache.spark.SPARK_VERSION.startsWith("4.1.")

  /** The GEOMETRY or GEOGRAPHY annotation Spark's converter gives a geospatial column. */
  def isGeospatialAnnotation(a: LogicalTypeAnnotation): Boolean =
    a.isInstanceOf[GeometryLogicalTypeAnnotation] || a.isInstanceOf[GeographyLogicalTypeAnnotation]

  /** Adds a column of one of those annotations, its CRS and edge algorithm as they are. */
  def addGeospatialColumn(
      b: ParquetSchema.Builder,
      name: String,
      a: LogicalTypeAnnotation,
      nullable: Boolean): Unit = a match {
    case g: GeometryLogicalTypeAnnotation => b.geometryColumn(name, g.getCrs, nullable)
    case g: GeographyLogicalTypeAnnotation =>
      b.geographyColumn(name, g.getCrs,
        Option(g.getAlgorithm).map(x => ParquetSchema.EdgeAlgorithm.valueOf(x.name)).orNull, nullable)
  }

  /** Whether Spark's writer infers each file's Variant shredding schema for this write. */
  def infersVariantShredding(options: Map[String, String], conf: SQLConf): Boolean =
    new ParquetOptions(options, conf).inferShreddingForVariant

  /** A file with Variant columns ([[VariantFile]]). */
  def variantFile(
      path: String,
      dataSchema: StructType,
      conf: Configuration,
      infer: Boolean,
      wide: Option[WideRows],
      open: StructType => OutputWriter): OutputWriter =
    new VariantFile(path, dataSchema, conf, infer, wide, open)
}
