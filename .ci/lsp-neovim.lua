-- End-to-end test of `custody lsp` with a real editor: Neovim (0.7+) in headless mode, its built-in LSP client
-- started on the example policies. Prints one line per result; .ci/lsp-neovim.sh compares them with
-- .ci/lsp-neovim.expected. Buffers are edited in memory only: nothing is written to disk.
-- Environment: CUSTODY (the command, e.g. cli/target/custody), ROOT (the repository).
local custody = assert(os.getenv('CUSTODY'), 'CUSTODY is not set')
local root = assert(os.getenv('ROOT'), 'ROOT is not set')

local function say(line)
  io.stdout:write(line .. '\n')
end

local function fail(message)
  io.stderr:write('lsp-neovim: ' .. message .. '\n')
  vim.cmd('cquit! 1')
end

local published = {}
local exit_code = nil
local client_id = vim.lsp.start_client({
  name = 'custody',
  cmd = { custody, 'lsp' },
  root_dir = root,
  handlers = {
    ['textDocument/publishDiagnostics'] = function(_, result)
      published[result.uri] = result
    end,
  },
  on_exit = function(code)
    exit_code = code
  end,
})
if not client_id then
  fail('the client did not start')
end

local function span(range)
  return string.format('%d:%d-%d:%d', range.start.line, range.start.character, range['end'].line,
    range['end'].character)
end

-- opens a file in a buffer attached to the server; returns the buffer and its URI
local function open(path)
  vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/' .. path))
  local buf = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(buf, client_id)
  return buf, vim.uri_from_bufnr(buf)
end

-- waits for the diagnostics of a buffer's current text (Neovim numbers versions by the buffer's changedtick)
local function diagnostics(label, buf, uri)
  local version = vim.lsp.util.buf_versions[buf]
  local ok = vim.wait(60000, function()
    local p = published[uri]
    return p ~= nil and (version == nil or p.version == nil or p.version >= version)
  end, 20)
  if not ok then
    fail('no diagnostics for ' .. label)
  end
  local p = published[uri]
  say(string.format('diagnostics %s: %d', label, #p.diagnostics))
  for _, d in ipairs(p.diagnostics) do
    say(string.format('  %s %s %s', d.code, span(d.range), d.message))
  end
  return p.diagnostics
end

local function request(buf, method, params)
  local responses, err = vim.lsp.buf_request_sync(buf, method, params, 30000)
  if not responses then
    fail(method .. ': ' .. tostring(err))
  end
  local response = responses[client_id]
  if response == nil or response.err then
    fail(method .. ': ' .. vim.inspect(response))
  end
  return response.result
end

local function completion(label, buf, uri, line, character)
  local result = request(buf, 'textDocument/completion',
    { textDocument = { uri = uri }, position = { line = line, character = character } })
  local items = result.items or result
  local parts = {}
  for _, item in ipairs(items) do
    table.insert(parts, item.label .. ' (' .. (item.detail or '') .. ')')
  end
  say(string.format('completion %s: %s', label, table.concat(parts, ', ')))
end

local function hover(label, buf, uri, line, character)
  local result = request(buf, 'textDocument/hover',
    { textDocument = { uri = uri }, position = { line = line, character = character } })
  local value = result and result.contents.value or 'none'
  say(string.format('hover %s: %s', label, (value:gsub('\n', ' | '))))
end

-- 1. a YAML policy: clean as saved, then a typo typed into a condition, then completion, hover, the fix
local yaml, yaml_uri = open('examples/policies/treasury-limits.yaml')
diagnostics('treasury-limits.yaml as saved', yaml, yaml_uri)
-- line 16 (0-based 15): "    condition: withdrawal.value_usd > 250000"
vim.api.nvim_buf_set_lines(yaml, 15, 16, true, { '    condition: withdrawal.value_us > 250000' })
local typo = diagnostics('treasury-limits.yaml with a typo', yaml, yaml_uri)
local actions = request(yaml, 'textDocument/codeAction', {
  textDocument = { uri = yaml_uri },
  range = typo[1].range,
  context = { diagnostics = { typo[1] } },
})
for _, a in ipairs(actions) do
  local edit = a.edit.changes[yaml_uri][1]
  say(string.format('code action: %s -> %s %q', a.title, span(edit.range), edit.newText))
  vim.lsp.util.apply_workspace_edit(a.edit, 'utf-16')
end
say('line 16 after the fix: ' .. vim.api.nvim_buf_get_lines(yaml, 15, 16, true)[1])
diagnostics('treasury-limits.yaml fixed', yaml, yaml_uri)
-- typing on: the condition does not parse until the field is there, and completion offers the fields
vim.api.nvim_buf_set_lines(yaml, 15, 16, true, { '    condition: withdrawal.value_usd > 250000 && principal.' })
diagnostics('treasury-limits.yaml mid-edit', yaml, yaml_uri)
completion('after `principal.`', yaml, yaml_uri, 15, 58)
completion('after `withdrawal.`', yaml, yaml_uri, 15, 26)
hover('on `wallet.outflow_24h`', yaml, yaml_uri, 23, 14)
completion('of a rule key', yaml, yaml_uri, 12, 4)
completion('of `effect:`', yaml, yaml_uri, 13, 12)

local symbols = request(yaml, 'textDocument/documentSymbol', { textDocument = { uri = yaml_uri } })
for _, s in ipairs(symbols) do
  say(string.format('symbol %s (%s) %s', s.name, s.detail, span(s.range)))
  for _, r in ipairs(s.children or {}) do
    say(string.format('  rule %s (%s) %s', r.name, r.detail, span(r.range)))
  end
end

-- 2. a JSON policy of contract calls: its section's fields, malformed mid-edit, and the server still answers
local json, json_uri = open('examples/policies/erc20-allowlist.json')
diagnostics('erc20-allowlist.json as saved', json, json_uri)
-- line 28 (0-based 27): '        "condition": "resource.value_wei != \"0\""'
completion('after `resource.` in a contract call rule', json, json_uri, 27, 31)
vim.api.nvim_buf_set_lines(json, 27, 28, true, { '        "condition": "resource.value_wei != ' })
diagnostics('erc20-allowlist.json cut mid-edit', json, json_uri)
hover('on `resource.value_wei` while malformed', json, json_uri, 27, 28)

-- 3. shutdown and exit, as the editor quits
vim.lsp.stop_client(client_id)
if not vim.wait(30000, function() return exit_code ~= nil end, 20) then
  fail('the server did not exit')
end
say('server exit code: ' .. exit_code)
vim.cmd('qall!')
