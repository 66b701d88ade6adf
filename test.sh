#!/usr/bin/env bash
# Runs every test: Rust unit/integration tests (arrow-rs reads our files), clippy, and the
# cross-engine tests (pyarrow, DuckDB, polars read files written by the CLI).
# Installs what it needs: Python packages into .venv, crates through cargo.
set -euo pipefail
cd "$(dirname "$0")"

echo "== cargo fmt / clippy"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings

echo "== cargo test"
cargo test --workspace

echo "== cross-engine tests (pyarrow, DuckDB, polars)"
cargo build --release -p vecruntime-cli
./scripts/venv.sh
.venv/bin/python -m pytest -q tests
