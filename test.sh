#!/usr/bin/env bash
# Runs every test: Rust unit/integration tests (arrow-rs reads our files), clippy, the JVM tests
# (Maven: JNI bridge, parity with parquet-java 1.17.0) and the cross-engine tests (pyarrow,
# DuckDB, polars read files written by the CLI).
# Installs what it needs: Python packages into .venv, crates through cargo, jars through Maven.
set -euo pipefail
cd "$(dirname "$0")"

echo "== cargo fmt / clippy"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings

echo "== cargo test"
cargo test --workspace

echo "== JVM tests (mvn package: cargo builds libvecruntime into the jar; JUnit vs parquet-java)"
mvn -B -q package

echo "== cross-engine tests (pyarrow, DuckDB, polars)"
cargo build --release -p vecruntime-cli
./scripts/venv.sh
.venv/bin/python -m pytest -q tests
