#!/usr/bin/env bash
# Runs a main class of the Spark plugin's test classpath (local Spark, no Spark install):
#   [SPARK=4.1] [JAVA_OPTS=...] [FIRST_CLASSPATH=jars] [EXTRA_CLASSPATH=jars] scripts/spark-run.sh io.vecruntime.spark.demo.StoreSalesDemo [args...]
# Builds the plugin for that Spark version (scripts/spark-version.sh) if it is not built.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/spark-version.sh
CP=$(test_classpath)
# Jars put first (a library release that shadows the one the plugin was built with) or last.
CP=${FIRST_CLASSPATH:+$FIRST_CLASSPATH:}$CP${EXTRA_CLASSPATH:+:$EXTRA_CLASSPATH}
MAIN=$1; shift
exec java -Xmx${SPARK_DRIVER_MEMORY:-6g} ${JAVA_OPTS:-} $JAVA_SPARK_OPTS -cp "$CP" "$MAIN" "$@"
