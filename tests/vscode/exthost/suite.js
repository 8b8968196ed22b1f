// Runs INSIDE the real VS Code extension host (loaded through the extensionTestsPath payload),
// with the real `vscode` API, on a copy of examples/inventory. Prints "CHECK PASS <name>" or
// "CHECK FAIL <name>: <why>" for each step; tests/vscode/test_vscode.py asserts on those lines.
// Env: WS (workspace), HEAL_FIXED_REMOVE (the fixed Inventory.remove the fake model answers).
const vscode = require('vscode');
const assert = require('assert');
const childProcess = require('child_process');
const fs = require('fs');
const net = require('net');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const FILE = `${process.env.WS}/shop/inventory.py`;
const FIXED = process.env.HEAL_FIXED_REMOVE;
const TEST_FILE = `${process.env.WS}/tests/test_inventory.py`;
const TEST_ID = 'tests/test_inventory.py::test_remove_all';

async function until(what, predicate, timeoutMs = 60000) {
  const t0 = Date.now();
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}

function withTimeout(promise, ms, what) {
  const timeout = new Promise((_, reject) =>
    setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms));
  return Promise.race([promise, timeout]);
}

/** Discard the refactor preview the heal opened. The preview counts as pending as soon as the
 * extension asks for it, but a discard sent before the panel is ready does nothing (the heal
 * then waits on the preview, and the next heal is refused as busy): ask again until it closes. */
async function discardPreview(api) {
  await until('the preview discarded', async () => {
    await vscode.commands.executeCommand('refactorPreview.discard');
    if (api.pendingPreviews() === 0) return true;
    await sleep(400);
    return api.pendingPreviews() === 0;
  }, 30000);
}

const healDiagnostics = (uri) =>
  vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'heal');

/** The 0-based line range of `def remove` (through the end of its body) in the document. */
function removeRange(doc) {
  const lines = doc.getText().split('\n');
  const start = lines.findIndex((l) => l.includes('def remove('));
  let end = start + 1;
  while (end < lines.length && (lines[end].startsWith('        ') || !lines[end].trim())) end++;
  return [start, end - 1];
}

// Compare line by line without indentation: the answer is dedented, the method is not.
const squash = (text) => text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean).join('\n');
const isFixed = (text) => squash(text).includes(squash(FIXED));

async function runTestsUntilFailing(api, uri) {
  await vscode.commands.executeCommand('heal-ls.runTests');
  return until('a heal diagnostic', () => healDiagnostics(uri)[0]);
}

/** Put the bug back and save, so a test run finds it again. */
async function restoreBug() {
  const buggy = state.doc.getText().replace('if self.items[name] == 0:', 'if self.items[name] <= 1:');
  const edit = new vscode.WorkspaceEdit();
  edit.replace(state.uri, new vscode.Range(0, 0, state.doc.lineCount, 0), buggy);
  assert.ok(await vscode.workspace.applyEdit(edit));
  assert.ok(!isFixed(state.doc.getText()), 'bug restored');
  assert.ok(await state.doc.save());
}

/** What the Testing view shows for test_remove_all once it is `state`. */
const shownAs = (wanted, timeoutMs = 30000) => until(`test_remove_all ${wanted} in the Testing view`, () => {
  const shown = state.api.tests.shown.get(TEST_ID);
  return shown && shown.state === wanted && shown;
}, timeoutMs);

/** Change the file on disk only, as another tool would: no save, so no on-save run. */
async function writeOnDisk(text) {
  fs.writeFileSync(FILE, text);
  await until('the editor to reload the file', () => state.doc.getText() === text, 20000);
}
const bugOnDisk = () => writeOnDisk(fs.readFileSync(FILE, 'utf8').replace('if self.items[name] == 0:', 'if self.items[name] <= 1:'));
const fixOnDisk = () => writeOnDisk(fs.readFileSync(FILE, 'utf8').replace('if self.items[name] <= 1:', 'if self.items[name] == 0:'));

/** The user's own pytest run in a terminal: it rewrites .pytest_cache/v/cache/lastfailed. */
function usersPytestRun() {
  const python = vscode.workspace.getConfiguration('heal').get('interpreter');
  const argv = ['-m', 'pytest', '-q'];
  return new Promise((resolve) =>
    childProcess.execFile(python, argv, { cwd: process.env.WS, timeout: 120000 }, () => resolve()));
}

const steps = [];
const step = (name, fn) => steps.push({ name, fn });
const state = {};

