#!/bin/sh
# Times `custody analyze` as a whole process on generated sets of 50-rule policies (analysis/BENCHMARKS.md).
#   ./mvnw -B -o -q -pl cli -am package -DskipTests
#   analysis/bench/analyze-at-scale.sh [RULES...]        (default: 100 400 2500; plus the examples)
# Writes the sets under ${TMPDIR:-/tmp}/custody-analyze-bench (never into the repository) and prints, per set,
# rules, wall seconds, CPU seconds (user + system, from /usr/bin/time) and the report's summary line.
# Extra options for analyze (e.g. --jobs 1) go in ANALYZE_OPTS.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${TMPDIR:-/tmp}/custody-analyze-bench
sizes=${*:-100 400 2500}
run() {
  label=$1; dir=$2
  # shellcheck disable=SC2086
  /usr/bin/time -f "%e %U %S" -o "$out/time" "$root/cli/target/custody" analyze $ANALYZE_OPTS "$dir" \
    > "$out/report.txt" 2>/dev/null || true
  read -r wall user sys < "$out/time"
  printf '%-10s wall %7.1f s  cpu %7.1f s  %s\n' "$label" "$wall" "$(echo "$user + $sys" | bc)" \
    "$(tail -1 "$out/report.txt")"
}
ANALYZE_OPTS=${ANALYZE_OPTS:-}
mkdir -p "$out"
run examples "$root/examples/policies"
for n in $sizes; do
  rm -rf "$out/$n"
  java "$root/analysis/src/test/java/dev/custody/analysis/RuleSetGenerator.java" "$n" 1 "$out/$n" 2>/dev/null
  run "$n" "$out/$n"
done
