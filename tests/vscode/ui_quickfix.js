// Drives code-server's real UI in headless Chromium like a user: palette "Heal: Run Tests",
// the squiggle on Inventory.remove, Ctrl+. -> "AI heal ..." -> the fixed code in the editor -> save.
// Env: PORT, WS, SHOTS (screenshot folder); UNTIL=diagnostic stops at the squiggle and prints the
// Problems panel ("problems: ..."). Exit 0 on success.
const {
  log, openFile, openQuickFix, runPaletteCommand, saveFixed, shot, withWorkbench,
} = require('./ui_common');

const { UNTIL } = process.env;

withWorkbench('vscode-heal-failure', async (page) => {
  await openFile(page);
  log('inventory.py open');
  await runPaletteCommand(page, 'Heal: Run Tests');
  log('palette: Heal: Run Tests');
  const squiggle = page.locator('.monaco-editor [class*="squiggly-"]').first();
  await squiggle.waitFor({ timeout: 90000 });
  log('diagnostic squiggle shown');
  if (UNTIL === 'diagnostic') {
    await page.keyboard.press('Control+Shift+M');
    const problem = page.locator('.markers-panel .monaco-list-row', { hasText: 'failed' }).first();
    await problem.waitFor({ timeout: 20000 });
    console.log(`problems: ${await page.locator('.markers-panel').innerText()}`.replace(/\n/g, ' | '));
    return;
  }
  const heal = await openQuickFix(page, 'have = self.items[name]', /AI heal/);
  log(`quick fix menu shows: ${await heal.textContent()}`);
  await shot(page, 'vscode-heal-quickfix');
  await heal.click();
  await saveFixed(page);
  await shot(page, 'vscode-heal-fixed');
});
