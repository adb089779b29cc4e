#!/bin/sh
# The collector matrix (engine-core/BENCHMARKS.md, "Every collector, Java 17 and 25"): bench.CollectorRun in separate
# JVMs, the engine (PolicyEngine.evaluate) and the hand-written Java alternating, JVMS pairs per cell, then JVMS JVMs
# running both in alternating passes (the ratio per JVM, which load on the other core cannot skew), for each of
# Serial, Parallel, G1 and ZGC on each Java given, on WORKLOAD (realistic: the Realistic bundle over 768 actions, the
# default; stream: the example policies over the 20,000 pre-read actions of /tmp/stream-20k.jsonl). Prints one line per JVM, then per cell the min-max of each
# engine's median pass (ns per decision), the worst engine / hand-written ratio over the pairs, and each engine's
# G1 / Serial ratio (of the medians over the JVMs).
#
#   ./mvnw -B -pl engine-schema,engine-core -Pbench -DskipTests test-compile
#   ./mvnw -B -q -pl engine-core -Pbench dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt -Dmdep.includeScope=test
#   java -cp examples/target/classes dev.custody.examples.ActionStreamGenerator --count 20000 --out /tmp/stream-20k.jsonl
#   sh engine-core/bench/collector-matrix.sh [JVMS] [WORKLOAD] [JAVA_HOME...]
# (default 5 JVMs each, workload realistic; Java: the java on the PATH and /usr/lib/jvm/temurin-25-jdk-amd64.)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
jvms=${1:-5}
[ $# -gt 0 ] && shift
workload=${1:-realistic}
[ $# -gt 0 ] && shift
case $workload in realistic) passes=200 ;; *) passes=10 ;; esac
homes=${*:-"$(dirname "$(dirname "$(readlink -f "$(command -v java)")")") /usr/lib/jvm/temurin-25-jdk-amd64"}
cp="$root/engine-core/target/test-classes:$root/engine-core/target/classes:$root/engine-schema/target/classes:$(cat /tmp/cp.txt)"
out=$(mktemp)
trap 'rm -f "$out" "$out.both"' EXIT
for home in $homes; do
  v=$("$home/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
  for gc in Serial Parallel G1 Z; do
    i=0
    while [ "$i" -lt "$jvms" ]; do
      for e in engine hand; do
        line=$("$home/bin/java" -Xmx2g -XX:+Use${gc}GC -cp "$cp" -Dworkload.actions=/tmp/stream-20k.jsonl \
          -Dworkload.policies="$root/examples/policies" dev.custody.engine.bench.CollectorRun "$workload" "$e" 4 "$passes" 2>/dev/null)
        echo "java=$v gc=$gc $line" | tee -a "$out"
      done
      i=$((i + 1))
    done
    i=0
    while [ "$i" -lt "$jvms" ]; do
      line=$("$home/bin/java" -Xmx2g -XX:+Use${gc}GC -cp "$cp" -Dworkload.actions=/tmp/stream-20k.jsonl \
        -Dworkload.policies="$root/examples/policies" dev.custody.engine.bench.CollectorRun "$workload" both 4 "$passes" 2>/dev/null)
      echo "java=$v gc=$gc $line" | tee -a "$out.both"
      i=$((i + 1))
    done
  done
done
echo
awk '
  { split($1, a, "="); v = a[2]; split($2, b, "="); gc = b[2]; e = $4
    for (i = 4; i <= NF; i++) if ($i ~ /^median=/) { split($i, m, "="); ns = m[2] }
    key = v " " gc; n[key, e]++; x[key, e, n[key, e]] = ns
    if (!(key in seen)) { seen[key] = 1; order[++k] = key } }
  function med(key, e,   c, i, j, t, s) {
    c = n[key, e]; for (i = 1; i <= c; i++) s[i] = x[key, e, i]
    for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (s[j] < s[i]) { t = s[i]; s[i] = s[j]; s[j] = t }
    return (c % 2) ? s[(c + 1) / 2] : (s[c / 2] + s[c / 2 + 1]) / 2 }
  function lo(key, e,   i, r) { r = 1e18; for (i = 1; i <= n[key, e]; i++) if (x[key, e, i] < r) r = x[key, e, i]; return r }
  function hi(key, e,   i, r) { r = 0; for (i = 1; i <= n[key, e]; i++) if (x[key, e, i] > r) r = x[key, e, i]; return r }
  END {
    printf "%-10s %-9s %5s %17s %17s %12s %12s\n", "java", "collector", "JVMs", "engine ns", "hand-written ns", "worst pair", "median ratio"
    for (j = 1; j <= k; j++) { key = order[j]; split(key, p, " "); w = 0
      for (i = 1; i <= n[key, "engine"] && i <= n[key, "hand"]; i++) { r = x[key, "engine", i] / x[key, "hand", i]; if (r > w) w = r }
      printf "%-10s %-9s %5d %8d-%-8d %8d-%-8d %12.2f %12.2f\n", p[1], p[2], n[key, "engine"], lo(key, "engine"), hi(key, "engine"),
        lo(key, "hand"), hi(key, "hand"), w, med(key, "engine") / med(key, "hand") }
    print ""
    for (j = 1; j <= k; j++) { key = order[j]; split(key, p, " ")
      if (p[2] == "G1" && ((p[1] " Serial") in seen)) { s = p[1] " Serial"
        printf "java %s, G1 / Serial (medians): engine %.2f, hand-written %.2f\n", p[1], med(key, "engine") / med(s, "engine"), med(key, "hand") / med(s, "hand") } }
  }' "$out"
echo
awk '
  { split($1, a, "="); split($2, b, "="); key = a[2] " " b[2]
    for (i = 4; i <= NF; i++) { split($i, f, "="); if (f[1] == "ratio") r = f[2]; if (f[1] == "engine") e = f[2]; if (f[1] == "hand") h = f[2] }
    if (!(key in lo)) { lo[key] = r; hi[key] = r; order[++k] = key; elo[key] = e; ehi[key] = e; hlo[key] = h; hhi[key] = h }
    if (r < lo[key]) lo[key] = r; if (r > hi[key]) hi[key] = r
    if (e < elo[key]) elo[key] = e; if (e > ehi[key]) ehi[key] = e; if (h < hlo[key]) hlo[key] = h; if (h > hhi[key]) hhi[key] = h; n[key]++ }
  END {
    print "both engines in each JVM, alternating passes: engine / hand-written per JVM"
    printf "%-10s %-9s %5s %17s %17s %14s\n", "java", "collector", "JVMs", "engine ns", "hand-written ns", "ratio per JVM"
    for (j = 1; j <= k; j++) { key = order[j]; split(key, p, " ")
      printf "%-10s %-9s %5d %8d-%-8d %8d-%-8d %6.2f-%-6.2f\n", p[1], p[2], n[key], elo[key], ehi[key], hlo[key], hhi[key], lo[key], hi[key] } }' "$out.both"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