step('activates', async () => {
  const ext = vscode.extensions.getExtension('heal-ls.heal-ls');
  assert.ok(ext, 'extension heal-ls.heal-ls is installed');
  state.api = await ext.activate();
  await until('a running client', () => state.api.server.client && state.api.server.client.isRunning());
  assert.ok(state.api.server.pid > 0, 'server process id');
  const cmdline = fs.readFileSync(`/proc/${state.api.server.pid}/cmdline`, 'utf8').split('\0');
  assert.deepStrictEqual(cmdline.slice(1, 4), ['-m', 'heal_ls', 'serve']);
  const palette = await vscode.commands.getCommands(true);
  const contributed = ext.packageJSON.contributes.commands.map((c) => c.command);
  assert.strictEqual(contributed.length, 9, contributed.join(', '));
  for (const id of contributed) {
    assert.ok(palette.includes(id), `command ${id} is registered`);
  }
});

step('run tests puts a heal diagnostic on the suspect function', async () => {
  state.uri = vscode.Uri.file(FILE);
  state.doc = await vscode.workspace.openTextDocument(state.uri);
  await vscode.window.showTextDocument(state.doc);
  const diag = await runTestsUntilFailing(state.api, state.uri);
  const [first, last] = removeRange(state.doc);
  assert.ok(diag.range.start.line >= first && diag.range.start.line <= last,
    `diagnostic line ${diag.range.start.line} inside Inventory.remove (${first}-${last})`);
  state.diag = diag;
});

step('status item shows the failing count', async () => {
  await until('"1 failing" in the status item', () => state.api.status.text.includes('1 failing'), 20000);
});

step('the Testing view shows the failed test, where it starts, no inline message over the quick fix', async () => {
  const shown = await shownAs('failed');
  assert.strictEqual(shown.starts.uri.fsPath, FILE);
  assert.ok(shown.starts.range.isEqual(state.diag.range),
    `starts at ${JSON.stringify(shown.starts.range)}, the diagnostic at ${JSON.stringify(state.diag.range)}`);
  assert.ok(shown.message.includes("KeyError: 'pear'"), shown.message);
  const where = `The failure starts in Inventory.remove (shop/inventory.py:${state.diag.range.start.line + 1})`;
  assert.ok(shown.message.includes(where), shown.message);
  // a run of heal-ls's own (not from the Testing view): the diagnostic's line gets no inline
  // test message, which would cover the end of the line and open a peek on a click
  assert.strictEqual(shown.location, undefined, 'the message has no location');
  const file = state.api.tests.controller.items.get(vscode.Uri.file(TEST_FILE).toString());
  const item = file && file.children.get(TEST_ID);
  assert.ok(item, `the item ${TEST_ID} under tests/test_inventory.py`);
  assert.strictEqual(item.label, 'test_remove_all');
  const testDoc = await vscode.workspace.openTextDocument(TEST_FILE);
  assert.strictEqual(testDoc.lineAt(item.range.start.line).text.trim(), 'inv.remove("pear")',
    'the item points at the failing line of the test');
});

step('code actions there list AI heal', async () => {
  const actions = await vscode.commands.executeCommand('vscode.executeCodeActionProvider',
    state.uri, state.diag.range, vscode.CodeActionKind.QuickFix.value);
  const titles = actions.map((a) => a.title);
  state.heal = actions.find((a) => a.title.startsWith('AI heal'));
  assert.ok(state.heal, `AI heal among ${JSON.stringify(titles)}`);
  assert.ok(state.heal.title.includes('Inventory.remove'), state.heal.title);
});

step('running AI heal changes the document to the fixed function', async () => {
  // what happens to the document meanwhile (edits, saves), in the message if the save fails
  const t0 = Date.now();
  const seen = [];
  const mine = (doc) => doc.uri.toString() === state.uri.toString();
  const watching = [
    vscode.workspace.onDidChangeTextDocument((e) => mine(e.document) && e.contentChanges.length &&
      seen.push(`+${Date.now() - t0}ms edit -> v${e.document.version}`)),
    vscode.workspace.onDidSaveTextDocument((doc) => mine(doc) && seen.push(`+${Date.now() - t0}ms saved v${doc.version}`)),
  ];
  try {
    const action = state.heal;
    if (action.edit) assert.ok(await vscode.workspace.applyEdit(action.edit));
    if (action.command) {
      await vscode.commands.executeCommand(action.command.command, ...(action.command.arguments || []));
    }
    await until('the fixed function in the document', () => isFixed(state.doc.getText()), 90000);
    const [dirty, version] = [state.doc.isDirty, state.doc.version];
    seen.push(`+${Date.now() - t0}ms save()`);
    const saved = await state.doc.save();
    seen.push(`+${Date.now() - t0}ms save() -> ${saved}`);
    const autoSave = vscode.workspace.getConfiguration('files').get('autoSave');
    const how = `before the save: dirty ${dirty}, version ${version}; after: dirty ${state.doc.isDirty}, ` +
      `version ${state.doc.version}; files.autoSave ${autoSave}; ${seen.join(', ')}`;
    console.log(`heal step save: ${saved} (${how})`);
    assert.ok(saved, `saved (${how})`);
    assert.ok(isFixed(fs.readFileSync(FILE, 'utf8')), 'fixed on disk');
  } finally {
    watching.forEach((w) => w.dispose());
  }
});

