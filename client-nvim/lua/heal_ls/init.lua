-- heal-ls for Neovim 0.11+: the built-in LSP client, commands, keymaps and a diff preview.
--
--   vim.opt.runtimepath:append("/path/to/heal-ls/client-nvim")  -- or copy lua/heal_ls/
--   require("heal_ls").setup({ settings = { provider = "local" } })
--
-- Starts `heal-ls serve` (vim.lsp.start) for every Python buffer, under the nearest project
-- root. Commands:
--   :HealFailingTest [nodeid]  heal the failing test under the cursor, the only one, or pick one
--   :HealPreview [nodeid]      the same, but the fix is shown as a diff and applied only if you say so
--   :HealRerun                 re-run the failed tests (a diagnostic whose test now passes clears)
--   :HealRunTests[!]           run the tests (! = this file's tests only)
--   :HealRunScript             run this file as a script; a crash becomes a diagnostic
local M = {}

M.defaults = {
  cmd = { "heal-ls", "serve" },
  root_markers = { "pyproject.toml", "pytest.ini", "setup.cfg", "setup.py", ".git" },
  -- The `heal` settings section; every key is optional (defaults: client-vscode/package.json).
  settings = { provider = "auto", autoVerifyOnSave = true, runOnStartup = false },
  preview = false, -- show every fix as a diff first (the VS Code extension's heal.previewFixes)
  keymaps = true, -- <leader>h{h,a,f,p,r,t} in buffers heal-ls is attached to
}

local config = M.defaults
local preview_next = false -- :HealPreview asked for one previewed fix

local function client_of(bufnr)
  return vim.lsp.get_clients({ name = "heal_ls", bufnr = bufnr })[1]
    or vim.lsp.get_clients({ name = "heal_ls" })[1]
end

--- Run a heal.* server command; the server reports the outcome itself (window/showMessage).
local function run(command, arguments)
  local client = client_of(0)
  if not client then
    return vim.notify("heal-ls is not running for this buffer", vim.log.levels.WARN)
  end
  client:exec_cmd({ title = command, command = command, arguments = arguments }, { bufnr = 0 },
    function(err)
      if err then vim.notify(command .. ": " .. err.message, vim.log.levels.ERROR) end
    end)
end

--- The test of a heal-ls diagnostic on the cursor's line, if there is one.
local function test_under_cursor()
  local client = client_of(0)
  if not client then return nil end
  local line = vim.api.nvim_win_get_cursor(0)[1] - 1
  local namespace = vim.lsp.diagnostic.get_namespace(client.id)
  for _, diag in ipairs(vim.diagnostic.get(0, { lnum = line, namespace = namespace })) do
    local data = diag.user_data and diag.user_data.lsp and diag.user_data.lsp.data
    if data and data.test then return data.test end
  end
end

local function heal(nodeid)
  local test = nodeid ~= "" and nodeid or test_under_cursor()
  run("heal.healFailingTest", test and { { test = test } } or {})
end

--- A unified diff of what `edit` (a WorkspaceEdit) does to each file, from scratch copies.
local function diff_of(edit, encoding)
  local by_uri = {}
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.textDocument then by_uri[change.textDocument.uri] = change.edits end
  end
  for uri, edits in pairs(edit.changes or {}) do by_uri[uri] = edits end
  local parts = {}
  for uri, edits in pairs(by_uri) do
    local source = vim.uri_to_bufnr(uri)
    vim.fn.bufload(source)
    local before = vim.api.nvim_buf_get_lines(source, 0, -1, false)
    local scratch = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_lines(scratch, 0, -1, false, before)
    vim.lsp.util.apply_text_edits(edits, scratch, encoding)
    local after = vim.api.nvim_buf_get_lines(scratch, 0, -1, false)
    vim.api.nvim_buf_delete(scratch, { force = true })
    local name = vim.fn.fnamemodify(vim.uri_to_fname(uri), ":.")
    table.insert(parts, ("--- a/%s\n+++ b/%s\n"):format(name, name)
      .. vim.diff(table.concat(before, "\n") .. "\n", table.concat(after, "\n") .. "\n", { ctxlen = 3 }))
  end
  return table.concat(parts)
end

--- Show the diff in a scratch window and ask; true when the user picks "Apply fix".
--- Runs inside the LSP request's coroutine, so it can wait for vim.ui.select.
local function confirmed_in_preview(diff, label)
  vim.cmd("botright new")
  local buf, win = vim.api.nvim_get_current_buf(), vim.api.nvim_get_current_win()
  vim.bo[buf].buftype, vim.bo[buf].bufhidden, vim.bo[buf].filetype = "nofile", "wipe", "diff"
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(diff, "\n", { trimempty = true }))
  vim.api.nvim_buf_set_name(buf, "heal-ls://preview/" .. buf)
  vim.bo[buf].modifiable = false
  vim.cmd("redraw")
  local co = coroutine.running()
  local prompt = "heal: " .. (label or "apply this fix?")
  vim.ui.select({ "Apply fix", "Discard" }, { prompt = prompt, kind = "heal_ls_preview" },
    function(choice) vim.schedule(function() coroutine.resume(co, choice) end) end)
  local choice = coroutine.yield()
  if vim.api.nvim_win_is_valid(win) then vim.api.nvim_win_close(win, true) end
  return choice == "Apply fix"
end

--- workspace/applyEdit: with a preview asked for, the fix waits for the user's answer.
local function apply_edit(err, params, ctx)
  local apply = vim.lsp.handlers["workspace/applyEdit"]
  if not (config.preview or preview_next) then return apply(err, params, ctx) end
  preview_next = false
  local client = assert(vim.lsp.get_client_by_id(ctx.client_id))
  if confirmed_in_preview(diff_of(params.edit, client.offset_encoding), params.label) then
    return apply(err, params, ctx)
  end
  return { applied = false, failureReason = "discarded in the preview" }
end

--- "Debug failing test" (a code action) runs here: the server starts the test under debugpy,
--- then nvim-dap attaches when it is installed.
local function debug_test(command, ctx)
  local client = assert(vim.lsp.get_client_by_id(ctx.client_id))
  client:request("workspace/executeCommand", command, function(err, where)
    if err or not where then
      return vim.notify("heal.debugTest: " .. (err and err.message or "no answer"), vim.log.levels.ERROR)
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

local function start(bufnr)
  if vim.bo[bufnr].buftype ~= "" then return end
  vim.lsp.start({
    name = "heal_ls",
    cmd = config.cmd,
    root_dir = vim.fs.root(bufnr, config.root_markers) or vim.fn.getcwd(),
    settings = { heal = config.settings },
    handlers = { ["workspace/applyEdit"] = apply_edit },
  }, { bufnr = bufnr })
end

local function set_keymaps(bufnr)
  local function map(lhs, rhs, desc)
    vim.keymap.set("n", lhs, rhs, { buffer = bufnr, desc = "heal-ls: " .. desc })
  end
  map("<leader>hh", function()
    vim.lsp.buf.code_action({
      apply = true,
      filter = function(action) return vim.startswith(action.title, "AI heal") end,
    })
  end, "AI heal the function under the cursor")
  map("<leader>ha", vim.lsp.buf.code_action, "all actions (heal, debug, re-run)")
  map("<leader>hf", "<cmd>HealFailingTest<cr>", "heal the failing test")
  map("<leader>hp", "<cmd>HealPreview<cr>", "heal the failing test, diff first")
  map("<leader>hr", "<cmd>HealRerun<cr>", "re-run the failed tests")
  map("<leader>ht", "<cmd>HealRunTests<cr>", "run the tests")
end

function M.setup(opts)
  config = vim.tbl_deep_extend("force", M.defaults, opts or {})
  vim.lsp.commands["heal.debugTest"] = debug_test
  local command = vim.api.nvim_create_user_command
  command("HealFailingTest", function(o) heal(o.args) end,
    { nargs = "?", desc = "heal-ls: heal the function behind a failing test" })
  command("HealPreview", function(o)
    preview_next = true
    heal(o.args)
  end, { nargs = "?", desc = "heal-ls: heal a failing test; show the fix as a diff first" })
  command("HealRerun", function() run("heal.rerunFailed", {}) end,
    { desc = "heal-ls: re-run the failed tests" })
  command("HealRunTests", function(o)
    run("heal.runTests", o.bang and { { uri = vim.uri_from_bufnr(0) } } or {})
  end, { bang = true, desc = "heal-ls: run the tests (! = this file's tests only)" })
  command("HealRunScript", function() run("heal.runScript", { { uri = vim.uri_from_bufnr(0) } }) end,
    { desc = "heal-ls: run this file as a script and show where it crashes" })

  local group = vim.api.nvim_create_augroup("heal_ls", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group, pattern = "python", callback = function(args) start(args.buf) end,
  })
  if config.keymaps then
    vim.api.nvim_create_autocmd("LspAttach", { group = group, callback = function(args)
      local client = vim.lsp.get_client_by_id(args.data.client_id)
      if client and client.name == "heal_ls" then set_keymaps(args.buf) end
    end })
  end
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do -- Python buffers opened before setup
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.bo[bufnr].filetype == "python" then start(bufnr) end
  end
end

return M
