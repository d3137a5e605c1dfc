-- Headless Neovim 0.11 test of netbox-lsp with the user's own NetBox (issue 10 §3): the shipped
-- lsp/netbox_lsp.lua with init_options.instance pointing at scripts/instance-replay.py (the real
-- answers of a customised NetBox 4.6.8). Waits until the knowledge built from it flags the wrong
-- `cf_vm_tier` on devices (a VM-only custom field), then completes the plugin filter `peer_gr` →
-- `peer_group` on /api/plugins/bgp/session/, and that :NetboxRebuildIndex rebuilds the knowledge.
-- Run by scripts/nvim-e2e.sh as: nvim --headless --clean -u NONE -l instance_e2e.lua SERVER URL
-- (token in $NETBOX_E2E_TOKEN, caches in $XDG_CACHE_HOME).

local TIMEOUT_MS = 60000
local server, url = arg[1], arg[2]
local here = vim.fs.dirname(vim.fs.normalize(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p')))
local fixture = vim.fs.joinpath(here, 'instance', 'skill.py')
local H = dofile(vim.fs.joinpath(here, 'harness.lua'))('nvim-instance-e2e', TIMEOUT_MS)
local log, finish, wait_for, stderr_file = H.log, H.finish, H.wait_for, H.stderr_file

-- Count the server's "knowledge … ready" messages (one per build).
local ready = 0
vim.lsp.handlers['window/showMessage'] = function(_, result)
  if result and result.message and result.message:find('ready', 1, true) then
    ready = ready + 1
    log('message: %s', result.message)
  end
end

vim.opt.runtimepath:prepend(vim.fs.dirname(here))
vim.cmd('filetype on')
vim.lsp.config('netbox_lsp', {
  cmd = { 'sh', '-c', 'exec "$0" --stdio 2>"$1"', server, stderr_file },
  init_options = { instance = { url = url, tokenEnv = 'NETBOX_E2E_TOKEN' } },
})
vim.lsp.enable('netbox_lsp')
vim.cmd.edit(vim.fn.fnameescape(fixture))
local bufnr = vim.api.nvim_get_current_buf()

wait_for('the client to attach', function()
  return vim.lsp.get_clients({ bufnr = bufnr, name = 'netbox_lsp' })[1] ~= nil
end)
local client = vim.lsp.get_clients({ bufnr = bufnr, name = 'netbox_lsp' })[1]
log('attached to %s, instance %s', server, url)

local function wrong_cf()
  for _, d in ipairs(vim.diagnostic.get(bufnr, { lnum = 3 })) do
    if d.code == 'unknown-filter' and d.message:find('vm_tier', 1, true) then
      return d
    end
  end
end
wait_for('the instance knowledge to flag cf_vm_tier on devices', function()
  return wrong_cf() ~= nil
end)
log('diagnostic 4:%d [%s] %s', wrong_cf().col + 1, wrong_cf().code, wrong_cf().message)

local line = vim.api.nvim_buf_get_lines(bufnr, 4, 5, false)[1]
local col = line:find('peer_gr', 1, true) + #'peer_gr' - 1
local resp = client:request_sync('textDocument/completion', {
  textDocument = vim.lsp.util.make_text_document_params(bufnr),
  position = { line = 4, character = col },
}, 10000, bufnr)
if not resp or resp.err then
  finish(1, 'completion failed: ' .. vim.inspect(resp and resp.err))
end
local items = resp.result and (resp.result.items or resp.result) or {}
local found = false
for _, it in ipairs(items) do
  if it.label == 'peer_group' then
    found = true
  end
end
if not found then
  finish(1, string.format('no peer_group among %d completion items', #items))
end
log('completion after `peer_gr` on /api/plugins/bgp/session/ offers peer_group (%d items)', #items)
if vim.fn.exists(':NetboxRebuildIndex') ~= 2 then
  finish(1, ':NetboxRebuildIndex is not defined')
end
wait_for('the first build to be reported ready', function()
  return ready >= 1
end)
vim.cmd('NetboxRebuildIndex')
wait_for(':NetboxRebuildIndex to rebuild the knowledge', function()
  return ready >= 2
end)
finish(0, 'plugin filter completed, wrong cf_ flagged, :NetboxRebuildIndex rebuilt the knowledge')
