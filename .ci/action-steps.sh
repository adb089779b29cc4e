#!/usr/bin/env bash
# Tests action.yml: .ci/action-steps.py runs its steps in the order the GitHub runner would, from a workspace
# that is a copy of the example policies, with format github (annotations, exit code) and format sarif (the
# SARIF log checked: version, tool, each finding with its rule, level, file and line). Needs python3 with
# PyYAML (Debian: python3-yaml, which pre-commit pulls in) and the built cli/target/custody.jar.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
[ -f cli/target/custody.jar ] || { echo "action-steps: build cli/target/custody.jar first" >&2; exit 3; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ws/policies" "$work/ws/drafts"
cp -r examples/policies/. "$work/ws/policies/"
cp examples/broken/limits-draft.yaml "$work/ws/drafts/"
jar="jar=$root/cli/target/custody.jar"
# the first python3 that has PyYAML: the one on the PATH, else Debian's (pre-commit pulls in python3-yaml)
python=
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c 'import yaml' 2>/dev/null; then python=$candidate; break; fi
done
[ -n "$python" ] || { echo "action-steps: no python3 with PyYAML (Debian: apt-get install -y python3-yaml)" >&2; exit 3; }

# action EXPECTED-EXIT name=value...: runs the action; its record is in $work/result.json
action() {
  local expected=$1 status=0
  shift
  rm -f "$work/result.json"
  "$python" .ci/action-steps.py "$root" "$work/ws" "$work/result.json" "$@" > "$work/out" || status=$?
  cat "$work/out"
  [ -f "$work/result.json" ] || { echo "action-steps: the runner did not finish ($*)" >&2; exit 1; }
  [ "$status" -eq "$expected" ] || { echo "action-steps: exit $status, expected $expected ($*)" >&2; exit 1; }
}

echo "== format github on the policy repository and a broken draft"
action 1 "$jar" "paths=policies drafts" format=github
expected='::error file=drafts/limits-draft.yaml,line=12,col=23::unknown field `withdrawal.amout` (hint: did you mean `withdrawal.amount`?) [unknown_field]
::error file=drafts/limits-draft.yaml,line=16,col=5::unknown property `is_enable` (hint: did you mean `is_enabled`?) [unknown_property]
::warning file=drafts/limits-draft.yaml,line=17,col=28::`principal.user_email` is optional and read without a `has()` guard (hint: when it is absent the rule fails and the action is denied; write `has(principal.user_email) && …`) [unguarded_optional_read]'
diff <(echo "$expected") <(grep '^::\(error\|warning\) ' "$work/out") || { echo "action-steps: annotations differ" >&2; exit 1; }

echo "== format github, default paths (the workspace), clean policies only"
rm -r "$work/ws/drafts"
action 0 "$jar"
if grep -q '^::\(error\|warning\) ' "$work/out"; then echo "action-steps: annotations on clean policies" >&2; exit 1; fi
cp -r examples/broken "$work/ws/drafts"

echo "== format sarif"
action 1 "$jar" "paths=policies drafts" format=sarif sarif-file=lint.sarif
"$python" - "$work/ws/lint.sarif" "$work/result.json" <<'PY'
import json, sys
log = json.load(open(sys.argv[1]))
result = json.load(open(sys.argv[2]))
assert result["outputs"] == {"sarif-file": "lint.sarif"}, result["outputs"]
assert log["version"] == "2.1.0", log["version"]
run = log["runs"][0]
assert run["tool"]["driver"]["name"] == "custody", run["tool"]["driver"]
found = [(r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
          r["locations"][0]["physicalLocation"]["region"]["startLine"],
          r["locations"][0]["physicalLocation"]["region"]["startColumn"]) for r in run["results"]]
expected = [("unknown_field", "error", "drafts/limits-draft.yaml", 12, 23),
            ("unknown_property", "error", "drafts/limits-draft.yaml", 16, 5),
            ("unguarded_optional_read", "warning", "drafts/limits-draft.yaml", 17, 28)]
assert found == expected, found
print("sarif: version 2.1.0, tool custody, results:", found)
PY

echo "== an unknown format is a usage error"
action 2 "$jar" format=text
grep -q '^::error::format must be github or sarif, not `text`$' "$work/out" || { echo "action-steps: no usage error" >&2; exit 1; }
echo "action-steps: ok"
