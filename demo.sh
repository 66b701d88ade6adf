#!/usr/bin/env bash
# Builds everything and runs the demo:
#  1. TPC-DS store_sales (dsdgen, scale factor 1; duckdb + its tpcds extension from PyPI),
#  2. a local Spark 4.2 job (no Spark install: Maven brings it; SPARK=4.1, 4.0 or 3.5 for
#     that Spark release, built with its profile) writing that table with
#     vecruntime and with Spark's own writer: times, sizes, and a row-by-row comparison of what
#     Spark reads back,
#  3. the plugin jar in pyspark's own distribution of that Spark release (PyPI): flat, nested
#     and partitioned writes native and equal to Spark's writer's (scripts/pyspark-check.sh),
#  4. the native CLI rewriting the same file per codec, compared with pyarrow.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/spark-version.sh
echo "== build (cargo, Maven; Spark $SPARK)"
cargo build --release -p vecruntime-cli
build_plugin
./scripts/venv.sh
echo "== TPC-DS data"
.venv/bin/python benchmarks/tpcds.py || echo "dsdgen failed: the Spark demo uses synthetic rows"
echo "== Spark $SPARK: vecruntime against Spark's writer"
scripts/spark-run.sh io.vecruntime.spark.demo.StoreSalesDemo benchmarks/data/store_sales.parquet \
  benchmarks/data/spark-demo
echo "== the jar in pyspark $SPARK"
scripts/pyspark-check.sh
echo "== native CLI"
.venv/bin/python scripts/demo.py