step('diagnostics and the failing count clear once the fix is in', async () => {
  await until('no heal diagnostics', () => healDiagnostics(state.uri).length === 0, 60000);
  await until('"Heal" without a failing count', () => !state.api.status.text.includes('failing'), 20000);
});

step('the Testing view shows the test passing once the fix is in', async () => {
  await shownAs('passed');
});

step("status tooltip shows the last heal's budget", async () => {
  // the fake model reports token usage; "fake" has no price, so the meter shows tokens only
  const tooltip = () => state.api.status.tooltip;
  await until('the last heal in the tooltip', () => tooltip().includes('Last heal: Inventory.remove verified'), 20000);
  assert.ok(/\(\d[\d,]* in \/ \d[\d,]* out tokens\)/.test(tooltip()), tooltip());
});

step('heal failing test from the palette with one failure', async () => {
  await restoreBug();
  await runTestsUntilFailing(state.api, state.uri);
  await withTimeout(vscode.commands.executeCommand('heal-ls.healFailingTest'), 90000, 'the heal');
  await until('the fixed function in the document', () => isFixed(state.doc.getText()), 30000);
  assert.ok(await state.doc.save());
});

step('preview fixes: the fix waits in the refactor preview; discard keeps the code', async () => {
  const config = vscode.workspace.getConfiguration('heal');
  await config.update('previewFixes', true, vscode.ConfigurationTarget.Workspace);
  const inPreview = () => until('a fix in the preview', () => state.api.pendingPreviews() > 0, 45000);
  try {
    await restoreBug();
    await runTestsUntilFailing(state.api, state.uri);
    const healed = withTimeout(vscode.commands.executeCommand('heal-ls.healFailingTest'), 90000, 'the heal');
    await inPreview();
    await sleep(300);
    assert.ok(!isFixed(state.doc.getText()), 'nothing changes while the preview is open');
    await discardPreview(state.api);
    // the heal answers once the edit is declined, with the reason, and offers no second preview
    const result = await withTimeout(healed, 10000, 'the heal after discard');
    assert.strictEqual(result && result.status, 'refused', JSON.stringify(result));
    assert.ok(result.message.includes('discarded in the preview'), result.message);
    assert.strictEqual(state.api.pendingPreviews(), 0, 'no second preview');
    assert.ok(!isFixed(state.doc.getText()), 'discard keeps the code');
  } finally {
    await config.update('previewFixes', undefined, vscode.ConfigurationTarget.Workspace);
  }
});

step('a function with more callers than previewAboveCallers is always previewed', async () => {
  const config = vscode.workspace.getConfiguration('heal');
  await config.update('previewAboveCallers', 0, vscode.ConfigurationTarget.Workspace);
  try {
    await restoreBug();
    await runTestsUntilFailing(state.api, state.uri);
    const healed = withTimeout(vscode.commands.executeCommand('heal-ls.healFailingTest'), 90000, 'the heal');
    // heal.previewFixes is off: the server's needsConfirmation annotation opens the preview
    await until('a forced preview', () => state.api.pendingPreviews() > 0, 45000);
    assert.ok(!isFixed(state.doc.getText()), 'nothing changes while the preview is open');
    await discardPreview(state.api);
    const result = await withTimeout(healed, 10000, 'the heal after discard');
    assert.strictEqual(result && result.status, 'refused', JSON.stringify(result));
    assert.ok(!isFixed(state.doc.getText()), 'discard keeps the code');
  } finally {
    await config.update('previewAboveCallers', undefined, vscode.ConfigurationTarget.Workspace);
  }
});

