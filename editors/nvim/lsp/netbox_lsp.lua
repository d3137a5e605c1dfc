-- netbox-lsp for Neovim 0.11+ (vim.lsp.config format, as nvim-lspconfig's lsp/*.lua files).
--
-- Put editors/nvim on 'runtimepath' (or copy this file to ~/.config/nvim/lsp/netbox_lsp.lua), then
--   vim.lsp.enable('netbox_lsp')
-- Override any field with vim.lsp.config('netbox_lsp', { ... }); see editors/nvim/README.md.
--
-- Both `init_options` (sent in `initialize`) and `settings.netboxLsp` (the answer to the server's
-- workspace/configuration requests for section `netboxLsp`) take the keys of netbox-lsp.toml:
--   netbox_version = '4.3',                 -- NetBox version to check against; default: newest embedded
--   index = '/path/to/netbox.idx',          -- built by `netbox-lsp index build`
--   graphql_schema = '/path/to/schema.graphql',
--   severity = { ['unknown-filter'] = 'warning' },
--   exclude = { 'vendor/**' },
--   upgrade_to = '4.7',                     -- also report what breaks on that newer release
-- Your own NetBox (init_options only, from your own config: the token is sent only to this URL):
--   instance = { url = 'https://netbox.example.com', tokenEnv = 'NETBOX_TOKEN' },
-- :NetboxRebuildIndex rebuilds the knowledge from it (workspace/executeCommand netbox-lsp.rebuildIndex).
-- Live checks against it (off unless you turn them on here, or with NETBOX_LSP_LIVE=1):
--   live = { enabled = true, verifyOnSave = false, maxRequests = 200, graphqlLimit = 50 },
-- :NetboxVerify verifies the buffer's calls against your NetBox, :NetboxVerifyCall the call under
-- the cursor (workspace/executeCommand netbox-lsp.verify); the code lenses "Verify against NetBox"
-- are shown (vim.lsp.codelens) and run with vim.lsp.codelens.run().
-- Agent rule files without `.md` (`*.mdc`, `.cursorrules`, `.windsurfrules`) attach once they have
-- the markdown filetype: vim.filetype.add({ extension = { mdc = 'markdown' },
--   filename = { ['.cursorrules'] = 'markdown', ['.windsurfrules'] = 'markdown' } })
-- The defaults are vim.empty_dict() rather than {} so that, left empty, they reach the server as a
-- JSON object ({}), not as an empty array ([]).

---@type vim.lsp.Config
return {
  cmd = { 'netbox-lsp', '--stdio' },
  filetypes = { 'markdown', 'python', 'yaml', 'json', 'graphql', 'text', 'sh', 'bash', 'jinja' },
  root_markers = { 'netbox-lsp.toml', '.git' },
  init_options = vim.empty_dict(),
  settings = {
    netboxLsp = vim.empty_dict(),
  },
  on_attach = function(client, bufnr)
    vim.api.nvim_buf_create_user_command(bufnr, 'NetboxRebuildIndex', function()
      client:request('workspace/executeCommand', { command = 'netbox-lsp.rebuildIndex', arguments = {} }, nil, bufnr)
    end, { desc = 'netbox-lsp: rebuild the knowledge from your NetBox' })
    local function verify(args)
      client:request('workspace/executeCommand', { command = 'netbox-lsp.verify', arguments = args }, nil, bufnr)
    end
    vim.api.nvim_buf_create_user_command(bufnr, 'NetboxVerify', function()
      verify({ vim.uri_from_bufnr(bufnr) })
    end, { desc = 'netbox-lsp: verify the calls of this buffer against your NetBox' })
    vim.api.nvim_buf_create_user_command(bufnr, 'NetboxVerifyCall', function()
      local pos = vim.lsp.util.make_position_params(0, client.offset_encoding).position
      verify({ vim.uri_from_bufnr(bufnr), { start = pos, ['end'] = pos } })
    end, { desc = 'netbox-lsp: verify the call under the cursor against your NetBox' })
    -- The "Verify against NetBox" lenses (none unless live checks are on).
    if client:supports_method('textDocument/codeLens') then
      vim.lsp.codelens.refresh({ bufnr = bufnr })
      vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'BufWritePost' }, {
        buffer = bufnr,
        callback = function()
          vim.lsp.codelens.refresh({ bufnr = bufnr })
        end,
      })
    end
  end,
}
