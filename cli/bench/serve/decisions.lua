-- wrk script for the custody serve load benchmark (cli/BENCHMARKS.md): POSTs the actions of an action stream
-- (settlement records skipped), one per request, cycling; each wrk thread starts at its own place in the stream.
--   wrk -t1 -c32 -d20s --latency -s decisions.lua http://127.0.0.1:8181/v1/decisions -- ACTIONS.jsonl [BATCH]
-- With BATCH > 1 it POSTs arrays of BATCH actions to /v1/decisions/batch instead (give that URL).
local bodies = {}
local i = 0

function init(args)
  local actions = {}
  for line in io.lines(args[1]) do
    if line:find('"action"', 1, true) and not line:find('"event"', 1, true) then
      actions[#actions + 1] = line
    end
  end
  local batch = tonumber(args[2] or "1")
  if batch > 1 then
    for s = 1, #actions, batch do
      local part = {}
      for k = s, math.min(s + batch - 1, #actions) do part[#part + 1] = actions[k] end
      if #part == batch then bodies[#bodies + 1] = "[" .. table.concat(part, ",") .. "]" end
    end
  else
    bodies = actions
  end
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
  i = math.random(#bodies)
end

function request()
  i = i % #bodies + 1
  return wrk.format("POST", nil, { ["Content-Type"] = "application/json" }, bodies[i])
end

function done(summary, latency, requests)
  io.write(string.format("requests %d in %.1f s: %.0f/s\n", summary.requests, summary.duration / 1e6,
    summary.requests / (summary.duration / 1e6)))
  for _, p in ipairs({ 50, 90, 99, 99.9 }) do
    io.write(string.format("p%g %.2f ms\n", p, latency:percentile(p) / 1000))
  end
  io.write(string.format("errors: non-2xx %d, connect %d, read %d, write %d, timeout %d\n", summary.errors.status,
    summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.timeout))
end
