-- Headless Neovim 0.11 end-to-end test of netbox-lsp through the shipped lsp/netbox_lsp.lua.
-- Run by scripts/nvim-e2e.sh as: nvim --headless --clean -u NONE -l editors/nvim/test/e2e.lua SERVER
-- Steps: open fixtures/SKILL.md → wait for an `unknown-filter` diagnostic (source netbox-lsp) on the
-- `device_role_id` line → ask for code actions there → apply the `role_id` quick-fix → check the
-- buffer line → check the server drops the diagnostic after the edit. Every wait is bounded
-- (TIMEOUT_MS); on failure it prints what it saw (client state, server stderr, diagnostics,
-- actions) and exits 1.

local TIMEOUT_MS = 10000
local POLL_MS = 20

local server = arg[1] or os.getenv('NETBOX_LSP_BIN')
local here = vim.fs.dirname(vim.fs.normalize(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p')))
local nvim_dir = vim.fs.dirname(here) -- editors/nvim: holds lsp/netbox_lsp.lua
local fixture = vim.fs.joinpath(here, 'fixtures', 'SKILL.md')
local start = vim.uv.hrtime()
-- The server's stderr normally goes to the LSP log; a shell redirect keeps it for the report.
local stderr_file = vim.fn.tempname()

local function elapsed_ms()
  return math.floor((vim.uv.hrtime() - start) / 1e6)
end

local function log(fmt, ...)
  io.stdout:write(string.format('[%5d ms] ' .. fmt .. '\n', elapsed_ms(), ...))
end

-- What the client saw, for the failure report.
local seen = { exit = nil, attached = false, actions = {} }

local function report_and_exit(code, msg)
  if code ~= 0 then
    io.stderr:write('nvim-e2e: FAIL: ' .. msg .. '\n')
    local bufnr = vim.fn.bufnr(fixture)
    local clients = vim.lsp.get_clients({ name = 'netbox_lsp' })
    local starting = #vim.lsp.get_clients({ name = 'netbox_lsp', _uninitialized = true }) - #clients
    io.stderr:write(
      string.format('  clients initialized: %d, still initializing: %d, attached: %s\n', #clients, starting, tostring(seen.attached))
    )
    if seen.exit then
      io.stderr:write(string.format('  server exited: code %s, signal %s\n', tostring(seen.exit.code), tostring(seen.exit.signal)))
    end
    for _, c in ipairs(clients) do
      local caps = c.server_capabilities or {}
      io.stderr:write(string.format('  server capabilities: %s\n', vim.json.encode(caps)))
    end
    local errlines = vim.fn.filereadable(stderr_file) == 1 and vim.fn.readfile(stderr_file, '', -20) or {}
    if #errlines > 0 then
      io.stderr:write('  server stderr (last lines):\n')
      for _, l in ipairs(errlines) do
        io.stderr:write('    ' .. l .. '\n')
      end
    end
    local diags = bufnr > 0 and vim.diagnostic.get(bufnr) or {}
    io.stderr:write(string.format('  diagnostics in %s: %d\n', vim.fn.fnamemodify(fixture, ':~:.'), #diags))
    for _, d in ipairs(diags) do
      io.stderr:write(string.format('    %d:%d [%s/%s] %s\n', d.lnum + 1, d.col + 1, tostring(d.source), tostring(d.code), d.message))
    end
    for _, a in ipairs(seen.actions) do
      io.stderr:write(string.format('  code action: %q (kind %s, preferred %s)\n', a.title or '?', tostring(a.kind), tostring(a.isPreferred)))
    end
  else
    log('PASS: %s', msg)
  end
  io.stdout:flush()
  io.stderr:flush()
  -- Stop the server (forcefully: it may be hung) so no process outlives the test.
  -- (`_uninitialized` also finds a client still waiting for its `initialize` answer.)
  for _, c in ipairs(vim.lsp.get_clients({ _uninitialized = true })) do
    c:stop(true)
  end
  vim.wait(500, function()
    return #vim.lsp.get_clients({ _uninitialized = true }) == 0
  end, POLL_MS)
  os.exit(code)
end

local function fail(msg)
  report_and_exit(1, msg)
end

local function wait_for(what, pred)
  local ok = vim.wait(TIMEOUT_MS, function()
    return seen.exit ~= nil or pred()
  end, POLL_MS)
  if ok and not pred() then
    fail(string.format('the server exited while waiting for %s', what))
  elseif not ok then
    fail(string.format('timed out after %d ms waiting for %s', TIMEOUT_MS, what))
  end
end

if not server or server == '' then
  fail('no server binary given (first argument or NETBOX_LSP_BIN)')
end
if vim.fn.executable(server) ~= 1 then
  fail('server is not executable: ' .. server)
end
if vim.fn.has('nvim-0.11') ~= 1 then
  fail('Neovim 0.11 or newer is needed, this is ' .. tostring(vim.version()))
end

-- Use the shipped config exactly as a user would (runtimepath lsp/netbox_lsp.lua), only pointing
-- `cmd` at the binary under test.
vim.opt.runtimepath:prepend(nvim_dir)
vim.cmd('filetype on')
vim.lsp.config('netbox_lsp', {
  cmd = { 'sh', '-c', 'exec "$0" --stdio 2>"$1"', server, stderr_file },
  on_exit = function(code, signal)
    seen.exit = { code = code, signal = signal }
  end,
})
vim.api.nvim_create_autocmd('LspAttach', {
  callback = function(ev)
    local c = vim.lsp.get_client_by_id(ev.data.client_id)
    if c and c.name == 'netbox_lsp' then
      seen.attached = true
    end
  end,
})
vim.lsp.enable('netbox_lsp')

log('server %s', server)
vim.cmd.edit(vim.fn.fnameescape(fixture))
local bufnr = vim.api.nvim_get_current_buf()
if vim.bo[bufnr].filetype ~= 'markdown' then
  fail('fixture filetype is ' .. vim.bo[bufnr].filetype .. ', expected markdown')
end

-- The line under test: the first one that mentions device_role_id (0-based).
local target
for i, line in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
  if line:find('device_role_id', 1, true) then
    target = i - 1
    break
  end
end
if not target then
  fail('fixture has no device_role_id line')
end

wait_for('the netbox_lsp client to attach', function()
  return seen.attached
end)
local client = vim.lsp.get_clients({ bufnr = bufnr, name = 'netbox_lsp' })[1]
if not client then
  fail('no netbox_lsp client attached to the buffer')
end
log('attached: root %s, position encoding %s', tostring(client.root_dir), tostring(client.offset_encoding))

local function unknown_filter_on_target()
  for _, d in ipairs(vim.diagnostic.get(bufnr, { lnum = target })) do
    if d.source == 'netbox-lsp' and d.code == 'unknown-filter' then
      return d
    end
  end
end

wait_for(string.format('an unknown-filter diagnostic from netbox-lsp on line %d', target + 1), function()
  return unknown_filter_on_target() ~= nil
end)
local diag = unknown_filter_on_target()
log('diagnostic %d:%d [%s] %s', diag.lnum + 1, diag.col + 1, diag.code, diag.message)

-- Ask for code actions over the diagnostic's own LSP range, with it in the context.
local lsp_diag = diag.user_data and diag.user_data.lsp
if not lsp_diag then
  fail('the diagnostic carries no LSP payload (user_data.lsp)')
end
local params = {
  textDocument = vim.lsp.util.make_text_document_params(bufnr),
  range = lsp_diag.range,
  context = { diagnostics = { lsp_diag }, only = { 'quickfix' }, triggerKind = 1 },
}
local resp, err = client:request_sync('textDocument/codeAction', params, TIMEOUT_MS, bufnr)
if not resp then
  fail('textDocument/codeAction got no answer: ' .. tostring(err))
end
if resp.err then
  fail('textDocument/codeAction failed: ' .. vim.inspect(resp.err))
end
seen.actions = resp.result or {}
log('%d code action(s)', #seen.actions)

-- Whether a code action's edit (either WorkspaceEdit form) inserts text containing `needle`.
local function edit_inserts(action, needle)
  local edit = action.edit or {}
  local lists = {}
  for _, edits in pairs(edit.changes or {}) do
    table.insert(lists, edits)
  end
  for _, change in ipairs(edit.documentChanges or {}) do
    table.insert(lists, change.edits or {})
  end
  for _, edits in ipairs(lists) do
    for _, e in ipairs(edits) do
      if (e.newText or ''):find(needle, 1, true) then
        return true
      end
    end
  end
  return false
end

-- The quick-fix: an action (not a bare Command) whose title or edit names role_id; preferred first.
local fix
for _, a in ipairs(seen.actions) do
  local names_it = (a.title or ''):find('role_id', 1, true) or edit_inserts(a, 'role_id')
  if names_it and type(a.command) ~= 'string' then
    if not fix or (a.isPreferred and not fix.isPreferred) then
      fix = a
    end
  end
end
if not fix then
  fail('no code action whose title or edit mentions role_id')
end
log('applying %q', fix.title)
if not fix.edit and not fix.command and client:supports_method('codeAction/resolve') then
  local r = client:request_sync('codeAction/resolve', fix, TIMEOUT_MS, bufnr)
  if not r or r.err then
    fail('codeAction/resolve failed: ' .. vim.inspect(r and r.err))
  end
  fix = r.result
end
if fix.edit then
  vim.lsp.util.apply_workspace_edit(fix.edit, client.offset_encoding)
end
if fix.command then
  client:exec_cmd(fix.command, { bufnr = bufnr })
end
if not fix.edit and not fix.command then
  fail('the role_id action has neither an edit nor a command')
end

wait_for('the quick-fix to change the buffer', function()
  local line = vim.api.nvim_buf_get_lines(bufnr, target, target + 1, false)[1] or ''
  return line:find('role_id', 1, true) ~= nil and line:find('device_role_id', 1, true) == nil
end)
local line = vim.api.nvim_buf_get_lines(bufnr, target, target + 1, false)[1]
log('line %d now: %s', target + 1, line)
if not line:find('"role_id": 3', 1, true) then
  fail('the fixed line lost its shape: ' .. line)
end

-- The edit reaches the server as didChange; the re-check must drop the finding.
wait_for('the unknown-filter diagnostic to clear after the fix', function()
  return unknown_filter_on_target() == nil
end)

report_and_exit(0, 'unknown-filter reported, role_id quick-fix applied, diagnostic cleared')
