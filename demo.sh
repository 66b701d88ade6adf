#!/usr/bin/env bash
# Builds everything and runs the demo:
#  1. TPC-DS store_sales (dsdgen, scale factor 1; duckdb + its tpcds extension from PyPI),
#  2. a local Spark 4.2 job (no Spark install: Maven brings it) writing that table with
#     vecruntime and with Spark's own writer: times, sizes, and a row-by-row comparison of what
#     Spark reads back,
#  3. the native CLI rewriting the same file per codec, compared with pyarrow.
set -euo pipefail
cd "$(dirname "$0")"
echo "== build (cargo, Maven)"
cargo build --release -p vecruntime-cli
mvn -q -B -pl jvm,spark-plugin package dependency:build-classpath -DskipTests \
  -Dmdep.includeScope=test -Dmdep.outputFile=target/test-classpath.txt
./scripts/venv.sh
echo "== TPC-DS data"
.venv/bin/python benchmarks/tpcds.py || echo "dsdgen failed: the Spark demo uses synthetic rows"
echo "== Spark: vecruntime against Spark's writer"
scripts/spark-run.sh io.vecruntime.spark.demo.StoreSalesDemo benchmarks/data/store_sales.parquet \
  benchmarks/data/spark-demo
echo "== native CLI"
.venv/bin/python scripts/demo.py
