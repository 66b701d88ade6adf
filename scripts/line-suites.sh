#!/usr/bin/env bash
# The plugin's ScalaTest suites on one Spark line, its slow tests left out:
#   SPARK=4.3 scripts/line-suites.sh VectorWriteSuite,FallbackSuite,...
# Through Maven and the line's profile; for a line built as another's jar (SPARK_FROM=pyspark,
# scripts/spark-version.sh) on pyspark's distribution of the line's release, with ScalaTest's
# runner: the test classes built for the jar's line, Spark's classes the distribution's.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/spark-version.sh
suites=$(echo "$1" | sed 's/\([^,]*\)/io.vecruntime.spark.\1/g')
if [ "$SPARK_FROM" = maven ]; then
  exec mvn -B -q -pl jvm,spark-plugin "$MVN_PROFILE" package -Dtest=NoSuchTest \
    -Dsurefire.failIfNoSpecifiedTests=false -Dsuites="$suites" \
    -DtagsToExclude=io.vecruntime.spark.Slow
fi
build_plugin
CP=$(test_classpath)
out=spark-plugin/target/spark-$SPARK-$SPARK_FROM
mkdir -p "$out"
args=()
for s in ${suites//,/ }; do args+=(-s "$s"); done
# -oWD: standard output without colours, with durations; -u: JUnit XML per suite; -l: the tag left out.
exec java -Xmx4g $JAVA_SPARK_OPTS -Dvecruntime.build.dir="$out" -cp "$CP" \
  org.scalatest.tools.Runner -R "$PLUGIN_TARGET/test-classes" -oWD -u "$out" \
  -l io.vecruntime.spark.Slow "${args[@]}"
