#!/usr/bin/env bash
# Mutation testing of jvm/ with PIT (pitest-maven and its JUnit 5 plugin, from Maven Central):
#   scripts/pit.sh      # RowBatch, WriterOptions, NativeBuffer, VectorBuffers, ColumnBuffers
# The classes and tests are set in jvm/pom.xml's `pit` profile. The report lands in
# jvm/target/pit-reports/ (index.html, mutations.csv); a SURVIVED line is a change to the code
# that no test noticed. Two threads: the two cores of the CI machine.
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q -pl jvm -Ppit test-compile org.pitest:pitest-maven:mutationCoverage "$@"
csv=jvm/target/pit-reports/mutations.csv
for k in KILLED SURVIVED TIMED_OUT NO_COVERAGE MEMORY_ERROR RUN_ERROR; do
  printf '%-12s %s\n' "$k" "$(grep -c ",$k," "$csv" || true)"
done
if grep -q ",SURVIVED,\|,NO_COVERAGE," "$csv"; then
  echo "survived or not covered:"
  grep ",SURVIVED,\|,NO_COVERAGE," "$csv" | cut -d, -f2-6
fi
