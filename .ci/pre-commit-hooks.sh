#!/usr/bin/env bash
# Tests .pre-commit-hooks.yaml with pre-commit itself (Debian: `pre-commit`): `pre-commit try-repo` runs each
# hook of this repository in a temporary git repository holding a broken and a clean policy file, and the hook
# must fail on the broken one (with lint's findings in its output) and pass on the clean one. Needs the built
# cli/target/custody launcher and jar (`./mvnw -B verify` or `package` first).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
command -v pre-commit >/dev/null || { echo "pre-commit-hooks: pre-commit is not installed (Debian: apt-get install -y pre-commit)" >&2; exit 3; }
[ -x cli/target/custody ] && [ -f cli/target/custody.jar ] || { echo "pre-commit-hooks: build cli/target/custody first" >&2; exit 3; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PRE_COMMIT_HOME="$work/cache" PATH="$root/cli/target:$PATH" CUSTODY_JAR="$root/cli/target/custody.jar"
repo="$work/repo"
mkdir -p "$repo/policies"
cp examples/broken/limits-draft.yaml examples/policies/treasury-limits.yaml "$repo/policies/"
git -C "$repo" init -q
git -C "$repo" add policies

# run HOOK FILE EXPECTED-EXIT: try-repo with one file; prints the output; fails the script on another exit code
run() {
  local hook=$1 file=$2 expected=$3 status=0
  (cd "$repo" && pre-commit try-repo "$root" "$hook" --files "$file") > "$work/out" 2>&1 || status=$?
  sed -n '/^\(custody lint\|- hook id\|- exit code\|policies\/\)/p' "$work/out"
  if [ "$status" -ne "$expected" ]; then
    cat "$work/out" >&2
    echo "pre-commit-hooks: $hook on $file exited $status, expected $expected" >&2
    exit 1
  fi
}

for hook in custody-lint custody-lint-jar; do
  echo "== $hook on the broken policy (must fail)"
  run "$hook" policies/limits-draft.yaml 1
  grep -q "^policies/limits-draft.yaml:12:23: error\[unknown_field\] unknown field \`withdrawal.amout\`" "$work/out" \
    || { cat "$work/out" >&2; echo "pre-commit-hooks: $hook did not show lint's finding" >&2; exit 1; }
  grep -q "^- exit code: 1$" "$work/out" || { echo "pre-commit-hooks: no exit code 1 in the hook output" >&2; exit 1; }
  echo "== $hook on the clean policy (must pass)"
  run "$hook" policies/treasury-limits.yaml 0
  grep -q "^custody lint.*Passed$" "$work/out" || { cat "$work/out" >&2; echo "pre-commit-hooks: $hook did not pass" >&2; exit 1; }
done
echo "pre-commit-hooks: ok"
