-- wrk script for the serve --ledger benchmark (cli/BENCHMARKS.md): POSTs the example stream's withdrawals with their
-- velocity sections taken out (the server derives them from its ledger), each with a new action id and an instant
-- 10 ms after the one before, so every request is a new attempt; every 4th request is instead the settlement
-- (executed) of the withdrawal before it, to /v1/settlements. Use with -t1 (one counter, instants in order):
--   wrk -t1 -c32 -d20s --latency -s ledger.lua http://127.0.0.1:8181 -- examples/actions/stream.jsonl RUN [START] [EVERY]
-- RUN names the run, so that two runs on one store do not reuse ids; START (seconds, default 0) moves its instants
-- after those of an earlier run on the same store (a run that went back in time would record every attempt late);
-- EVERY (default 4) makes every EVERY-th request a settlement, 0 none.
local bodies = {}
local n = 0
local run = "r"
local base = 1793577600 -- 2026-11-02T00:00:00Z
local last
local every = 4

function init(args)
  for line in io.lines(args[1]) do
    if line:find('"withdrawal.create"', 1, true) and not line:find('"event"', 1, true) then
      line = line:gsub(', "wallet": %b{}', ''):gsub(', "workspace": %b{}', '')
      bodies[#bodies + 1] = line
    end
  end
  run = args[2] or tostring(os.time())
  base = base + tonumber(args[3] or "0")
  every = tonumber(args[4] or "4")
end

local function instant(k)
  local ms = k * 10
  return os.date("!%Y-%m-%dT%H:%M:%S", base + math.floor(ms / 1000)) .. string.format(".%03dZ", ms % 1000)
end

function request()
  n = n + 1
  local at = instant(n)
  if every > 0 and n % every == 0 and last then
    local s = string.format('{"event": "withdrawal.settled", "id": "s-%s-%d", "wallet_id": "%s", '
      .. '"workspace_id": "%s", "network_code": "%s", "value_usd": %s, "status": "executed", "at": "%s"}',
      run, n, last.wallet, last.workspace, last.network, last.value, at)
    return wrk.format("POST", "/v1/settlements", { ["Content-Type"] = "application/json" }, s)
  end
  local b = bodies[n % #bodies + 1]
  b = b:gsub('"id": "[^"]*"', '"id": "a-' .. run .. '-' .. n .. '"', 1):gsub('"at": "[^"]*"', '"at": "' .. at .. '"', 1)
  last = {
    wallet = b:match('"wallet_id": "([^"]*)"'), workspace = b:match('"workspace_id": "([^"]*)"'),
    network = b:match('"network_code": "([^"]*)"'), value = b:match('"value_usd": ([0-9.eE+-]+)')
  }
  return wrk.format("POST", "/v1/decisions", { ["Content-Type"] = "application/json" }, b)
end

function done(summary, latency, requests)
  -- done() runs in wrk's main Lua state, which init() never saw: the mix is the script's argument, said by the caller
  io.write(string.format("requests %d in %.1f s: %.0f/s\n", summary.requests, summary.duration / 1e6,
    summary.requests / (summary.duration / 1e6)))
  for _, p in ipairs({ 50, 90, 99, 99.9 }) do
    io.write(string.format("p%g %.2f ms\n", p, latency:percentile(p) / 1000))
  end
  io.write(string.format("errors: non-2xx %d, connect %d, read %d, write %d, timeout %d\n", summary.errors.status,
    summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.timeout))
end
