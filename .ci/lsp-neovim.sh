#!/usr/bin/env bash
# Runs .ci/lsp-neovim.lua (Neovim headless, its built-in LSP client driving `custody lsp` on the example
# policies) and compares its output with .ci/lsp-neovim.expected. Needs nvim (Debian: `neovim`) and the built
# launcher cli/target/custody (`./mvnw -B verify` or `package` first), or CUSTODY naming another command.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
command -v nvim >/dev/null || { echo "lsp-neovim: nvim is not installed (Debian: apt-get install -y neovim)" >&2; exit 3; }
custody=${CUSTODY:-$root/cli/target/custody}   # CUSTODY: another build of the command
[ -x "$custody" ] || { echo "lsp-neovim: $custody is missing: build first" >&2; exit 3; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# -u NONE -i NONE: no user configuration, no shada file; the script quits Neovim itself
CUSTODY="$custody" ROOT="$root" \
  timeout 180 nvim --headless -u NONE -i NONE -n -c "luafile .ci/lsp-neovim.lua" >"$out" </dev/null
sed "s|$root|ROOT|g" "$out" | tr -d '\r' > "$out.norm"
mv "$out.norm" "$out"
if ! diff -u .ci/lsp-neovim.expected "$out"; then
  echo "lsp-neovim: the editor's results differ from .ci/lsp-neovim.expected" >&2
  exit 1
fi
cat "$out"
echo "lsp-neovim: ok"
