package io.vecruntime.spark

import org.apache.spark.sql.SparkSessionExtensions
import org.apache.spark.sql.execution.ColumnarRule

/**
 * `spark.sql.extensions=io.vecruntime.spark.VecRuntimeExtensions`: Parquet writes that
 * vecruntime can take go through [[VectorWriteFilesExec]] (or [[VectorParquetFileFormat]] where
 * Spark plans no `WriteFiles`, and in a stream's file sink: [[VectorStreamSink]]); the rest keep
 * Spark's writer, with the reason in EXPLAIN and the log.
 */
class VecRuntimeExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    extensions.injectColumnar(session =>
      new ColumnarRule {
        override def postColumnarTransitions = VectorWriteRule(session)
      })
    extensions.injectPostHocResolutionRule(_ => VectorStreamSink)
  }
}
