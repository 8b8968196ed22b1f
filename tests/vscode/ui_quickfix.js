// Drives code-server's real UI in headless Chromium like a user: palette "Heal: Run Tests",
// the squiggle on Inventory.remove, Ctrl+. -> "AI heal ..." -> the fixed code in the editor -> save.
// Env: PORT, WS, SHOTS (screenshot folder); UNTIL=diagnostic stops at the squiggle and prints the
// Problems panel ("problems: ..."). Exit 0 on success.
const { chromium } = require('playwright-core');
const fs = require('fs');

const { PORT, WS, SHOTS, UNTIL } = process.env;
const FILE = `${WS}/shop/inventory.py`;
const t0 = Date.now();
const log = (m) => console.log(`${Date.now() - t0}ms ${m}`);
const shot = (page, name) => page.screenshot({ path: `${SHOTS}/${name}.png` });

async function runPaletteCommand(page, title) {
  // Under load the extension's commands can reach the palette late: reopen it until they do.
  const deadline = Date.now() + 90000;
  for (;;) {
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ timeout: 10000 });
    await input.fill(`>${title}`);
    // Click the row whose label is exactly the title: Enter would take the top fuzzy match.
    const row = page.locator('.quick-input-list .monaco-list-row')
      .filter({ has: page.locator('.label-name', { hasText: new RegExp(`^${title}$`) }) });
    try {
      await row.first().click({ timeout: 10000 });
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      log(`palette has no "${title}" yet; retrying`);
      await page.keyboard.press('Escape');
      await page.waitForTimeout(2000);
    }
  }
}

async function openFile(page) {
  await page.getByRole('treeitem', { name: 'shop' }).first().click({ timeout: 30000 });
  await page.getByRole('treeitem', { name: /inventory\.py/ }).first().dblclick({ timeout: 10000 });
  await page.locator('.monaco-editor .view-lines').first().waitFor({ timeout: 30000 });
}

(async () => {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    await page.goto(`http://127.0.0.1:${PORT}/?folder=${encodeURIComponent(WS)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60000 });
    log('workbench loaded');
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
    await page.locator('.monaco-editor .view-line', { hasText: 'have = self.items[name]' }).first().click();
    await page.keyboard.press('End');
    await page.keyboard.press('Control+Period');
    const heal = page.locator('.action-widget').getByText(/AI heal/).first();
    await heal.waitFor({ timeout: 20000 });
    log(`quick fix menu shows: ${await heal.textContent()}`);
    await shot(page, 'vscode-heal-quickfix');
    await heal.click();
    await page.locator('.monaco-editor .view-line', { hasText: '== 0' }).first().waitFor({ timeout: 120000 });
    log('fixed code in the editor');
    await shot(page, 'vscode-heal-fixed');
    await page.keyboard.press('Control+S');
    for (let i = 0; i < 100 && !fs.readFileSync(FILE, 'utf8').includes('== 0'); i++) {
      await page.waitForTimeout(100);
    }
    if (!fs.readFileSync(FILE, 'utf8').includes('== 0')) throw new Error('fix not saved to disk');
    log('saved to disk');
  } catch (err) {
    await shot(page, 'vscode-heal-failure').catch(() => undefined);
    throw err;
  } finally {
    await browser.close();
  }
})().catch((err) => {
  console.error('FAIL', err.message);
  process.exit(1);
});
