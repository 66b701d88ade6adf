#!/usr/bin/env bash
# Runs every test: Rust unit/integration tests (arrow-rs reads our files), clippy, the JVM tests
# (Maven: JNI bridge, parity with parquet-java 1.17.0, our Spark suites on Spark 4.2 and a smaller
# set on 4.1 and 4.0, and Spark's own suites with the plugin off and on: the CI set of
# scripts/spark-suites.sh) and the Python tests
# (pyarrow, DuckDB, polars read files written by the CLI; a local-cluster Spark).
# Installs what it needs: Python packages into .venv, crates through cargo, jars through Maven.
set -euo pipefail
cd "$(dirname "$0")"

echo "== cargo fmt / clippy"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings

echo "== cargo test"
cargo test --workspace

# pyspark's Spark distribution is the Spark home of the local-cluster tests.
./scripts/venv.sh

echo "== JVM tests (mvn package: cargo builds libvecruntime into the jar; JUnit vs parquet-java)"
mvn -B -q package
# Who wrote each Parquet write of our Spark suites: native, or Spark's writer and why.
cat spark-plugin/target/census.md

# The plugin built for the older Spark lines (their profiles and shims), each on a local Spark of
# that release: the suites of its shims' concerns (types, rebase settings, the streaming sink).
for version in 4.1 4.0; do
  echo "== Spark $version: the plugin's suites"
  suites=io.vecruntime.spark.VectorWriteSuite,io.vecruntime.spark.FallbackSuite
  if [ "$version" = 4.0 ]; then
    suites=$suites,io.vecruntime.spark.RebaseWriteSuite,io.vecruntime.spark.WritePathsSuite
  fi
  mvn -B -q -pl jvm,spark-plugin -Pspark-$version package -Dtest=NoSuchTest \
    -Dsurefire.failIfNoSpecifiedTests=false -Dsuites=$suites
done

echo "== cross-engine tests (pyarrow, DuckDB, polars) and local-cluster Spark"
cargo build --release -p vecruntime-cli
.venv/bin/python -m pytest -q tests
