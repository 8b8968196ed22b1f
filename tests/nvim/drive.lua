-- Headless driver: nvim --headless -u NONE -c "luafile drive.lua"
-- env: HEAL_PY (python with heal-ls), HEAL_FILE (file to open), HEAL_MODE ("action" | "command"
-- | "debug" | "follow" | "preview" | "rerun"). heal-ls is set up through client-nvim's module only.
local function out(s) io.stdout:write(s .. "\n") end
local function fail(msg)
  io.stdout:write("FAIL: " .. msg .. "\n")
  vim.cmd("cquit 1")
end
local here = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h")
local mode = os.getenv("HEAL_MODE")

vim.opt.runtimepath:append(vim.fs.normalize(here .. "/../../client-nvim"))
vim.cmd("filetype on")
require("heal_ls").setup({
  cmd = { os.getenv("HEAL_PY"), "-m", "heal_ls", "serve" },
  settings = { provider = "local", autoVerifyOnSave = mode ~= "rerun" },
})

if vim.fn.exists(":HealFailingTest") ~= 2 then return fail("no :HealFailingTest command") end
local messages = {}
vim.lsp.handlers["window/showMessage"] = function(_, r) table.insert(messages, r.message) end

vim.cmd.edit(os.getenv("HEAL_FILE"))
local buf = vim.api.nvim_get_current_buf()
if not vim.wait(30000, function() return #vim.lsp.get_clients({ bufnr = buf }) > 0 end, 50) then
  return fail("heal-ls did not attach")
end
out("attached: " .. vim.lsp.get_clients({ bufnr = buf })[1].name)

local function diagnostics_of(severity)
  return vim.diagnostic.get(buf, { severity = vim.diagnostic.severity[severity] })
end

if mode == "follow" then
  -- the user runs pytest in a terminal: heal-ls follows its lastfailed cache, no command needed
  vim.fn.system({ os.getenv("HEAL_PY"), "-m", "pytest", "-q" })
  if not vim.wait(60000, function() return #diagnostics_of("ERROR") > 0 end, 100) then
    return fail("the terminal run's failure did not show up")
  end
  out("followed: " .. diagnostics_of("ERROR")[1].message)
  local diag = diagnostics_of("ERROR")[1]
  vim.api.nvim_win_set_cursor(0, { diag.lnum + 1, diag.col })
  vim.lsp.buf.code_action({ apply = true, filter = function(a) return vim.startswith(a.title, "AI heal") end })
  if not vim.wait(120000, function() return #diagnostics_of("INFO") > 0 end, 100) then
    return fail("no flaky note; messages: " .. vim.inspect(messages))
  end
  out("flaky note: " .. diagnostics_of("INFO")[1].message)
  local params = vim.lsp.util.make_range_params(0, "utf-16")
  params.context = { diagnostics = {} }
  local titles = {}
  for _, answer in pairs(vim.lsp.buf_request_sync(buf, "textDocument/codeAction", params, 10000) or {}) do
    for _, action in ipairs(answer.result or {}) do table.insert(titles, action.title) end
  end
  out("actions: " .. table.concat(titles, " | "))
  out("messages: " .. table.concat(messages, " | "))
  for _, client in ipairs(vim.lsp.get_clients()) do client:stop() end
  vim.wait(3000, function() return #vim.lsp.get_clients() == 0 end, 50)
  out("OK")
  return vim.cmd("qall!")
end

vim.cmd("HealRunTests")
local function heal_diagnostics()
  return vim.diagnostic.get(buf, { severity = vim.diagnostic.severity.ERROR })
end
if not vim.wait(120000, function() return #heal_diagnostics() > 0 end, 100) then
  return fail("no diagnostic")
end
local diag = heal_diagnostics()[1]
out(("diagnostic: line %d: %s"):format(diag.lnum + 1, diag.message))

if mode == "debug" then
  local notes = {}
  vim.notify = function(msg) table.insert(notes, msg) end
  vim.api.nvim_win_set_cursor(0, { diag.lnum + 1, diag.col })
  vim.lsp.buf.code_action({ apply = true, filter = function(a) return a.title == "Debug failing test" end })
  if not vim.wait(60000, function() return #notes > 0 end, 100) then return fail("no debug answer") end
  out("debug: " .. notes[1])
  for _, client in ipairs(vim.lsp.get_clients()) do client:stop() end
  vim.wait(3000, function() return #vim.lsp.get_clients() == 0 end, 50)
  out("OK")
  return vim.cmd("qall!")
end

local function buffer_text() return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n") end
local before = buffer_text()

if mode == "rerun" then
  -- fixed by hand and saved (autoVerifyOnSave is off): the diagnostic stays until :HealRerun
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(before:gsub("<= 1", "== 0"), "\n"))
  vim.cmd("write")
  if #heal_diagnostics() == 0 then return fail("the diagnostic cleared without a re-run") end
  vim.cmd("HealRerun")
  if not vim.wait(60000, function() return #heal_diagnostics() == 0 end, 100) then
    return fail("the diagnostic did not clear; messages: " .. vim.inspect(messages))
  end
  out("rerun cleared the diagnostic")
  for _, client in ipairs(vim.lsp.get_clients()) do client:stop() end
  vim.wait(3000, function() return #vim.lsp.get_clients() == 0 end, 50)
  out("OK")
  return vim.cmd("qall!")
end

if mode == "preview" then
  -- :HealPreview shows the fix as a diff and asks; "Discard" leaves the buffer as it was
  local asked
  vim.ui.select = function(items, opts, on_choice)
    local shown = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
    asked = { prompt = opts.prompt, items = table.concat(items, " | "), diff = shown }
    on_choice("Discard")
  end
  vim.api.nvim_win_set_cursor(0, { diag.lnum + 1, diag.col })
  vim.cmd("HealPreview")
  local function discarded()
    return vim.iter(messages):any(function(m) return m:find("discarded in the preview", 1, true) end)
  end
  if not vim.wait(180000, discarded, 100) then
    return fail("no preview answered; messages: " .. vim.inspect(messages))
  end
  out(("preview: %s [%s]"):format(asked.prompt, asked.items))
  io.stdout:write("DIFF-BEGIN\n" .. asked.diff .. "\nDIFF-END\n")
  if buffer_text() ~= before then return fail("the discarded fix reached the buffer") end
  out("windows after the preview: " .. #vim.api.nvim_list_wins())
end

if mode == "command" or mode == "preview" then
  vim.cmd("HealFailingTest")
else
  vim.api.nvim_win_set_cursor(0, { diag.lnum + 1, diag.col })
  vim.lsp.buf.code_action({
    apply = true,
    filter = function(a) return vim.startswith(a.title, "AI heal") end,
  })
end
if not vim.wait(180000, function() return buffer_text() ~= before end, 100) then
  return fail("the buffer was not healed; messages: " .. vim.inspect(messages))
end
out("healed: " .. (vim.bo[buf].modified and "buffer modified, not saved" or "buffer saved?!"))
if not vim.wait(120000, function() return #heal_diagnostics() == 0 end, 100) then
  return fail("the diagnostic did not clear")
end
out("diagnostics cleared")
io.stdout:write("BUFFER-BEGIN\n" .. buffer_text() .. "\nBUFFER-END\n")
for _, client in ipairs(vim.lsp.get_clients()) do client:stop() end
vim.wait(3000, function() return #vim.lsp.get_clients() == 0 end, 50)
out("OK")
vim.cmd("qall!")
