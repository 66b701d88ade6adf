# Sourced by the scripts that build and run the plugin: the Spark version they use, from
# SPARK=4.2 (the default), 4.1, 4.0 or 3.5 (the Maven profiles spark-X.Y in spark-plugin/pom.xml),
# and for 3.5 its Scala version, SCALA=2.12 (the default, as Spark 3.5's distributions) or 2.13.
SPARK=${SPARK:-4.2}
case "$SPARK" in
  4.2) PLUGIN_TARGET=spark-plugin/target ; SCALA=2.13 ;;
  4.1|4.0) PLUGIN_TARGET=spark-plugin/target/spark-$SPARK ; SCALA=2.13 ;;
  3.5) SCALA=${SCALA:-2.12} ;;
  *) echo "SPARK=$SPARK: the plugin builds for Spark 4.2, 4.1, 4.0 and 3.5" >&2; exit 2 ;;
esac
MVN_PROFILE="-Pspark-$SPARK"
if [ "$SPARK" = 3.5 ]; then
  case "$SCALA" in
    2.12) PLUGIN_TARGET=spark-plugin/target/spark-3.5 ;;
    2.13) PLUGIN_TARGET=spark-plugin/target/spark-3.5_2.13 ; MVN_PROFILE="$MVN_PROFILE,scala-2.13" ;;
    *) echo "SCALA=$SCALA: Spark 3.5 builds for Scala 2.12 and 2.13" >&2; exit 2 ;;
  esac
fi
PLUGIN_JAR=$PLUGIN_TARGET/vecruntime-spark-${SPARK}_${SCALA}-0.1.0.jar
# Builds the plugin jar and its test classpath (a local Spark of that version, from Maven).
build_plugin() {
  mvn -q -B -pl jvm,spark-plugin "$MVN_PROFILE" package dependency:build-classpath -DskipTests \
    -Dmdep.includeScope=test -Dmdep.outputFile="${PLUGIN_TARGET#spark-plugin/}/test-classpath.txt"
}
