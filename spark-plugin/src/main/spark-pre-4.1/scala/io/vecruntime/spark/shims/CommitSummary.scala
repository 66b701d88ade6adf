package io.vecruntime.spark.shims

import io.vecruntime.spark.DelegatingBatchWrite

/** Spark before 4.1 commits without a write summary. */
trait CommitSummary extends DelegatingBatchWrite
