#!/bin/sh
# Cold start of `custody validate` on one condition and `custody lint` of one policy file, against a bare JVM
# starting picocli from the same jar (picocli.AutoComplete --help: picocli parses and prints usage, nothing of ours
# is loaded). The starts alternate, ROUNDS times (default 20), so that load from other processes hits them alike;
# prints the median and the fastest wall time of each, in ms, and the ratios of the medians to the bare start.
# The Java is $JAVA_HOME's when set (as the launcher's): on Java 25 the launcher starts from its ahead-of-time cache,
# which its first run makes in the background (this script makes it first and waits for it).
#
#   ./mvnw -B -pl cli -am -DskipTests package && sh cli/src/bench/cold-start.sh [ROUNDS]
#   JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 sh cli/src/bench/cold-start.sh [ROUNDS]
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
jar="$here/target/custody.jar"
launcher="$here/target/custody"
rounds=${1:-20}
[ -f "$jar" ] || { echo "cold-start: $jar is missing: build the cli module first" >&2; exit 2; }
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
policy="$here/../examples/policies/treasury-limits.yaml"
tmp=$(mktemp -d)
"$launcher" validate --action withdrawal.create --effect DENY 'true' >/dev/null 2>&1 || true
w=0 # the launcher's ahead-of-time cache (Java 25), made in the background by its first run
while [ -d "$here/target/.custody-aot-training" ] && [ "$w" -lt 120 ]; do sleep 1; w=$((w + 1)); done
trap 'rm -rf "$tmp"' EXIT
ms() { # wall time of a command, in ms
  s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N); echo $(( (e - s) / 1000000 ))
}
i=0
while [ "$i" -lt "$rounds" ]; do
  ms "$java" -cp "$jar" picocli.AutoComplete --help >>"$tmp/bare"
  ms "$launcher" validate --action withdrawal.create --effect DENY 'withdrawal.value_usd > 10000.0' >>"$tmp/launcher"
  ms "$launcher" lint "$policy" >>"$tmp/lint"
  ms "$java" -jar "$jar" validate --action withdrawal.create --effect DENY 'withdrawal.value_usd > 10000.0' >>"$tmp/jar"
  i=$((i + 1))
done
median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }
fastest() { sort -n "$1" | head -1; }
b=$(median "$tmp/bare")
printf '%-36s %8s %8s %6s\n' start "median" fastest ratio
for k in bare launcher lint jar; do
  m=$(median "$tmp/$k")
  case $k in
    bare) name="bare JVM + picocli (AutoComplete)";;
    launcher) name="cli/target/custody validate";;
    lint) name="cli/target/custody lint (one file)";;
    jar) name="java -jar custody.jar validate";;
  esac
  printf '%-36s %8s %8s %6s\n' "$name" "$m" "$(fastest "$tmp/$k")" "$(awk -v m="$m" -v b="$b" 'BEGIN {printf "%.2f", m / b}')"
done
echo "java: $("$java" -version 2>&1 | head -1), rounds: $rounds, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
