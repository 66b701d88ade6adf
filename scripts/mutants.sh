#!/usr/bin/env bash
# Mutation testing of the Rust crates with cargo-mutants (installed on first use):
#   scripts/mutants.sh                  # the lines this branch changed against main, 20 minutes at most
#   scripts/mutants.sh FILE...          # every mutant of these files (e.g. native/parquet/src/encoding/rle.rs)
#   BUDGET=90m scripts/mutants.sh ...   # another time budget (timeout(1) syntax)
#   JOBS=2 scripts/mutants.sh native/kernels/src/nested.rs   # two mutants at a time
# Each mutant is built and the tests of its package run; results land in mutants.out/
# (caught.txt, missed.txt, timeout.txt, unviable.txt). A missed mutant is a change to the code
# that no test notices: kill it with a test, or list it as equivalent in .cargo/mutants.toml
# with the reason. One job at a time by default: a build of vecruntime-parquet uses both cores
# of the CI machine; the kernels crate's builds are small enough for JOBS=2.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=27.1.0
if ! cargo mutants --version 2>/dev/null | grep -q "$VERSION"; then
  cargo install --locked --version "$VERSION" cargo-mutants
fi
BUDGET=${BUDGET:-20m}
args=(--no-shuffle -j "${JOBS:-1}" --output .)
if [ $# -eq 0 ]; then
  base=$(git merge-base HEAD "${BASE:-main}")
  mkdir -p target
  git diff "$base" -- 'native/*.rs' > target/mutants.diff
  if [ ! -s target/mutants.diff ]; then
    echo "no Rust change against ${BASE:-main}: nothing to mutate"
    exit 0
  fi
  args+=(--in-diff target/mutants.diff)
else
  for f in "$@"; do args+=(--file "$f"); done
fi
status=0
timeout "$BUDGET" cargo mutants "${args[@]}" || status=$?
for k in caught missed timeout unviable; do
  printf '%-9s %s\n' "$k" "$(wc -l < "mutants.out/$k.txt" 2>/dev/null || echo 0)"
done
if [ -s mutants.out/missed.txt ]; then
  echo "missed:"
  cat mutants.out/missed.txt
fi
# cargo-mutants exits 2 when a mutant was missed, 3 on a timeout; 124 is the budget running out.
exit $status
