#!/usr/bin/env bash
# Runs every test: Rust unit and integration tests (arrow-rs reads our files), clippy, the JVM
# tests (Maven: JNI bridge, parity with parquet-java 1.17.0, our Spark suites on Spark 4.2 and a
# smaller set on 4.3 (pyspark's distribution), 4.1, 4.0 and 3.5, and Spark's own suites with
# the plugin on, and off where a test fails: the CI set of scripts/spark-suites.sh) and the
# Python tests (pyarrow, DuckDB, polars read files written by the CLI; a local-cluster Spark).
# `./test.sh quick` is the edit loop's few minutes (below).
# Installs what it needs: Python packages into .venv, crates through cargo, jars through Maven.
set -euo pipefail
cd "$(dirname "$0")"
# Minutes so far, after each part: the suite must stay within 45 minutes on 2 cores.
elapsed() { echo "-- $((SECONDS / 60)) min $((SECONDS % 60)) s"; }

# `./test.sh quick`, the edit loop (a few minutes): fmt, clippy, cargo test, then the JVM unit
# tests (JNI bridge, parity with parquet-java) and VectorWriteSuite on Spark 4.2.
if [ "${1:-}" = quick ]; then
  cargo fmt --all -- --check
  cargo clippy --workspace --all-targets -- -D warnings
  cargo test --workspace
  elapsed
  mvn -B -q -pl jvm,spark-plugin package -Dsuites=io.vecruntime.spark.VectorWriteSuite
  elapsed
  exit 0
elif [ $# -gt 0 ]; then
  echo "usage: ./test.sh [quick]" >&2
  exit 2
fi

echo "== cargo fmt / clippy"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
elapsed

echo "== cargo test"
cargo test --workspace
elapsed

# pyspark's Spark distribution is the Spark home of the local-cluster tests.
./scripts/venv.sh

echo "== JVM tests (mvn package: cargo builds libvecruntime into the jar; JUnit vs parquet-java)"
mvn -B -q package
# Who wrote each Parquet write of our Spark suites: native, or Spark's writer and why.
cat spark-plugin/target/census.md
elapsed

# The plugin built for the older Spark lines (their profiles and shims), each on a local Spark of
# that release: VectorWriteSuite, FallbackSuite and RowSplittingSuite, DeltaWriteSuite with the
# line's Delta release and IcebergWriteSuite with its Iceberg release (1.12 on 4.1, whole; 1.10
# on 4.0 and 3.5, the tests of every line); on 4.1 also VariantWriteSuite; on 3.5 also the suites
# of its own shim folders (the rebase settings, the streaming sink, the partitioned task write's
# errors); slow tests left to 4.2; Spark 3.5 for Scala 2.13 as well, without Delta and Iceberg.
# A Spark line Iceberg now publishes a runtime for, but whose jar holds no Iceberg support.
scripts/iceberg-runtimes.sh
for line in 4.1 4.0 3.5 3.5,scala-2.13; do
  echo "== Spark $line: the plugin's suites"
  suites=io.vecruntime.spark.VectorWriteSuite,io.vecruntime.spark.FallbackSuite
  # Each line's own bucket id expressions against the native split.
  suites=$suites,io.vecruntime.spark.RowSplittingSuite,io.vecruntime.spark.DeltaWriteSuite
  suites=$suites,io.vecruntime.spark.IcebergWriteSuite
  exclude=io.vecruntime.spark.Slow,io.vecruntime.spark.DeltaMainLine,io.vecruntime.spark.IcebergMainLine
  case "$line" in
    4.1) suites=$suites,io.vecruntime.spark.VariantWriteSuite
      exclude=io.vecruntime.spark.Slow,io.vecruntime.spark.DeltaMainLine ;;
    3.5) suites=$suites,io.vecruntime.spark.RebaseWriteSuite,io.vecruntime.spark.WritePathsSuite
      suites=$suites,io.vecruntime.spark.PartitionedWriteSuite ;;
    3.5,scala-2.13) suites=io.vecruntime.spark.FallbackSuite,io.vecruntime.spark.RebaseWriteSuite
      suites=$suites,io.vecruntime.spark.RowSplittingSuite ;;
  esac
  mvn -B -q -pl jvm,spark-plugin -Pspark-$line package -Dtest=NoSuchTest \
    -Dsurefire.failIfNoSpecifiedTests=false -Dsuites=$suites \
    -DtagsToExclude=$exclude
  elapsed
done

# Spark 4.3: the 4.2 jar on pyspark 4.3's own distribution where Maven cannot build its profile
# (scripts/spark-version.sh says why): the suites of each kind of write, Spark's reader of
# DELTA_BINARY_PACKED pages (ChunkParitySuite), and a local-cluster write.
echo "== Spark 4.3: the plugin's suites"
suites=VectorWriteSuite,FallbackSuite,RowSplittingSuite,RebaseWriteSuite,WritePathsSuite
suites=$suites,PartitionedWriteSuite,NestedWriteSuite,VariantWriteSuite,GeospatialWriteSuite
suites=$suites,HiveWritePathsSuite,ChunkParitySuite
SPARK=4.3 scripts/line-suites.sh $suites
( SPARK=4.3; . scripts/spark-version.sh; "$(line_python)" -m pytest -q tests/test_local_cluster.py )
elapsed

echo "== cross-engine tests (pyarrow, DuckDB, polars) and local-cluster Spark"
# The debug CLI: its crates are mostly built by cargo test already, and the files are small.
cargo build -p vecruntime-cli
VECRUNTIME_CLI=target/debug/vecruntime .venv/bin/python -m pytest -q tests
elapsed
