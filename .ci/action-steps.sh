#!/usr/bin/env bash
# Tests action.yml: .ci/action-steps.py runs its steps in the order the GitHub runner would, from a workspace
# that is a copy of the example policies, with format github (annotations, exit code) and format sarif (the
# SARIF log checked: version, tool, each finding with its rule, level, file and line); then mode review over a
# real git repository of two commits (the example policies, then a change to them): the report in the
# review-file output and the job summary, its summary line and transition table, the exit codes. Needs python3
# with PyYAML (Debian: python3-yaml, which pre-commit pulls in), git and the built cli/target/custody.jar.
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
assert result["outputs"] == {"sarif-file": "lint.sarif", "review-file": "", "review-exit-code": ""}, result["outputs"]
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

# mode review: a repository whose main branch has the example policies, and a branch `change` that tightens a
# limit, adds a DENY rule that overrides an ALLOW rule and disables a rule; the workspace is its clone on
# `change` (as actions/checkout leaves it), the base side comes from git at base-ref `main`
git_=(git -c user.name=ci -c user.email=ci@example.invalid -c init.defaultBranch=main)
repo=$work/repo
mkdir -p "$repo/policies"
cp examples/policies/*.yaml examples/policies/*.json "$repo/policies/"
"${git_[@]}" -C "$repo" init -q
"${git_[@]}" -C "$repo" add policies
"${git_[@]}" -C "$repo" commit -q -m "the example policies"
"${git_[@]}" -C "$repo" checkout -q -b change
"$python" - "$repo/policies" <<'PY'
import sys
d = sys.argv[1]
def edit(name, old, new):
    p = f"{d}/{name}"
    s = open(p).read()
    assert old in s, (name, old)
    open(p, "w").write(s.replace(old, new))
edit("treasury-limits.yaml", "condition: withdrawal.value_usd > 250000", "condition: withdrawal.value_usd > 100000")
routine = '    {\n      "rule_id": "routine-payout",'
edit("address-book-hygiene.json", routine, """    {
      "rule_id": "stablecoin-hold",
      "trigger_action": "withdrawal.create",
      "effect": "DENY",
      "description": "stablecoin payouts below $5,000 wait while the issuer is reviewed",
      "condition": "withdrawal.asset_symbol in [\\"USDC\\", \\"USDT\\"] && withdrawal.value_usd < 5000"
    },
""" + routine)
edit("night-weekend-freeze.yaml", "      description: withdrawals above $25,000 are frozen between 22:00 and 06:00 UTC\n",
     "      description: withdrawals above $25,000 are frozen between 22:00 and 06:00 UTC\n      is_enabled: false\n")
PY
"${git_[@]}" -C "$repo" commit -q -am "tighten the treasury cap, hold stablecoin payouts, lift the night freeze"
"${git_[@]}" clone -q --branch change "$repo" "$work/clone"
stream=$root/examples/actions/stream.jsonl

# review EXPECTED-EXIT name=value...: runs the action in the clone (GITHUB_BASE_REF unset, as outside a PR)
review() {
  local expected=$1 status=0
  shift
  rm -f "$work/result.json"
  env -u GITHUB_BASE_REF "$python" .ci/action-steps.py "$root" "$work/clone" "$work/result.json" "$@" > "$work/out" \
    || status=$?
  cat "$work/out"
  [ -f "$work/result.json" ] || { echo "action-steps: the runner did not finish ($*)" >&2; exit 1; }
  [ "$status" -eq "$expected" ] || { echo "action-steps: exit $status, expected $expected ($*)" >&2; exit 1; }
}

echo "== mode review of the change on branch main, with the example stream"
review 1 "$jar" mode=review base-ref=main paths=policies "actions=$stream" review-file=review.md
"$python" - "$work/clone/review.md" "$work/result.json" <<'PY'
import json, sys
report = open(sys.argv[1]).read()
result = json.load(open(sys.argv[2]))
assert result["outputs"] == {"sarif-file": "", "review-file": "review.md", "review-exit-code": "1"}, result["outputs"]
assert result["summary"] == report, "the job summary is the report"
lines = report.splitlines()
assert lines[0] == ("**custody review:** policies: 0 added, 0 removed, 3 changed; rules: 1 added, 0 removed, "
                    "1 changed, 1 disabled — changes 345 decisions of 1,200 recorded"), lines[0]
rules = [l for l in lines if l.startswith("| `")][:3]
assert rules == [
    "| `address-book-hygiene/stablecoin-hold` | added | withdrawal.create | DENY | `policies/address-book-hygiene.json:22` |",
    "| `treasury-limits/treasury-single-cap` | changed | withdrawal.create | DENY | `policies/treasury-limits.yaml:12` |",
    "| `night-freeze/night-large-withdrawal` | disabled | withdrawal.create | DENY | `.custody-base/policies/night-weekend-freeze.yaml:7` |",
], rules
i = lines.index("| transition | actions |")
assert lines[i:i + 6] == ["| transition | actions |", "|---|---:|", "| ALLOW → DENY | 158 |", "| NO_MATCH → DENY | 106 |",
                          "| DENY → DENY (attribution) | 49 |", "| DENY → NO_MATCH | 32 |"], lines[i:i + 6]
assert ("- warning **overridden** `address-book-hygiene/routine-payout` at `policies/address-book-hygiene.json:29:5`: "
        "whenever this rule is true, a DENY rule (`address-book-hygiene/stablecoin-hold`) is true for the same wallet: "
        "it never allows") in lines
print("review: summary line, rules, transitions and the overridden finding as expected")
PY
[ ! -e "$work/clone/.custody-base" ] || { echo "action-steps: the base checkout was left in the workspace" >&2; exit 1; }

echo "== fail-on-change false: the same report, the step passes"
review 0 "$jar" mode=review base-ref=main paths=policies "actions=$stream" fail-on-change=false
head -n 1 "$work/clone/custody-review.md" | grep -q 'changes 345 decisions of 1,200 recorded$' \
  || { echo "action-steps: no report in custody-review.md" >&2; exit 1; }

echo "== a branch that only reformats: no behaviour change, proved"
"${git_[@]}" -C "$work/clone" checkout -q -b reformat origin/main
"$python" - "$work/clone/policies/velocity.yaml" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
old = "condition: has(wallet.withdrawal_count_1h) && wallet.withdrawal_count_1h >= 12"
assert old in s
open(p, "w").write(s.replace(old, "condition: \"has(wallet.withdrawal_count_1h)  &&  wallet.withdrawal_count_1h>=12\""))
PY
"${git_[@]}" -C "$work/clone" commit -q -am "reformat"
review 0 "$jar" mode=review base-ref=main paths=policies
expected='**custody review:** policies: 0 added, 0 removed, 0 changed; rules: 0 added, 0 removed, 0 changed — no behaviour change (proved)'
[ "$(head -n 1 "$work/clone/custody-review.md")" = "$expected" ] || { echo "action-steps: reformat summary differs" >&2; exit 1; }

echo "== mode review without a base-ref outside a pull request is a usage error"
review 2 "$jar" mode=review paths=policies
grep -q '^::error::mode review needs base-ref (or a pull_request event, which sets GITHUB_BASE_REF)$' "$work/out" \
  || { echo "action-steps: no usage error" >&2; exit 1; }
echo "action-steps: ok"
