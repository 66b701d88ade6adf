#!/usr/bin/env bash
# The plugin jar of a Spark line in pyspark's own distribution of that release (from PyPI):
#   [SPARK=4.1|4.0|3.5] scripts/pyspark-check.sh
# Spark 4.2 uses .venv (scripts/venv.sh); another line gets .venv-spark-X.Y with its pyspark.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/spark-version.sh
if [ "$SCALA" != 2.12 ] && [ "$SPARK" = 3.5 ]; then
  echo "pyspark 3.5 is a Scala 2.12 distribution: SCALA=2.12" >&2; exit 2
fi
[ -f "$PLUGIN_JAR" ] || build_plugin >/dev/null
# The release the profile builds against (spark.version in its profile).
version=$(awk -v id="<id>spark-$SPARK</id>" 'index($0, id) { on = 1 }
  on && /<spark.version>/ { gsub(/.*<spark.version>|<\/spark.version>.*/, ""); print; exit }' spark-plugin/pom.xml)
if [ "$SPARK" = 4.2 ]; then
  ./scripts/venv.sh
  py=.venv/bin/python
else
  venv=.venv-spark-$SPARK
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/python" -c "import pyspark, sys; sys.exit(pyspark.__version__ != '$version')" 2>/dev/null ||
    "$venv/bin/pip" install -q "pyspark==$version"
  py=$venv/bin/python
fi
"$py" scripts/pyspark_check.py "$PLUGIN_JAR"
