#!/usr/bin/env bash
# The Apache Iceberg write benchmark, one command on a fresh clone:
#   benchmarks/iceberg/run.sh [runs, default 3]
# Builds the plugin for Spark 4.1 (Iceberg 1.12's runtime), generates TPC-DS store_sales sf=1
# with dsdgen (duckdb's tpcds extension, into .venv), then runs IcebergWriteBenchmark, each
# launch a local[2] session with writers alternating within it:
#   1. Iceberg's writer against the plugin, the table cached: flat and days(ss_sold_date), zstd
#      (Iceberg's default) and snappy; with `read`, Spark's noop sink on the same rows: what
#      producing them costs (Iceberg's writer pays it; the plugin's flat write decodes the
#      cache's batches itself);
#   2. the same with file: served without chmod processes to both writers (CHMOD_FREE=1): the
#      writers' own difference, days(...) being 3,600 files;
#   3. Iceberg's writer and the plugin reading the Parquet file in the timed job, in launches
#      alternating with Apache DataFusion Comet 1.2's native Iceberg writer on the same job (its
#      own native scan: Comet writes natively only from it; its plugin needs its own launch), one
#      measured run per launch, then the medians of all three. Comet 1.2 works with Iceberg 1.11
#      (with 1.12 it falls back: ManifestFiles.read changed), so its launches put that runtime first.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${1:-3}
export SPARK=4.1
. scripts/spark-version.sh
build_plugin
./scripts/venv.sh
DATA=benchmarks/data/store_sales.parquet
.venv/bin/python benchmarks/tpcds.py --sf 1 --out "$DATA"
M2=$HOME/.m2/repository
for a in org.apache.datafusion:comet-spark-spark4.1_2.13:1.2.0 \
         org.apache.iceberg:iceberg-spark-runtime-4.1_2.13:1.11.0; do
  mvn -B -q dependency:get -Dartifact=$a -Dtransitive=false
done
COMET=$M2/org/apache/datafusion/comet-spark-spark4.1_2.13/1.2.0/comet-spark-spark4.1_2.13-1.2.0.jar
ICEBERG_1_11=$M2/org/apache/iceberg/iceberg-spark-runtime-4.1_2.13/1.11.0/iceberg-spark-runtime-4.1_2.13-1.11.0.jar
MAIN=io.vecruntime.spark.bench.IcebergWriteBenchmark
export SPARK_DRIVER_MEMORY=${SPARK_DRIVER_MEMORY:-8g}
echo "== 1. cached"
scripts/spark-run.sh $MAIN "$DATA" "$RUNS" iceberg,vecruntime,read cached
echo "== 2. cached, file: without chmod processes"
CHMOD_FREE=1 scripts/spark-run.sh $MAIN "$DATA" "$RUNS" iceberg,vecruntime,read cached
echo "== 3. from the Parquet file: Iceberg's writer and the plugin, launches alternating with Comet's"
RESULTS=$(mktemp)
for run in $(seq "$RUNS"); do
  RESULTS=$RESULTS scripts/spark-run.sh $MAIN "$DATA" 1 iceberg,vecruntime file
  RESULTS=$RESULTS FIRST_CLASSPATH=$ICEBERG_1_11 EXTRA_CLASSPATH=$COMET scripts/spark-run.sh $MAIN "$DATA" 1 comet file
done
scripts/spark-run.sh $MAIN summary "$RESULTS"
rm -rf "$RESULTS" benchmarks/data/iceberg-write
