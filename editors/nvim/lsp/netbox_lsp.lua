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
-- Your own NetBox (init_options only, from your own config: the token is sent only to this URL):
--   instance = { url = 'https://netbox.example.com', tokenEnv = 'NETBOX_TOKEN' },
-- :NetboxRebuildIndex rebuilds the knowledge from it (workspace/executeCommand netbox-lsp.rebuildIndex).
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
  end,
}
