#!/bin/sh
# custody serve: the cost of the decision log's durable mode against async (and no log), outside verify. For each
# mode: start the packaged jar's server on 127.0.0.1 with a fresh log in a temporary directory, warm up 5 s, measure
# `wrk -t1 -c32 -d10s` POSTing one withdrawal per request (decisions.lua, cycling through the stream's withdrawals),
# read the decision, drop, failure and sync counts from /metrics (decisions per sync: the group commit's mean
# batch), then stop it and count the log's lines. Needs cli/target/custody.jar and wrk. From the repository root:
#   cli/bench/serve/log-modes.sh [POLICIES] [ACTIONS] [PORT]
set -eu
POLICIES=${1:-examples/policies}
ACTIONS=${2:-examples/actions/stream.jsonl}
PORT=${3:-18182}
HERE=$(dirname "$0")
JAR=cli/target/custody.jar
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
grep withdrawal.create "$ACTIONS" | grep -v '"event"' > "$WORK/withdrawals.jsonl"
for MODE in none async durable; do
  if [ "$MODE" = none ]; then LOG=""; else LOG="--decision-log $WORK/$MODE.jsonl --decision-log-mode $MODE"; fi
  # shellcheck disable=SC2086
  java -jar "$JAR" serve --policies "$POLICIES" --addr "127.0.0.1:$PORT" $LOG 2>"$WORK/$MODE.err" &
  SERVER=$!
  for _ in $(seq 1 100); do
    curl -sf "http://127.0.0.1:$PORT/ready" >/dev/null 2>&1 && break
    sleep 0.1
  done
  wrk -t1 -c32 -d5s -s "$HERE/decisions.lua" "http://127.0.0.1:$PORT/v1/decisions" -- "$WORK/withdrawals.jsonl" >/dev/null
  echo "== log: $MODE; wrk -t1 -c32 -d10s; load: $(cut -d' ' -f1-3 /proc/loadavg)"
  wrk -t1 -c32 -d10s --latency -s "$HERE/decisions.lua" "http://127.0.0.1:$PORT/v1/decisions" -- "$WORK/withdrawals.jsonl" \
    | grep -E '^requests|^p[0-9]|^errors'
  curl -s "http://127.0.0.1:$PORT/metrics" | awk '
    /^custody_decisions_total\{/ { decisions += $NF }
    /^custody_decision_log_(dropped|failed|syncs)_total/ { sub(/_total.*/, "", $1); v[$1] = $NF }
    END { printf "decisions (warm-up included): %d", decisions
          for (k in v) printf ", %s %d", substr(k, 21), v[k]
          if (v["custody_decision_log_syncs"] > 0) printf ", %.1f decisions per sync", decisions / v["custody_decision_log_syncs"]
          print "" }'
  kill -TERM $SERVER
  wait $SERVER || true
  if [ "$MODE" != none ]; then
    echo "log lines (warm-up included): $(cat "$WORK/$MODE.jsonl"* | wc -l)"
  fi
done
