#!/bin/sh
# custody serve --ledger load benchmark (outside verify; cli/BENCHMARKS.md "serve --ledger"): the packaged jar's server
# on 127.0.0.1 under wrk at 32 connections, velocity derived for every withdrawal, every attempt and settlement
# committed (fsync) before its answer; three servers one after the other: no ledger, SQLite, PostgreSQL. Needs
# cli/target/custody.jar, wrk and PostgreSQL (Debian: apt-get install wrk postgresql). From the repository root:
#   cli/bench/serve/ledger-run.sh [DURATION] [WARMUP] [STORES] [EVERY]
# e.g. cli/bench/serve/ledger-run.sh 30s 30s "no-ledger sqlite-full sqlite-normal postgresql"
set -eu
DURATION=${1:-30s}
WARMUP=${2:-30s}
STORES=${3:-no-ledger sqlite-full sqlite-normal postgresql}
# every EVERY-th request a settlement (0: decisions only)
EVERY=${4:-4}
ACTIONS=examples/actions/stream.jsonl
HERE=$(dirname "$0")
JAR=cli/target/custody.jar
PORT=18191
WORK=$(mktemp -d)
chmod 755 "$WORK"
PGBIN=$(pg_config --bindir)
PGPORT=15491
# PostgreSQL refuses to run as root: as root, its programs run as the postgres user
as_pg() { if [ "$(id -u)" = 0 ]; then setpriv --reuid=postgres --regid=postgres --init-groups "$@"; else "$@"; fi; }
if [ "$(id -u)" = 0 ]; then mkdir "$WORK/pg" && chown postgres "$WORK/pg"; else mkdir "$WORK/pg"; fi
as_pg "$PGBIN/initdb" -D "$WORK/pg/data" -U custody --auth=trust -E UTF8 >/dev/null
as_pg "$PGBIN/pg_ctl" -D "$WORK/pg/data" -l "$WORK/pg/log" -w \
  -o "-c listen_addresses=127.0.0.1 -p $PGPORT -k $WORK/pg -c max_connections=50" start >/dev/null
"$PGBIN/createdb" -h 127.0.0.1 -p $PGPORT -U custody custody
SERVER=
cleanup() {
  [ -n "$SERVER" ] && kill -TERM "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null || true
  as_pg "$PGBIN/pg_ctl" -D "$WORK/pg/data" -m fast stop >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
TICK=$(getconf CLK_TCK)
one() { # NAME [--ledger URL]
  name=$1; shift
  java -jar "$JAR" serve --policies examples/policies --addr "127.0.0.1:$PORT" "$@" 2>"$WORK/$name.err" &
  SERVER=$!
  for _ in $(seq 1 200); do curl -sf "http://127.0.0.1:$PORT/ready" >/dev/null 2>&1 && break; sleep 0.1; done
  wrk -t1 -c32 -d"$WARMUP" -s "$HERE/ledger.lua" "http://127.0.0.1:$PORT" -- "$ACTIONS" "warm-$name" 0 "$EVERY" >/dev/null
  before=$(awk '{print $14 + $15}' "/proc/$SERVER/stat")
  echo "== $name: wrk -t1 -c32 -d$DURATION, $( [ "$EVERY" = 0 ] && echo "decisions only" || echo "every ${EVERY}th request a settlement"); load: $(cut -d' ' -f1-3 /proc/loadavg)"
  wrk -t1 -c32 -d"$DURATION" --latency -s "$HERE/ledger.lua" "http://127.0.0.1:$PORT" -- "$ACTIONS" "$name" 86400 "$EVERY" \
    > "$WORK/$name.wrk"
  after=$(awk '{print $14 + $15}' "/proc/$SERVER/stat")
  grep -vE '^ +[0-9.]+%|Latency Distribution|Thread Stats|Latency  |Req/Sec|Transfer/sec' "$WORK/$name.wrk"
  awk -v d=$((after - before)) -v t="$TICK" '/^requests [0-9]+ in/ {printf "server CPU: %.1f s, %.1f us per request\n", d / t, d / t * 1e6 / $2}' "$WORK/$name.wrk"
  kill -TERM "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=
}
for store in $STORES; do
  case $store in
    no-ledger) one no-ledger ;;
    sqlite-full) one sqlite-full --ledger "$WORK/velocity.db" ;;
    sqlite-normal) one sqlite-normal --ledger "$WORK/velocity-normal.db" --ledger-sync normal ;;
    postgresql) one postgresql --ledger "jdbc:postgresql://127.0.0.1:$PGPORT/custody?user=custody" ;;
    *) echo "unknown store $store" >&2; exit 2 ;;
  esac
done
