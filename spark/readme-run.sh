#!/usr/bin/env bash
# Runs the Spark commands the documentation prints, exactly as printed, from the repository root: the README's
# local run and its "On a cluster" steps (section "At scale"), and docs/design.md's command (§7). Each block of
# commands runs in one shell of its own process group (the cluster's master and worker are started there with `&`
# and stopped with the group); every output line the documentation prints under a command must appear in what it
# wrote, on stdout or stderr (`elapsed_us` aside, a timing). Not run: `./mvnw` and `spark/cluster-run.sh` lines (the build, and CI's
# own cluster run), and the one-million-action measurement, whose stream the reader generates first.
#
#   spark/readme-run.sh            # after ./mvnw -B verify (or package): needs spark/target and cli/target
#
# Exit 0 when every command ran and printed what the documentation says; 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=$(mktemp -d "${TMPDIR:-/tmp}/custody-readme.XXXXXX")
GROUPS_STARTED=()
cleanup() {
    local code=$?
    for g in "${GROUPS_STARTED[@]}"; do
        kill -- "-$g" 2>/dev/null || true
    done
    sleep 1
    for g in "${GROUPS_STARTED[@]}"; do
        kill -9 -- "-$g" 2>/dev/null || true
    done
    rm -rf "$WORK"
    exit $code
}
trap cleanup EXIT INT TERM

# the blocks: one script a block, with each command's output kept, and the lines the documentation expects
python3 - "$WORK" <<'PY'
import re, shlex, sys, pathlib
work = pathlib.Path(sys.argv[1])
def blocks(path, start, end):
    text = pathlib.Path(path).read_text()
    i = text.index(start)
    j = text.index(end, i)
    return re.findall(r"```text\n(.*?)```", text[i:j], re.S)
found = [("readme-local", b) for b in blocks("README.md", "## At scale", "**On a cluster.**")[:1]]
found += [("readme-cluster", b) for b in blocks("README.md", "**On a cluster.**", "**One million actions")]
found += [("design", b) for b in blocks("docs/design.md", "## 7. Replay at scale", "## 8.")
          if "spark-opens" in b]
n = 0
for name, body in found:
    commands = []  # [command, expected lines]
    lines = body.splitlines()
    k = 0
    while k < len(lines):
        line = lines[k]
        if line.startswith("$ "):
            cmd = line[2:]
            while cmd.endswith("\\"):
                k += 1
                cmd = cmd[:-1] + lines[k].strip()
            commands.append([cmd, []])
        elif commands:
            commands[-1][1].append(line)
        k += 1
    script = ["set -euo pipefail"]
    expect = []
    for c, out in commands:
        if c.startswith("./mvnw") or c.startswith("spark/cluster-run.sh"):
            continue
        n += 1
        if c.rstrip().endswith("&"):
            script.append(c.rstrip()[:-1] + " > " + str(work / f"out.{n}") + " 2>&1 &")
        else:
            script.append("{ " + c + " ; } > " + str(work / f"out.{n}") + " 2> " + str(work / f"err.{n}"))
        script.append("echo " + shlex.quote("--- ran: " + c) + " >&2")
        expect.append({"n": n, "cmd": c, "lines": out})
    (work / f"{name}.sh").write_text("\n".join(script) + "\n")
    (work / f"{name}.expect").write_text(repr(expect))
print("\n".join(name for name, _ in found), file=open(work / "blocks", "w"))
PY

for f in /tmp/decisions /tmp/decisions-cluster /tmp/decisions-design; do
    # the documentation's own output directories: the job refuses one that exists
    rm -rf "$f"
done

status=0
while read -r block; do
    echo "=== $block: $(grep -c '^echo' "$WORK/$block.sh") commands" >&2
    setsid bash "$WORK/$block.sh" &
    pid=$!
    GROUPS_STARTED+=("$pid")
    if ! timeout 600 tail --pid="$pid" -f /dev/null; then
        echo "error: $block did not finish in 600 s" >&2
        status=1
    fi
    wait "$pid" || { echo "error: a command of $block failed" >&2; status=1; }
    kill -- "-$pid" 2>/dev/null || true   # what the block started in the background (a master, a worker)
    python3 - "$WORK" "$block" <<'PY' || status=1
import ast, pathlib, re, sys
work, block = pathlib.Path(sys.argv[1]), sys.argv[2]
ok = True
norm = lambda s: re.sub(r'"elapsed_us":\d+', '"elapsed_us":0', s)
for e in ast.literal_eval((work / f"{block}.expect").read_text()):
    out = work / f"out.{e['n']}"
    # the job's summary goes to stderr, with Spark's log; a printed line may come from either stream
    got = [norm(l) for f in (out, work / f"err.{e['n']}") if f.exists() for l in f.read_text().splitlines()]
    for want in e["lines"]:
        w = norm(want).strip()
        # a line the documentation shows cut (`head -c`) matches the output's as a prefix, either way round
        if w and w not in got and not any(len(w) >= 100 and (g.startswith(w) or w.startswith(g)) and len(g) >= 100
                                          for g in got):
            print(f"error: `{e['cmd'][:90]}` did not print: {want}", file=sys.stderr)
            err = work / f"err.{e['n']}"
            if err.exists():
                print("".join(err.read_text().splitlines(True)[-15:]), file=sys.stderr)
            ok = False
    if ok:
        print(f"ok: {e['cmd'][:110]}", file=sys.stderr)
sys.exit(0 if ok else 1)
PY
done < "$WORK/blocks"
exit $status
