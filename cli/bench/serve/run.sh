#!/bin/sh
# custody serve load benchmark (outside verify): starts the packaged jar's server on 127.0.0.1, warms it up, then
# measures with wrk at 32 connections, one action per request; then the engine alone (`custody bench`) on the same
# policies and actions, so the HTTP overhead is visible. Needs cli/target/custody.jar and wrk (Debian: apt-get
# install wrk). Usage, from the repository root:
#   cli/bench/serve/run.sh POLICIES ACTIONS [PORT] [DURATION]
#   cli/bench/serve/run.sh examples/policies examples/actions/stream.jsonl
#   cli/bench/serve/run.sh cli/bench/serve/twenty-rules.yaml /tmp/withdrawals.jsonl
set -eu
POLICIES=$1
ACTIONS=$2
PORT=${3:-18181}
DURATION=${4:-20s}
HERE=$(dirname "$0")
JAR=cli/target/custody.jar
java -jar "$JAR" serve --policies "$POLICIES" --addr "127.0.0.1:$PORT" 2>/tmp/custody-serve-bench.err &
SERVER=$!
trap 'kill -TERM $SERVER 2>/dev/null; wait $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$PORT/ready" >/dev/null 2>&1 && break
  sleep 0.1
done
# the server's CPU time (user + system, in clock ticks) so far
cpu() { awk '{print $14 + $15}' "/proc/$SERVER/stat"; }
TICK=$(getconf CLK_TCK)
# one measured wrk run: its output, then the server's CPU time per request it answered
measure() {
  before=$(cpu)
  wrk -t1 -c32 -d"$DURATION" --latency -s "$HERE/decisions.lua" "$@" > /tmp/custody-serve-bench.wrk
  after=$(cpu)
  grep -vE '^ +[0-9.]+%|Latency Distribution|Thread Stats|Latency  |Req/Sec|Transfer/sec' /tmp/custody-serve-bench.wrk
  awk -v d=$((after - before)) -v t="$TICK" '/^requests [0-9]+ in/ {printf "server CPU: %.1f s, %.1f us per request\n", d / t, d / t * 1e6 / $2}' /tmp/custody-serve-bench.wrk
}
echo "== warm-up (10s, not counted)"
wrk -t1 -c32 -d10s -s "$HERE/decisions.lua" "http://127.0.0.1:$PORT/v1/decisions" -- "$ACTIONS" >/dev/null
echo "== wrk -t1 -c32 -d$DURATION, one action per POST /v1/decisions; load: $(cut -d' ' -f1-3 /proc/loadavg)"
measure "http://127.0.0.1:$PORT/v1/decisions" -- "$ACTIONS"
echo "== wrk -t1 -c32 -d$DURATION, 20 actions per POST /v1/decisions/batch; load: $(cut -d' ' -f1-3 /proc/loadavg)"
measure "http://127.0.0.1:$PORT/v1/decisions/batch" -- "$ACTIONS" 20
curl -s "http://127.0.0.1:$PORT/metrics" | grep -E '^custody_decisions_total\{.*\} [1-9]|^custody_decision_duration_seconds_(count|sum)'
echo "== the engine alone: custody bench; load: $(cut -d' ' -f1-3 /proc/loadavg)"
java -jar "$JAR" bench --policies "$POLICIES" --actions "$ACTIONS" --warmup 5s --duration 10s
