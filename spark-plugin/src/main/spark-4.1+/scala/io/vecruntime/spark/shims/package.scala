package io.vecruntime.spark

package object shims {
  /** The Structured Streaming file sink (moved to `sinks` in Spark 4.1). */
  type FileStreamSink = org.apache.spark.sql.execution.streaming.sinks.FileStreamSink
}
