#!/usr/bin/env bash
# The plugin jar of a Spark line in pyspark's own distribution of that release (from PyPI):
#   [SPARK=4.3|4.1|4.0|3.5] scripts/pyspark-check.sh
# Spark 4.2 uses .venv (scripts/venv.sh); another line gets .venv-spark-X.Y with its pyspark.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/spark-version.sh
if [ "$SCALA" != 2.12 ] && [ "$SPARK" = 3.5 ]; then
  echo "pyspark 3.5 is a Scala 2.12 distribution: SCALA=2.12" >&2; exit 2
fi
[ -f "$PLUGIN_JAR" ] || build_plugin >/dev/null
"$(line_python)" scripts/pyspark_check.py "$PLUGIN_JAR"
