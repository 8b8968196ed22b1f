// Loads the extension and exthost/suite.js into the real VS Code extension host of a running
// VS Code server (code-server's lib/vscode, started with --enable-smoke-test-driver), through
// headless Chromium, and exits with the suite's exit code. Env: PORT, EXT_DIR, SUITE, WS.
const { chromium } = require('playwright-core');

const { PORT, EXT_DIR, SUITE, WS } = process.env;
const TIMEOUT_MS = Number(process.env.EXTHOST_TIMEOUT_MS || 240000);
const remote = (p) => `vscode-remote://127.0.0.1:${PORT}${p}`;

(async () => {
  const t0 = Date.now();
  const payload = [
    ['extensionDevelopmentPath', remote(EXT_DIR)],
    ['extensionTestsPath', remote(SUITE)],
  ];
  const url = `http://127.0.0.1:${PORT}/?folder=${encodeURIComponent(WS)}` +
    `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true });
  const page = await browser.newPage();
  const done = new Promise((resolve) => page.exposeFunction('codeAutomationExit', resolve));
  await page.exposeFunction('codeAutomationLog', (type, args) =>
    console.log(`[exthost ${type}]`, ...(Array.isArray(args) ? args : [args])));
  await page.goto(url, { timeout: 120000 }); // a loaded machine is slow to serve the workbench
  const timeout = new Promise((resolve) => setTimeout(() => resolve('timeout'), TIMEOUT_MS));
  const code = await Promise.race([done, timeout]);
  console.log(`exthost exit code: ${code} after ${Date.now() - t0} ms`);
  await browser.close();
  process.exit(code === 0 ? 0 : 1);
})().catch((err) => {
  console.error('driver error:', err);
  process.exit(2);
});
