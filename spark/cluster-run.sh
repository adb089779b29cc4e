#!/usr/bin/env bash
# A real cluster run of the Spark job (issue 28): starts a standalone Spark master and one worker on 127.0.0.1
# from the jars the build put in spark/target/lib (no Spark installation), spark-submits ReplayJob to it in
# client mode (the worker starts its executors as separate JVMs), and checks that the records equal
# `custody replay`'s (elapsed_us aside, a timing). Stops everything it started on exit, whatever happens.
#
#   spark/cluster-run.sh                       # the example stream, its velocity sections removed (derived)
#   spark/cluster-run.sh --actions FILE [--velocity given|derive] [--assume-settled] [--now INSTANT] [--executors N]
#                        [--keep DIR]
#
# Needs `./mvnw -B verify` (or package) first: spark/target/custody-spark.jar, spark/target/lib, cli/target/custody.jar.
# Exit 0 when the records are equal; 1 when they differ; 2 on a usage error; 3 when something failed to start.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
LIB=$ROOT/spark/target/lib
JAR=$ROOT/spark/target/custody-spark.jar
CLI=$ROOT/cli/target/custody.jar
ACTIONS=
VELOCITY=derive
NOW=2027-01-01T00:00:00Z
EXECUTORS=2
KEEP=
SETTLED=()
LIMIT=${CLUSTER_RUN_TIMEOUT:-300}   # seconds for the whole run (about 60 on a quiet 2-core machine)

while [ $# -gt 0 ]; do
    case "$1" in
        --actions) ACTIONS=$2; shift 2 ;;
        --velocity) VELOCITY=$2; shift 2 ;;
        --now) NOW=$2; shift 2 ;;
        --executors) EXECUTORS=$2; shift 2 ;;
        --keep) KEEP=$2; shift 2 ;;
        --assume-settled) SETTLED=(--assume-settled); shift ;;
        *) echo "error: unknown option \`$1\`" >&2; exit 2 ;;
    esac
done
for f in "$JAR" "$LIB/spark-core_2.13-"*.jar "$CLI" "$ROOT/spark/target/spark-opens"; do
    [ -e "$f" ] || { echo "error: \`$f\` does not exist; run ./mvnw -B package first" >&2; exit 3; }
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/custody-cluster.XXXXXX")
PIDS=()
cleanup() {
    local code=$?
    trap - EXIT INT TERM
    for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
        kill "${PIDS[i]}" 2>/dev/null || true
    done
    for p in "${PIDS[@]}"; do
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
        kill -9 "$p" 2>/dev/null || true
    done
    # executors are the worker's children and die with it; any left (a killed worker) carry $WORK on their command line
    for p in $(pgrep -f -- "$WORK/" || true); do kill -9 "$p" 2>/dev/null || true; done
    if [ -n "$KEEP" ]; then
        mkdir -p "$KEEP" && cp -r "$WORK/." "$KEEP/" 2>/dev/null || true
    fi
    rm -rf "$WORK"
    exit $code
}
trap cleanup EXIT
trap 'exit 3' INT TERM
# the whole run is bounded: past the limit, this script is ended and cleans up
( trap 'kill "$s" 2>/dev/null; exit 0' TERM
  sleep "$LIMIT" > /dev/null 2>&1 & s=$!
  wait "$s" && { echo "error: the cluster run took over ${LIMIT}s; stopping it" >&2; kill -TERM $$; } ) > /dev/null &
PIDS+=($!)

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
wait_for() { # wait_for LOG PATTERN WHAT
    for _ in $(seq 300); do
        grep -q "$2" "$1" 2>/dev/null && return 0
        sleep 0.2
    done
    echo "error: the $3 did not start; its log:" >&2
    tail -20 "$1" >&2
    exit 3
}

# Spark's launcher code (which the worker uses to build an executor's command line) looks for $SPARK_HOME/jars:
# a directory linking to the build's jars, not an installation
mkdir -p "$WORK/home" "$WORK/worker" "$WORK/logs"
ln -s "$LIB" "$WORK/home/jars"
export SPARK_HOME=$WORK/home SPARK_SCALA_VERSION=2.13 SPARK_LOG_DIR=$WORK/logs SPARK_LOCAL_IP=127.0.0.1
# the flags Spark needs on Java 17, as the java argument file the build writes (the README's commands use it too)
OPENS=@$ROOT/spark/target/spark-opens
CP="$LIB/*"

MASTER_PORT=$(free_port)
WORKER_PORT=$(free_port)
java $OPENS -Xmx256m -cp "$CP" org.apache.spark.deploy.master.Master --host 127.0.0.1 --port "$MASTER_PORT" \
    --webui-port "$(free_port)" > "$WORK/logs/master.log" 2>&1 &
PIDS+=($!)
MASTER=$!
wait_for "$WORK/logs/master.log" "I have been elected leader" master
java $OPENS -Xmx256m -cp "$CP" org.apache.spark.deploy.worker.Worker --host 127.0.0.1 --port "$WORKER_PORT" \
    --webui-port "$(free_port)" --cores "$EXECUTORS" --memory "$((EXECUTORS * 1024))m" --work-dir "$WORK/worker" \
    "spark://127.0.0.1:$MASTER_PORT" > "$WORK/logs/worker.log" 2>&1 &
