#!/usr/bin/env bash
# The streaming ingest benchmark, one command on a fresh clone:
#   benchmarks/spark-write/streaming.sh [runs, default 5] [micro-batches, default 30] [rows a batch, default 50000]
# Builds the plugin, then runs a rate-micro-batch source shaped as TPC-DS store_sales into the
# Parquet file sink with Spark's writer and with vecruntime (and into the noop sink) from one
# local[2] Spark session, and prints processed rows per second, CPU, bytes and files. SPARK=4.1
# or SPARK=4.0 runs it on that Spark release.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/spark-version.sh
build_plugin
SPARK_DRIVER_MEMORY=${SPARK_DRIVER_MEMORY:-4g} scripts/spark-run.sh \
  io.vecruntime.spark.bench.StreamingWriteBenchmark "${1:-5}" "${2:-30}" "${3:-50000}"
