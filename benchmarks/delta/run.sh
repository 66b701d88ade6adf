#!/usr/bin/env bash
# The Delta Lake write benchmark, one command on a fresh clone:
#   benchmarks/delta/run.sh [runs, default 5] [cases, default append,partitioned,merge,optimize]
# Builds the plugin (Spark 4.2 with Delta Lake 4.4), generates TPC-DS store_sales sf=1 with
# dsdgen (duckdb's tpcds extension, into .venv), then runs DeltaWriteBenchmark: each case with
# Delta's writer and with the plugin, in one local[2] Spark session, launches alternating.
# CHMOD_FREE=1: both writers create their files without Hadoop's chmod processes (the partitioned
# case's figure without what the local file system costs each writer).
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${1:-5}
. scripts/spark-version.sh
if [ "$SPARK" != 4.2 ]; then
  echo "the Delta benchmark runs on Spark 4.2 (Delta Lake 4.4)" >&2
  exit 2
fi
build_plugin
./scripts/venv.sh
DATA=benchmarks/data/store_sales.parquet
.venv/bin/python benchmarks/tpcds.py --sf 1 --out "$DATA"
SPARK_DRIVER_MEMORY=${SPARK_DRIVER_MEMORY:-8g} scripts/spark-run.sh \
  io.vecruntime.spark.bench.DeltaWriteBenchmark "$DATA" "$RUNS" "${2:-append,partitioned,merge,optimize}"