PIDS+=($!)
DAEMONS="$MASTER,$!"
wait_for "$WORK/logs/worker.log" "Successfully registered with master" worker
echo "$(date -u +%T) master spark://127.0.0.1:$MASTER_PORT and worker started (logs in $WORK/logs)" >&2

if [ -z "$ACTIONS" ]; then
    # the example stream without its velocity sections, so the job derives every one on the cluster
    ACTIONS=$WORK/stream.jsonl
    sed -E 's/, "wallet": \{[^}]*\}//; s/, "workspace": \{[^}]*\}//' "$ROOT/examples/actions/stream.jsonl" > "$ACTIONS"
    grep -q '"outflow_1h"' "$ACTIONS" && { echo "error: the velocity sections were not removed" >&2; exit 3; }
fi

# the processes, seen while the job runs: master, worker, and the executors the worker started
(
    for _ in $(seq 600); do
        if pgrep -f -- "$WORK/.*CoarseGrainedExecutorBackend" > /dev/null; then
            sleep 1
            # pid, parent, and the command line without its class path and JVM options
            ps -ww -o pid,ppid,args -p "$DAEMONS,$(pgrep -d, -f -- "$WORK/")" \
                | sed -E 's/ -(cp|classpath) [^ ]+//; s/ "?(-(-add-opens|-add-modules|-enable-native-access|D|X)|@)[^ ]*//g' \
                | grep -E "PID|deploy|Executor" > "$WORK/ps.txt"
            exit 0
        fi
        sleep 0.2
    done
) &
PIDS+=($!)

OUT=$WORK/out
# long steps run in the background and are waited for, so that the time limit's signal is handled at once
set +e
java $OPENS -Xmx1g -cp "$JAR:$CP" org.apache.spark.deploy.SparkSubmit \
    --master "spark://127.0.0.1:$MASTER_PORT" --deploy-mode client --class dev.custody.spark.ReplayJob \
    --conf spark.executor.cores=1 --conf spark.cores.max="$EXECUTORS" --conf spark.executor.memory=1g \
    --conf spark.driver.host=127.0.0.1 --conf spark.ui.enabled=false --conf "spark.executor.extraJavaOptions=$OPENS" \
    "$JAR" --policies "$ROOT/examples/policies" --actions "$ACTIONS" --out "$OUT" --velocity "$VELOCITY" \
    --now "$NOW" "${SETTLED[@]}" 2> "$WORK/logs/submit.log" &
SUBMIT=$!
PIDS+=($SUBMIT)
wait $SUBMIT
JOB=$?
set -e
grep -vE '^(WARNING|Using Spark|[0-9]{2}/[0-9]{2}/[0-9]{2} )' "$WORK/logs/submit.log" | grep -v '^\s*$' >&2 || true
if [ "$JOB" -gt 1 ]; then
    echo "error: spark-submit ended with exit code $JOB; its log:" >&2
    tail -20 "$WORK/logs/submit.log" >&2
    exit 3
fi
echo "$(date -u +%T) the job ended; processes seen while the job ran:" >&2
cat "$WORK/ps.txt" >&2 2>/dev/null || echo "  (no executor was seen)" >&2
grep -q CoarseGrainedExecutorBackend "$WORK/ps.txt" 2>/dev/null || { echo "error: no executor JVM was seen" >&2; exit 3; }

GIVEN=()
[ "$VELOCITY" = given ] && GIVEN=(--velocity given)
set +e
java -jar "$CLI" replay --policies "$ROOT/examples/policies" --actions "$ACTIONS" --format jsonl --now "$NOW" \
    "${GIVEN[@]}" "${SETTLED[@]}" > "$WORK/cli.jsonl" 2> "$WORK/logs/cli.log" &
REPLAY=$!
PIDS+=($REPLAY)
wait $REPLAY
CLI_CODE=$?
set -e
[ "$CLI_CODE" -le 1 ] || { echo "error: custody replay ended with $CLI_CODE" >&2; cat "$WORK/logs/cli.log" >&2; exit 3; }
[ "$CLI_CODE" = "$JOB" ] || { echo "error: custody replay exited $CLI_CODE, the job $JOB" >&2; exit 1; }

zero() { sed -E 's/"elapsed_us":[0-9]+/"elapsed_us":0/g'; }
zero < "$WORK/cli.jsonl" > "$WORK/cli.zeroed"
cat "$OUT"/part-* | zero > "$WORK/job.zeroed"
N=$(wc -l < "$WORK/cli.zeroed")
if cmp -s "$WORK/cli.zeroed" "$WORK/job.zeroed"; then
    echo "$(date -u +%T) equal: $N of $N records of the cluster job equal custody replay's (elapsed_us aside)" >&2
else
    echo "error: the cluster job's records differ from custody replay's ($N against $(wc -l < "$WORK/job.zeroed")):" >&2
    diff "$WORK/cli.zeroed" "$WORK/job.zeroed" | head -5 >&2
    exit 1
fi
