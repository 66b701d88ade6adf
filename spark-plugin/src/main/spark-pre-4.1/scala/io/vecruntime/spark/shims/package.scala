package io.vecruntime.spark

package object shims {
  /** The Structured Streaming file sink. */
  type FileStreamSink = org.apache.spark.sql.execution.streaming.FileStreamSink
}
