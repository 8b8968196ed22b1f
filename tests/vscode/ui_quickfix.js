// Drives code-server's real UI in headless Chromium like a user (stages of ui_session.js):
// quickfix: palette "Heal: Run Tests", the squiggle on Inventory.remove, Ctrl+. -> "AI heal ..."
//   -> the fixed code in the editor -> save;
// diagnostic: the same up to the squiggle, then prints the Problems panel ("problems: ...").
const {
  log, openFile, openQuickFix, runPaletteCommand, saveFixed, shot,
} = require('./ui_common');

async function runTestsUntilTheSquiggle(page) {
  await openFile(page);
  log('inventory.py open');
  await runPaletteCommand(page, 'Heal: Run Tests');
  log('palette: Heal: Run Tests');
  const squiggle = page.locator('.monaco-editor [class*="squiggly-"]').first();
  await squiggle.waitFor({ timeout: 90000 });
  log('diagnostic squiggle shown');
}

async function diagnostic(page) {
  await runTestsUntilTheSquiggle(page);
  await page.keyboard.press('Control+Shift+M');
  const problem = page.locator('.markers-panel .monaco-list-row', { hasText: 'failed' }).first();
  await problem.waitFor({ timeout: 20000 });
  console.log(`problems: ${await page.locator('.markers-panel').innerText()}`.replace(/\n/g, ' | '));
}

async function quickfix(page, { ws }) {
  await runTestsUntilTheSquiggle(page);
  const heal = await openQuickFix(page, 'have = self.items[name]', /AI heal/);
  log(`quick fix menu shows: ${await heal.textContent()}`);
  await shot(page, 'vscode-heal-quickfix');
  await heal.click();
  await saveFixed(page, ws);
  await shot(page, 'vscode-heal-fixed');
}

module.exports = { diagnostic, quickfix };
