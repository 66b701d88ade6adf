#!/usr/bin/env bash
# The Spark write benchmark, one command on a fresh clone:
#   benchmarks/spark-write/run.sh [scale factor, default 1] [runs, default 5]
# Builds the plugin, generates TPC-DS store_sales with dsdgen (duckdb 1.5.5 + its tpcds extension
# from PyPI, into .venv), then writes it from one local[2] Spark session with Spark's writer v1,
# Spark's writer v2, vecruntime and vecruntime with v1 pages, for snappy, zstd and none, then
# partitioned by ss_sold_date_sk, bucketed by ss_item_sk (64 buckets, saveAsTable) and nested
# (grouped by ticket into an array of structs and a map) with snappy against Spark v1 (after one unmeasured
# warm-up round of each case; WARMUPS=n for more; SHAPES=flat,partitioned,bucketed,nested chooses
# the cases, SHAPES=variant adds each row as a Variant object, SHAPES=geo each as geometries (Spark 4.2), CODECS the flat codecs), and prints the tables. SPARK=4.1, 4.0 or 3.5 runs it on
# that Spark release (the plugin built with its profile, against that release's own writer).
set -euo pipefail
cd "$(dirname "$0")/../.."
SF=${1:-1}
RUNS=${2:-5}
. scripts/spark-version.sh
build_plugin
./scripts/venv.sh
DATA=benchmarks/data/store_sales.parquet
if [ "$SF" != "1" ]; then DATA=benchmarks/data/store_sales_sf$SF.parquet; fi
.venv/bin/python benchmarks/tpcds.py --sf "$SF" --out "$DATA"
SPARK_DRIVER_MEMORY=${SPARK_DRIVER_MEMORY:-8g} scripts/spark-run.sh \
  io.vecruntime.spark.bench.SparkWriteBenchmark "$DATA" "$RUNS" "${CODECS:-snappy,zstd,none}"