step('debug failing test code action starts debugpy and attaches to it', async () => {
  const diag = await until('a heal diagnostic', () => healDiagnostics(state.uri)[0], 30000);
  const actions = await vscode.commands.executeCommand('vscode.executeCodeActionProvider',
    state.uri, diag.range, vscode.CodeActionKind.QuickFix.value);
  const debugAction = actions.find((a) => a.title.startsWith('Debug failing test'));
  assert.ok(debugAction && debugAction.command, `Debug failing test among ${actions.map((a) => a.title)}`);
  const { command, arguments: args } = debugAction.command;
  assert.strictEqual(command, 'heal.debugTest');
  const where = await withTimeout(vscode.commands.executeCommand(command, ...(args || [])),
    30000, 'heal.debugTest');
  assert.ok(where && where.port > 0, JSON.stringify(where));
  const attach = state.api.lastAttach();
  assert.ok(attach, 'the middleware asked for an attach session');
  assert.deepStrictEqual(
    { type: attach.type, request: attach.request, connect: attach.connect, justMyCode: attach.justMyCode },
    { type: 'debugpy', request: 'attach', connect: { host: where.host, port: where.port }, justMyCode: false });
  assert.ok(attach.name.includes(where.test), attach.name);
  await withTimeout(new Promise((resolve, reject) => {
    const socket = net.connect(where.port, where.host, () => { socket.destroy(); resolve(); });
    socket.on('error', reject);
  }), 5000, `a connection to debugpy on ${where.host}:${where.port}`);
});

step("the Testing view follows the user's own pytest runs", async () => {
  await usersPytestRun(); // the bug is in: pytest writes its lastfailed cache (no file if all pass)
  await fixOnDisk();
  await usersPytestRun();
  await shownAs('passed');
  await bugOnDisk();
  await usersPytestRun();
  const shown = await shownAs('failed');
  assert.strictEqual(shown.starts.uri.fsPath, FILE);
  const [first, last] = removeRange(state.doc);
  const line = shown.starts.range.start.line;
  assert.ok(line >= first && line <= last, `starts on line ${line} inside Inventory.remove (${first}-${last})`);
  assert.strictEqual(shown.location, undefined, 'no inline message: the user ran pytest, not the Testing view');
});

step("the Testing view's Run asks the server; the message is inline where the failure starts", async () => {
  await fixOnDisk(); // nothing runs by itself: no save, no pytest run of the user's
  await vscode.commands.executeCommand('testing.runAll');
  await shownAs('passed');
  await bugOnDisk();
  await vscode.commands.executeCommand('testing.runAll');
  const shown = await shownAs('failed');
  assert.ok(shown.location, 'the message has a location');
  assert.strictEqual(shown.location.uri.fsPath, FILE);
  assert.ok(shown.location.range.isEqual(shown.starts.range), JSON.stringify(shown.location.range));
  const [first, last] = removeRange(state.doc);
  const line = shown.location.range.start.line;
  assert.ok(line >= first && line <= last, `message line ${line} inside Inventory.remove (${first}-${last})`);
  await state.api.tests.refresh(); // as after the diagnostics the run published: the same failure is no news
  assert.ok(state.api.tests.shown.get(TEST_ID).location, 'still inline after a refresh');
});

step("heal from a failed test item (the context menu's command) fixes the function", async () => {
  const file = state.api.tests.controller.items.get(vscode.Uri.file(TEST_FILE).toString());
  const item = file.children.get(TEST_ID);
  const result = await withTimeout(vscode.commands.executeCommand('heal-ls.healFailingTest', item), 90000, 'the heal');
  assert.strictEqual(result && result.status, 'verified', JSON.stringify(result));
  await until('the fixed function in the document', () => isFixed(state.doc.getText()), 30000);
  assert.ok(await state.doc.save());
  await shownAs('passed', 60000);
});

step('set API key stores the secret and restarts the server', async () => {
  const server = state.api.server;
  const [pidBefore, startsBefore] = [server.pid, server.starts];
  assert.ok(await vscode.commands.executeCommand('heal-ls.setApiKey',
    { provider: 'anthropic', key: 'sk-ant-test-h6' }));
  await until('a restarted server', () => server.starts > startsBefore && server.client &&
    server.client.isRunning() && server.pid !== pidBefore, 30000);
  const environ = fs.readFileSync(`/proc/${server.pid}/environ`, 'utf8').split('\0');
  assert.ok(environ.includes('ANTHROPIC_API_KEY=sk-ant-test-h6'), 'key in the new server env');
  const starts = server.starts;
  assert.ok(await vscode.commands.executeCommand('heal-ls.setApiKey', { provider: 'anthropic', key: '' }));
  await until('a second restart', () => server.starts > starts && server.client.isRunning(), 30000);
  const after = fs.readFileSync(`/proc/${server.pid}/environ`, 'utf8');
  assert.ok(!after.includes('sk-ant-test-h6'), 'key removed from the server env');
});

exports.run = async function run() {
  let failed = 0;
  for (const { name, fn } of steps) {
    const t0 = Date.now();
    try {
      await fn();
      console.log(`CHECK PASS ${name} (${Date.now() - t0} ms)`);
    } catch (err) {
      failed++;
      console.log(`CHECK FAIL ${name}: ${err && err.message ? err.message : err}`);
    }
  }
  if (failed) throw new Error(`${failed} check(s) failed`);
};
