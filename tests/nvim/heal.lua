-- heal-ls for Neovim 0.11+ (the built-in LSP client, no plugin needed).
-- Copy into your config (for example ~/.config/nvim/plugin/heal.lua) and adjust.
-- Needs `heal-ls` on PATH (pip install heal-ls) in an environment that has pytest.

vim.lsp.config("heal_ls", {
  cmd = vim.g.heal_ls_cmd or { "heal-ls", "serve" },
  filetypes = { "python" },
  root_markers = { "pyproject.toml", "pytest.ini", "setup.cfg", "setup.py", ".git" },
  -- The `heal` section; every key is optional (defaults in the VS Code extension's package.json).
  settings = {
    heal = vim.tbl_extend("force", {
      provider = "auto", -- "auto" | "anthropic" | "openai" | "local"
      autoVerifyOnSave = true,
      runOnStartup = false,
    }, vim.g.heal_ls_settings or {}),
  },
})
vim.lsp.enable("heal_ls")

local function heal_client(bufnr)
  return vim.lsp.get_clients({ name = "heal_ls", bufnr = bufnr })[1]
    or vim.lsp.get_clients({ name = "heal_ls" })[1]
end

-- Run a heal.* server command; `on_done(result)` is optional.
local function heal_command(command, arguments, on_done)
  local client = heal_client(0)
  if not client then
    vim.notify("heal-ls is not running for this buffer", vim.log.levels.WARN)
    return
  end
  client:exec_cmd({ title = command, command = command, arguments = arguments }, { bufnr = 0 },
    function(err, result)
      if err then
        vim.notify(command .. ": " .. err.message, vim.log.levels.ERROR)
      elseif on_done then
        on_done(result)
      end
    end)
end

-- "Debug failing test" (a code action) runs here, not on the server: ask the server to start
-- the test under debugpy, then attach with nvim-dap when it is installed.
vim.lsp.commands["heal.debugTest"] = function(command, ctx)
  local client = assert(vim.lsp.get_client_by_id(ctx.client_id))
  client:request("workspace/executeCommand", command, function(err, where)
    if err or not where then
      vim.notify("heal.debugTest: " .. (err and err.message or "no answer"), vim.log.levels.ERROR)
      return
    end
    local ok, dap = pcall(require, "dap")
    if ok then
      dap.run({ type = "python", request = "attach", name = "Debug " .. where.test,
        connect = { host = where.host, port = where.port }, justMyCode = false })
    else
      vim.notify(("heal: debugpy waits on %s:%d for %s (attach a DAP client)")
        :format(where.host, where.port, where.test), vim.log.levels.INFO)
    end
  end, ctx.bufnr)
end

-- :HealFailingTest [nodeid]: heal the suspect of that test, of the only failure, or pick one.
-- The server reports the outcome itself (window/showMessage).
vim.api.nvim_create_user_command("HealFailingTest", function(opts)
  heal_command("heal.healFailingTest", opts.args ~= "" and { { test = opts.args } } or {})
end, { nargs = "?", desc = "heal-ls: heal the function behind a failing test" })

vim.api.nvim_create_user_command("HealRunTests", function(opts)
  heal_command("heal.runTests", opts.bang and { { uri = vim.uri_from_bufnr(0) } } or {})
end, { bang = true, desc = "heal-ls: run the tests (! = this file's tests only)" })

vim.api.nvim_create_user_command("HealRerunFailed", function()
  heal_command("heal.rerunFailed", {})
end, { desc = "heal-ls: re-run the failing tests" })

vim.api.nvim_create_user_command("HealRunScript", function()
  heal_command("heal.runScript", { { uri = vim.uri_from_bufnr(0) } })
end, { desc = "heal-ls: run this file as a script and show where it crashes" })

-- Keymaps, set when heal-ls attaches to a buffer.
vim.api.nvim_create_autocmd("LspAttach", {
  callback = function(args)
    local client = vim.lsp.get_client_by_id(args.data.client_id)
    if not client or client.name ~= "heal_ls" then
      return
    end
    local function map(lhs, rhs, desc)
      vim.keymap.set("n", lhs, rhs, { buffer = args.buf, desc = desc })
    end
    map("<leader>hh", function()
      vim.lsp.buf.code_action({
        apply = true,
        filter = function(action) return vim.startswith(action.title, "AI heal") end,
      })
    end, "heal-ls: AI heal the function under the cursor")
    map("<leader>ha", vim.lsp.buf.code_action, "heal-ls: all actions (heal, debug, re-run)")
    map("<leader>ht", "<cmd>HealRunTests<cr>", "heal-ls: run the tests")
    map("<leader>hf", "<cmd>HealFailingTest<cr>", "heal-ls: heal a failing test")
  end,
})
