#!/usr/bin/env bash
# Runs a main class of the Spark plugin's test classpath (local Spark, no Spark install):
#   [SPARK=4.1] [JAVA_OPTS=...] scripts/spark-run.sh io.vecruntime.spark.demo.StoreSalesDemo [args...]
# Builds the plugin for that Spark version (scripts/spark-version.sh) if it is not built.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/spark-version.sh
CP_FILE=$PLUGIN_TARGET/test-classpath.txt
if [ ! -s "$CP_FILE" ] || [ ! -f "$PLUGIN_JAR" ]; then
  build_plugin >/dev/null
fi
OPENS="-XX:+IgnoreUnrecognizedVMOptions --add-modules=jdk.incubator.vector"
for p in java.lang java.lang.invoke java.lang.reflect java.io java.net java.nio java.util \
         java.util.concurrent java.util.concurrent.atomic jdk.internal.ref sun.nio.ch sun.nio.cs \
         sun.security.action sun.util.calendar; do
  OPENS="$OPENS --add-opens=java.base/$p=ALL-UNNAMED"
done
MAIN=$1; shift
exec java -Xmx${SPARK_DRIVER_MEMORY:-6g} ${JAVA_OPTS:-} $OPENS -Djdk.reflect.useDirectMethodHandle=false \
  -Dio.netty.tryReflectionSetAccessible=true \
  -cp "$PLUGIN_JAR:$PLUGIN_TARGET/test-classes:$(cat "$CP_FILE")" \
  "$MAIN" "$@"
