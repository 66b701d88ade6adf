#!/usr/bin/env bash
# Creates .venv with the Python packages the tests, demo and benchmarks use (from PyPI).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -c "import pyarrow, duckdb, polars, pytest, pytz, duckdb_extension_tpcds" 2>/dev/null || \
  .venv/bin/pip install -q pyarrow polars pytest pytz duckdb==1.5.5 duckdb-extension-tpcds==1.5.5
