-- What the instance and live tests share: timed log lines, bounded waits, and a finish that
-- reports the server's stderr and the buffer's diagnostics, stops the clients and exits.
-- Use: local H = dofile(vim.fs.joinpath(here, 'harness.lua'))('nvim-live-e2e', 30000)

return function(name, timeout_ms)
  local H = { stderr_file = vim.fn.tempname() }
  local start = vim.uv.hrtime()

  function H.log(fmt, ...)
    io.stdout:write(string.format('[%5d ms] ' .. fmt .. '\n', math.floor((vim.uv.hrtime() - start) / 1e6), ...))
  end

  function H.finish(code, msg)
    if code ~= 0 then
      io.stderr:write(name .. ': FAIL: ' .. msg .. '\n')
      local lines = vim.fn.filereadable(H.stderr_file) == 1 and vim.fn.readfile(H.stderr_file, '', -20) or {}
      for _, l in ipairs(lines) do
        io.stderr:write('    ' .. l .. '\n')
      end
      for _, d in ipairs(vim.diagnostic.get(0)) do
        io.stderr:write(string.format('  diag %d:%d [%s] %s: %s\n', d.lnum + 1, d.col + 1, tostring(d.code), tostring(d.source), d.message))
      end
    else
      H.log('PASS: %s', msg)
    end
    io.stdout:flush()
    for _, c in ipairs(vim.lsp.get_clients({ _uninitialized = true })) do
      c:stop(true)
    end
    vim.wait(500, function()
      return #vim.lsp.get_clients({ _uninitialized = true }) == 0
    end, 20)
    os.exit(code)
  end

  function H.wait_for(what, pred)
    if not vim.wait(timeout_ms, pred, 50) then
      H.finish(1, 'timed out waiting for ' .. what)
    end
  end

  return H
end
