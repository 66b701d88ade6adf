#!/usr/bin/env bash
# Creates .venv with the Python packages the tests, demo and benchmarks use (from PyPI). pyspark
# is the Spark release the plugin builds against (spark.version in spark-plugin/pom.xml): its
# distribution is the Spark home of the local-cluster test.
set -euo pipefail
cd "$(dirname "$0")/.."
spark=$(sed -n 's:.*<spark.version>\(.*\)</spark.version>.*:\1:p' spark-plugin/pom.xml | head -1)
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -c "import pyarrow, duckdb, polars, pytest, pytz, duckdb_extension_tpcds, deltalake, pyiceberg" 2>/dev/null || \
  .venv/bin/pip install -q pyarrow polars pytest pytz duckdb==1.5.5 duckdb-extension-tpcds==1.5.5 \
    deltalake==1.6.6 pyiceberg==0.12.0
.venv/bin/python -c "import pyspark, sys; sys.exit(pyspark.__version__ != '$spark')" 2>/dev/null || \
  .venv/bin/pip install -q "pyspark==$spark"
