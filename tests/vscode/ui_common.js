// What the UI drivers share: a headless Chromium on code-server's workbench, the palette, the
// explorer, screenshots and a timed log. Env: PORT, WS, SHOTS (screenshot folder).
const fs = require('fs');
const { chromium } = require('playwright-core');

const { PORT, WS, SHOTS } = process.env;
const FILE = `${WS}/shop/inventory.py`;
const t0 = Date.now();
const log = (m) => console.log(`${Date.now() - t0}ms ${m}`);
const shot = (page, name) => page.screenshot({ path: `${SHOTS}/${name}.png` });

async function runPaletteCommand(page, title) {
  // Under load the extension's commands can reach the palette late: reopen it until they do.
  const deadline = Date.now() + 90000;
  for (;;) {
    try {
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ timeout: 10000 });
      await input.fill(`>${title}`);
      // Click the row whose label is exactly the title: Enter would take the top fuzzy match.
      const row = page.locator('.quick-input-list .monaco-list-row')
        .filter({ has: page.locator('.label-name', { hasText: new RegExp(`^${title}$`) }) });
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

/** Ctrl+. at the end of the line holding `lineText`; the quick-fix menu's entry matching `entry`.
 * Under load the first request can answer before the server has the run's diagnostics at hand
 * (the menu then lacks our entry): close it and ask again, as a user would, saying what it showed. */
async function openQuickFix(page, lineText, entry) {
  const deadline = Date.now() + 90000;
  for (;;) {
    await page.locator('.monaco-editor .view-line', { hasText: lineText }).first().click();
    await page.keyboard.press('End');
    await page.keyboard.press('Control+Period');
    const item = page.locator('.action-widget').getByText(entry).first();
    try {
      await item.waitFor({ timeout: 15000 });
      return item;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      const menu = await page.locator('.action-widget').allInnerTexts().catch(() => []);
      log(`quick fix menu has no ${entry} yet (${JSON.stringify(menu).slice(0, 300)}); retrying`);
      await page.keyboard.press('Escape');
      await page.waitForTimeout(2000);
    }
  }
}

/** Open shop/inventory.py from the explorer. */
async function openFile(page) {
  await page.getByRole('treeitem', { name: 'shop' }).first().click({ timeout: 30000 });
  await page.getByRole('treeitem', { name: /inventory\.py/ }).first().dblclick({ timeout: 30000 });
  await page.locator('.monaco-editor .view-lines').first().waitFor({ timeout: 30000 });
}

/** Wait for the fixed Inventory.remove in the editor, save it and check it reached the disk. */
async function saveFixed(page) {
  await page.locator('.monaco-editor .view-line', { hasText: '== 0' }).first().waitFor({ timeout: 120000 });
  log('fixed code in the editor');
  await page.keyboard.press('Control+S');
  for (let i = 0; i < 100 && !fs.readFileSync(FILE, 'utf8').includes('== 0'); i++) {
    await page.waitForTimeout(100);
  }
  if (!fs.readFileSync(FILE, 'utf8').includes('== 0')) throw new Error('fix not saved to disk');
  log('saved to disk');
}

/** Run `drive(page)` on the workbench of WS; a failure leaves `<failureShot>.png` behind. */
function withWorkbench(failureShot, drive) {
  (async () => {
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await page.goto(`http://127.0.0.1:${PORT}/?folder=${encodeURIComponent(WS)}`, { timeout: 120000 });
      await page.locator('.monaco-workbench').waitFor({ timeout: 60000 });
      log('workbench loaded');
      await drive(page);
    } catch (err) {
      await shot(page, failureShot).catch(() => undefined);
      throw err;
    } finally {
      await browser.close();
    }
  })().catch((err) => {
    console.error('FAIL', err.message);
    process.exit(1);
  });
}

module.exports = {
  log, openFile, openQuickFix, runPaletteCommand, saveFixed, shot, withWorkbench,
};
