"""Runs the steps of action.yml as the GitHub runner runs a composite action, without GitHub: inputs merged
with their defaults, ${{ inputs.* }} / ${{ github.* }} / ${{ steps.*.outputs.* }} expressions substituted,
each step's env set, `run` through `bash --noprofile --norc -eo pipefail`, GITHUB_ENV lines carried into the
following steps, GITHUB_OUTPUT collected per step id, GITHUB_STEP_SUMMARY one file for the job, the first
failing step ending the action.

usage: action-steps.py ACTION_DIR WORKSPACE OUT_JSON name=value...
Writes {"exit": N, "outputs": {...}, "stdout": "...", "summary": "..."} to OUT_JSON (stdout of the steps also
passes through; summary is what the steps wrote to GITHUB_STEP_SUMMARY).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

action_dir, workspace, out_json = sys.argv[1], sys.argv[2], sys.argv[3]
given = dict(a.split("=", 1) for a in sys.argv[4:])
with open(os.path.join(action_dir, "action.yml")) as f:
    action = yaml.safe_load(f)
assert action["runs"]["using"] == "composite", "a composite action"
inputs = {name: str(spec.get("default", "")) for name, spec in action.get("inputs", {}).items()}
unknown = set(given) - set(inputs)
assert not unknown, f"inputs the action does not declare: {unknown}"
inputs.update(given)

tmp = tempfile.mkdtemp()
summary_file = os.path.join(tmp, "step_summary.md")
open(summary_file, "w").close()
env = dict(os.environ)
env.update({"GITHUB_ACTION_PATH": action_dir, "GITHUB_WORKSPACE": workspace, "GITHUB_ACTIONS": "true",
            "GITHUB_STEP_SUMMARY": summary_file})
step_outputs = {}


def expand(text):
    def value(m):
        expr = m.group(1).strip()
        if expr.startswith("inputs."):
            return inputs[expr[len("inputs."):]]
        if expr == "github.action_path":
            return action_dir
        if expr == "github.workspace":
            return workspace
        s = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expr)
        if s:
            return step_outputs.get(s.group(1), {}).get(s.group(2), "")
        raise SystemExit(f"action-steps: an expression this runner does not know: {expr}")
    return re.sub(r"\$\{\{(.*?)\}\}", value, str(text))


def read_pairs(path):
    pairs = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f.read().splitlines():
                if "=" in line:
                    k, v = line.split("=", 1)
                    pairs[k] = v
    return pairs


status = 0
stdout = []
for i, step in enumerate(action["runs"]["steps"]):
    name = step.get("name", step.get("id", f"step {i}"))
    assert "run" in step, f"{name}: only run steps (a `uses` step needs the runner)"
    assert "if" not in step, f"{name}: conditions are not emulated"
    shell = step.get("shell")
    assert shell == "bash", f"{name}: composite run steps must name their shell (bash)"
    env_file, out_file = os.path.join(tmp, f"env{i}"), os.path.join(tmp, f"out{i}")
    open(env_file, "w").close()
    open(out_file, "w").close()
    step_env = dict(env)
    step_env.update({k: expand(v) for k, v in step.get("env", {}).items()})
    step_env.update({"GITHUB_ENV": env_file, "GITHUB_OUTPUT": out_file})
    script = os.path.join(tmp, f"step{i}.sh")
    with open(script, "w") as f:
        f.write(expand(step["run"]))
    print(f"::group::{name}", flush=True)
    p = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script], cwd=workspace, env=step_env,
                       stdout=subprocess.PIPE, text=True)
    sys.stdout.write(p.stdout)
    print("::endgroup::", flush=True)
    stdout.append(p.stdout)
    env.update(read_pairs(env_file))
    if "id" in step:
        step_outputs[step["id"]] = read_pairs(out_file)
    if p.returncode != 0:
        status = p.returncode
        break

outputs = {name: expand(spec["value"]) for name, spec in action.get("outputs", {}).items()}
with open(out_json, "w") as f:
    with open(summary_file) as s:
        summary = s.read()
    json.dump({"exit": status, "outputs": outputs, "stdout": "".join(stdout), "summary": summary}, f)
sys.exit(status)
