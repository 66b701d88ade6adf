package io.vecruntime.spark.shims

import org.apache.parquet.schema.LogicalTypeAnnotation

import org.apache.spark.sql.internal.{LegacyBehaviorPolicy, SQLConf}
import org.apache.spark.sql.types.DataType

/** What differs between Spark versions: Spark 4.0 and 3.5 (parquet-java 1.15 and 1.13). */
object SparkShims {
  /** Spark 4.0 and 3.5 have no TIME type. */
  def isTime(t: DataType): Boolean = false

  /** parquet-java 1.15 and 1.13 have no UNKNOWN annotation, and those Sparks write no void column. */
  def isUnknown(a: LogicalTypeAnnotation): Boolean = false

  /** The session's rebase modes in write (string settings in Spark 4.0 and 3.5). */
  def rebaseModesInWrite(conf: SQLConf): (LegacyBehaviorPolicy.Value, LegacyBehaviorPolicy.Value) =
    (LegacyBehaviorPolicy.withName(conf.getConf(SQLConf.PARQUET_REBASE_MODE_IN_WRITE)),
      LegacyBehaviorPolicy.withName(conf.getConf(SQLConf.PARQUET_INT96_REBASE_MODE_IN_WRITE)))
}
