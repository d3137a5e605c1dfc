-- Headless Neovim 0.11 test of "Verify against NetBox" (issue 21): the shipped lsp/netbox_lsp.lua
-- with init_options.instance pointing at scripts/live-replay.py (what NetBox 4.6.8 answered) and
-- init_options.live = { enabled = true }. Checks the code lenses, :NetboxVerifyCall on the first
-- call (only its verdict appears), :NetboxVerify on the buffer (the second call's verdict), the
-- diagnostics' source and counts, and the hover with the time of the check.
-- Run by scripts/nvim-e2e.sh as: nvim --headless --clean -u NONE -l live_e2e.lua SERVER URL
-- (token in $NETBOX_E2E_TOKEN).

local TIMEOUT_MS = 30000
local server, url = arg[1], arg[2]
local here = vim.fs.dirname(vim.fs.normalize(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p')))
local fixture = vim.fs.joinpath(here, 'live', 'skill.md')
local H = dofile(vim.fs.joinpath(here, 'harness.lua'))('nvim-live-e2e', TIMEOUT_MS)
local log, finish, wait_for, stderr_file = H.log, H.finish, H.wait_for, H.stderr_file

local verified = 0
vim.lsp.handlers['window/showMessage'] = function(_, result)
  if result and result.message then
    log('message: %s', result.message)
    if result.message:find('verified against', 1, true) then
      verified = verified + 1
    end
  end
end

vim.opt.runtimepath:prepend(vim.fs.dirname(here))
vim.cmd('filetype on')
vim.lsp.config('netbox_lsp', {
  cmd = { 'sh', '-c', 'exec "$0" --stdio 2>"$1"', server, stderr_file },
  init_options = {
    instance = { url = url, tokenEnv = 'NETBOX_E2E_TOKEN' },
    live = { enabled = true },
  },
})
vim.lsp.enable('netbox_lsp')
vim.cmd.edit(vim.fn.fnameescape(fixture))
local bufnr = vim.api.nvim_get_current_buf()

wait_for('the client to attach', function()
  return vim.lsp.get_clients({ bufnr = bufnr, name = 'netbox_lsp' })[1] ~= nil
end)
local client = vim.lsp.get_clients({ bufnr = bufnr, name = 'netbox_lsp' })[1]
log('attached to %s, instance %s', server, url)

local function live_at(lnum)
  for _, d in ipairs(vim.diagnostic.get(bufnr, { lnum = lnum })) do
    if d.source == 'netbox (live)' then
      return d
    end
  end
end

wait_for('the static diagnostic on device_role_id', function()
  for _, d in ipairs(vim.diagnostic.get(bufnr, { lnum = 4 })) do
    if d.code == 'unknown-filter' then
      return true
    end
  end
end)

-- Code lenses: one per call, one for the buffer.
vim.lsp.codelens.refresh({ bufnr = bufnr })
wait_for('the code lenses', function()
  return #vim.lsp.codelens.get(bufnr) >= 3
end)
local titles = {}
for _, l in ipairs(vim.lsp.codelens.get(bufnr)) do
  titles[#titles + 1] = string.format('%d:%s', l.range.start.line + 1, l.command and l.command.title or '?')
end
table.sort(titles)
log('code lenses: %s', table.concat(titles, ' | '))
local want = { '1:Verify document against NetBox (2 calls)', '3:Verify against NetBox', '5:Verify against NetBox' }
if table.concat(titles, '|') ~= table.concat(want, '|') then
  finish(1, 'code lenses are ' .. vim.inspect(titles))
end

-- :NetboxVerifyCall on the first call: only its verdict.
vim.api.nvim_win_set_cursor(0, { 3, 25 })
vim.cmd('NetboxVerifyCall')
wait_for('the verdict of the first call', function()
  return live_at(2) ~= nil
end)
local d = live_at(2)
log('diagnostic 3:%d [%s] %s: %s', d.col + 1, d.code, d.source, d.message)
if d.code ~= 'live-narrowed' or not d.message:find('19 of 72 objects', 1, true) or not d.message:find('(checked ', 1, true) then
  finish(1, 'unexpected verdict on line 3: ' .. d.code .. ' ' .. d.message)
end
if live_at(4) then
  finish(1, ':NetboxVerifyCall verified the other call too')
end

-- The hover shows the verdict with its counts and time.
local resp = client:request_sync('textDocument/hover', {
  textDocument = vim.lsp.util.make_text_document_params(bufnr),
  position = { line = 2, character = 25 },
}, 10000, bufnr)
local hover = resp and resp.result and resp.result.contents and resp.result.contents.value or ''
if not (hover:find('NetBox (live)', 1, true) and hover:find('19 of 72', 1, true) and hover:find('checked', 1, true)) then
  finish(1, 'hover lacks the live verdict: ' .. hover)
end
log('hover: %s', (hover:gsub('\n', ' ')))

-- :NetboxVerify on the buffer: the second call too.
vim.cmd('NetboxVerify')
wait_for('the verdict of the second call', function()
  return live_at(4) ~= nil
end)
d = live_at(4)
log('diagnostic 5:%d [%s] %s: %s', d.col + 1, d.code, d.source, d.message)
if d.code ~= 'live-unchanged' or not d.message:find('ignored `device_role_id`', 1, true) then
  finish(1, 'unexpected verdict on line 5: ' .. d.code .. ' ' .. d.message)
end
wait_for('two verifications reported', function()
  return verified >= 2
end)
finish(0, 'code lenses, :NetboxVerifyCall, :NetboxVerify, live diagnostics and hover')
