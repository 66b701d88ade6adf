#!/usr/bin/env bash
# Fails loudly when Apache Iceberg publishes a Spark runtime for a Spark line whose plugin jar
# holds no Iceberg support yet (Spark 4.2 and 4.3): such a line's Iceberg writes would keep
# Iceberg's writer, silently. Where Maven Central cannot be reached it says so and passes.
set -euo pipefail
central=${MAVEN_CENTRAL:-https://repo1.maven.org/maven2}
status=0
metadata=$(mktemp)
trap 'rm -f "$metadata"' EXIT
for line in 4.2 4.3; do
  url="$central/org/apache/iceberg/iceberg-spark-runtime-${line}_2.13/maven-metadata.xml"
  code=$(curl -s -o "$metadata" -w '%{http_code}' "$url" || true)
  case "$code" in
    404) echo "Iceberg: no runtime for Spark $line on Maven Central yet" ;;
    200)
      versions=$(sed -n 's:.*<version>\(.*\)</version>.*:\1:p' "$metadata" | tr '\n' ' ')
      echo "Iceberg now publishes iceberg-spark-runtime-${line}_2.13 ($versions): build the plugin's" \
        "Iceberg support for Spark $line (spark-plugin/pom.xml, src/main/iceberg)" >&2
      status=1 ;;
    *) echo "Iceberg: Maven Central not reached ($url: ${code:-no answer}); runtimes not checked" ;;
  esac
done
exit $status
