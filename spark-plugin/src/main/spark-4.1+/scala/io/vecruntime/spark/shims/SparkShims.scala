package io.vecruntime.spark.shims

import org.apache.parquet.schema.LogicalTypeAnnotation
import org.apache.parquet.schema.LogicalTypeAnnotation.UnknownLogicalTypeAnnotation

import org.apache.spark.sql.internal.{LegacyBehaviorPolicy, SQLConf}
import org.apache.spark.sql.types.{DataType, TimeType}

/** What differs between Spark versions: Spark 4.1 and 4.2 (parquet-java 1.16 and 1.17). */
object SparkShims {
  /** Spark's TIME type. */
  def isTime(t: DataType): Boolean = t.isInstanceOf[TimeType]

  /** The UNKNOWN annotation Spark's converter gives a void column. */
  def isUnknown(a: LogicalTypeAnnotation): Boolean = a.isInstanceOf[UnknownLogicalTypeAnnotation]

  /** The session's rebase modes in write: dates and timestamps, then INT96. */
  def rebaseModesInWrite(conf: SQLConf): (LegacyBehaviorPolicy.Value, LegacyBehaviorPolicy.Value) =
    (conf.getConf(SQLConf.PARQUET_REBASE_MODE_IN_WRITE),
      conf.getConf(SQLConf.PARQUET_INT96_REBASE_MODE_IN_WRITE))
}
