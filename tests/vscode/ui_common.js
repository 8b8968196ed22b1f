// What the UI drivers share: a headless Chromium on code-server's workbench, the palette, the
// explorer, screenshots, a timed log, and the stages of one session. Env: PORT, SHOTS (screenshot
// folder), STAGES (see runStages).
const fs = require('fs');
const { chromium } = require('playwright-core');

const { PORT, SHOTS, STAGES } = process.env;
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

/** Wait for the fixed Inventory.remove in the editor, save it and check it reached ws's disk. */
async function saveFixed(page, ws) {
  const file = `${ws}/shop/inventory.py`;
  await page.locator('.monaco-editor .view-line', { hasText: '== 0' }).first().waitFor({ timeout: 120000 });
  log('fixed code in the editor');
  await page.keyboard.press('Control+S');
  for (let i = 0; i < 100 && !fs.readFileSync(file, 'utf8').includes('== 0'); i++) {
    await page.waitForTimeout(100);
  }
  if (!fs.readFileSync(file, 'utf8').includes('== 0')) throw new Error('fix not saved to disk');
  log('saved to disk');
}

/** One browser for every stage of STAGES (a JSON list of {drive, ws, ...}: `drives[drive]`, run
 * in a new page on the workbench of folder ws, with the stage as its second argument), one after
 * the other. Each stage's output follows a line `=== stage <drive>` and ends with `STAGE PASS
 * <drive>` or `STAGE FAIL <drive>: <error>` (and leaves `vscode-<drive>-failure.png` behind); a
 * failed stage does not stop the next. Exits 1 if any failed. */
function runStages(drives) {
  (async () => {
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true });
    let failed = 0;
    for (const stage of JSON.parse(STAGES)) {
      console.log(`=== stage ${stage.drive}`);
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      try {
        await page.goto(`http://127.0.0.1:${PORT}/?folder=${encodeURIComponent(stage.ws)}`, { timeout: 120000 });
        await page.locator('.monaco-workbench').waitFor({ timeout: 60000 });
        log('workbench loaded');
        await drives[stage.drive](page, stage);
        console.log(`STAGE PASS ${stage.drive}`);
      } catch (err) {
        failed += 1;
        console.log(`STAGE FAIL ${stage.drive}: ${err.message}`);
        await shot(page, `vscode-${stage.drive}-failure`).catch(() => undefined);
      } finally {
        await page.close();
      }
    }
    await browser.close();
    process.exit(failed ? 1 : 0);
  })().catch((err) => {
    console.error('FAIL', err.message);
    process.exit(2);
  });
}

module.exports = {
  log, openFile, openQuickFix, runPaletteCommand, runStages, saveFixed, shot,
};
