#!/usr/bin/env bash
# Builds everything and runs the demo: TPC-DS store_sales (dsdgen, scale factor 1) written by
# vecruntime and by arrow-rs, with times, sizes and a row-by-row comparison read by pyarrow.
set -euo pipefail
cd "$(dirname "$0")"
cargo build --release -p vecruntime-cli
./scripts/venv.sh
.venv/bin/python benchmarks/tpcds.py
.venv/bin/python scripts/demo.py
