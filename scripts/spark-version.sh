# Sourced by the scripts that build and run the plugin: the Spark version they use, from
# SPARK=4.2 (the default), 4.3, 4.1, 4.0 or 3.5 (the Maven profiles spark-X.Y in
# spark-plugin/pom.xml), and for 3.5 its Scala version, SCALA=2.12 (the default, as Spark 3.5's
# distributions) or 2.13.
SPARK=${SPARK:-4.2}
case "$SPARK" in
  4.2) PLUGIN_TARGET=spark-plugin/target ; SCALA=2.13 ;;
  4.3|4.1|4.0) PLUGIN_TARGET=spark-plugin/target/spark-$SPARK ; SCALA=2.13 ;;
  3.5) SCALA=${SCALA:-2.12} ;;
  *) echo "SPARK=$SPARK: the plugin builds for Spark 4.3, 4.2, 4.1, 4.0 and 3.5" >&2; exit 2 ;;
esac
MVN_PROFILE="-Pspark-$SPARK"
if [ "$SPARK" = 3.5 ]; then
  case "$SCALA" in
    2.12) PLUGIN_TARGET=spark-plugin/target/spark-3.5 ;;
    2.13) PLUGIN_TARGET=spark-plugin/target/spark-3.5_2.13 ; MVN_PROFILE="$MVN_PROFILE,scala-2.13" ;;
    *) echo "SCALA=$SCALA: Spark 3.5 builds for Scala 2.12 and 2.13" >&2; exit 2 ;;
  esac
fi
# The Spark release of a line's profile (its spark.version).
spark_release() {
  awk -v id="<id>spark-$1</id>" 'index($0, id) { on = 1 }
    on && /<spark.version>/ { gsub(/.*<spark.version>|<\/spark.version>.*/, ""); print; exit }' \
    spark-plugin/pom.xml
}
SPARK_RELEASE=$(spark_release "$SPARK")
# Spark 4.3's jars are on Maven Central, but a build against them needs their parent POM,
# which not every Maven repository serves. Where it does not resolve, the 4.2 jar is the 4.3
# jar (Spark 4.3 keeps every API the plugin uses) and its tests run on pyspark 4.3's own
# distribution, the Spark a new user installs, instead of Maven's (SPARK_FROM=pyspark).
SPARK_FROM=maven
JAR_LINE=$SPARK
if [ "$SPARK" = 4.3 ]; then
  parent=org.apache.spark:spark-parent_$SCALA:$SPARK_RELEASE:pom
  if ! mvn -q -B dependency:get -Dartifact="$parent" -Dtransitive=false >/dev/null 2>&1; then
    echo "Spark $SPARK_RELEASE: Maven cannot resolve $parent, so the spark-4.3 profile cannot" \
      "build; the 4.2 jar is the 4.3 jar, tested on pyspark $SPARK_RELEASE's distribution" >&2
    SPARK_FROM=pyspark
    JAR_LINE=4.2
    PLUGIN_TARGET=spark-plugin/target
    MVN_PROFILE=-Pspark-4.2
  fi
fi
PLUGIN_JAR=$PLUGIN_TARGET/vecruntime-spark-${JAR_LINE}_${SCALA}-0.1.0.jar
# Builds the plugin jar and its test classpath (a local Spark of that version, from Maven).
build_plugin() {
  mvn -q -B -pl jvm,spark-plugin "$MVN_PROFILE" package dependency:build-classpath -DskipTests \
    -Dmdep.includeScope=test -Dmdep.outputFile="${PLUGIN_TARGET#spark-plugin/}/test-classpath.txt"
}
# The Python of a line's venv, with pyspark of the line's release: .venv for 4.2
# (scripts/venv.sh), .venv-spark-X.Y for the others. Its pyspark package is a Spark distribution.
line_python() {
  if [ "$SPARK" = 4.2 ]; then
    ./scripts/venv.sh >&2
    echo .venv/bin/python
    return
  fi
  local venv=.venv-spark-$SPARK
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/python" -c "import pyspark, sys; sys.exit(pyspark.__version__ != '$SPARK_RELEASE')" \
    2>/dev/null || "$venv/bin/pip" install -q "pyspark==$SPARK_RELEASE" pyarrow pytest >&2
  echo "$venv/bin/python"
}
# The class path of the plugin's test classes on the line's Spark: Maven's, or with
# SPARK_FROM=pyspark the jars of pyspark's distribution and ScalaTest's from Maven's.
test_classpath() {
  local cp_file=$PLUGIN_TARGET/test-classpath.txt
  if [ ! -s "$cp_file" ] || [ ! -f "$PLUGIN_JAR" ]; then
    build_plugin >/dev/null
  fi
  if [ "$SPARK_FROM" = pyspark ]; then
    local home
    home=$("$(line_python)" -c "import os, pyspark; print(os.path.dirname(pyspark.__file__))")
    echo "$PLUGIN_JAR:$PLUGIN_TARGET/test-classes:$home/jars/*:$(tr ':' '\n' < "$cp_file" |
      grep -E '/org/(scalatest|scalactic)/' | paste -sd:)"
  else
    echo "$PLUGIN_JAR:$PLUGIN_TARGET/test-classes:$(cat "$cp_file")"
  fi
}
# The JVM options Spark's tests and launches need on Java 17.
JAVA_SPARK_OPTS="-XX:+IgnoreUnrecognizedVMOptions --add-modules=jdk.incubator.vector"
for p in java.lang java.lang.invoke java.lang.reflect java.io java.net java.nio java.util \
         java.util.concurrent java.util.concurrent.atomic jdk.internal.ref sun.nio.ch sun.nio.cs \
         sun.security.action sun.util.calendar; do
  JAVA_SPARK_OPTS="$JAVA_SPARK_OPTS --add-opens=java.base/$p=ALL-UNNAMED"
done
JAVA_SPARK_OPTS="$JAVA_SPARK_OPTS -Djdk.reflect.useDirectMethodHandle=false"
JAVA_SPARK_OPTS="$JAVA_SPARK_OPTS -Dio.netty.tryReflectionSetAccessible=true"
