# Sourced by the scripts that build and run the plugin: the Spark version they use, from
# SPARK=4.2 (the default), 4.1 or 4.0 (the Maven profiles spark-X.Y in spark-plugin/pom.xml).
SPARK=${SPARK:-4.2}
case "$SPARK" in
  4.2) PLUGIN_TARGET=spark-plugin/target ;;
  4.1|4.0) PLUGIN_TARGET=spark-plugin/target/spark-$SPARK ;;
  *) echo "SPARK=$SPARK: the plugin builds for Spark 4.2, 4.1 and 4.0" >&2; exit 2 ;;
esac
MVN_PROFILE="-Pspark-$SPARK"
PLUGIN_JAR=$PLUGIN_TARGET/vecruntime-spark-${SPARK}_2.13-0.1.0.jar
# Builds the plugin jar and its test classpath (a local Spark of that version, from Maven).
build_plugin() {
  mvn -q -B -pl jvm,spark-plugin "$MVN_PROFILE" package dependency:build-classpath -DskipTests \
    -Dmdep.includeScope=test -Dmdep.outputFile="${PLUGIN_TARGET#spark-plugin/}/test-classpath.txt"
}
