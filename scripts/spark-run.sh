#!/usr/bin/env bash
# Runs a main class of the Spark plugin's test classpath (local Spark, no Spark install):
#   scripts/spark-run.sh io.vecruntime.spark.demo.StoreSalesDemo [args...]
# Expects `mvn package` to have run; the classpath comes from Maven.
set -euo pipefail
cd "$(dirname "$0")/.."
CP_FILE=spark-plugin/target/test-classpath.txt
if [ ! -s "$CP_FILE" ]; then
  mvn -q -B -pl jvm,spark-plugin package dependency:build-classpath -DskipTests \
    -Dmdep.includeScope=test -Dmdep.outputFile=target/test-classpath.txt >/dev/null
fi
OPENS="-XX:+IgnoreUnrecognizedVMOptions --add-modules=jdk.incubator.vector"
for p in java.lang java.lang.invoke java.lang.reflect java.io java.net java.nio java.util \
         java.util.concurrent java.util.concurrent.atomic jdk.internal.ref sun.nio.ch sun.nio.cs \
         sun.security.action sun.util.calendar; do
  OPENS="$OPENS --add-opens=java.base/$p=ALL-UNNAMED"
done
MAIN=$1; shift
exec java -Xmx${SPARK_DRIVER_MEMORY:-6g} $OPENS -Djdk.reflect.useDirectMethodHandle=false \
  -Dio.netty.tryReflectionSetAccessible=true \
  -cp "spark-plugin/target/vecruntime-spark-0.1.0.jar:spark-plugin/target/test-classes:$(cat "$CP_FILE")" \
  "$MAIN" "$@"
