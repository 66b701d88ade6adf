#!/usr/bin/env bash
# Spark's own suites with the plugin on and off:
#   scripts/spark-suites.sh [ci|full|Suite,Suite...] [on,off:failed|off,on]
# (default full; the plugin-off baseline only for suites with a test failing with it on, or
# for every suite). Builds and installs the plugin first; the table goes to stdout and to
# spark-suites/target/suites/report.md, per-test outcomes and write counts beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/venv.sh
mvn -B -q install -DskipTests
mvn -B -q -pl spark-suites test -Dsuites.set="${1:-full}" -Dsuites.modes="${2:-on,off:failed}"
