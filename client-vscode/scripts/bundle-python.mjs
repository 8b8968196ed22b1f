// Fills bundled/libs with heal-ls and its dependencies (pip install -t), so the extension works
// with a plain Python: server.ts puts bundled/libs on the server's PYTHONPATH.
// Wheels with native code (pydantic-core, jiter) match the Python that runs this script: set PYTHON.
// BUNDLE_TARGET overrides the target folder (tests use a temporary one).
import { spawnSync } from 'child_process';
import { rmSync } from 'fs';
import { dirname, join } from 'path';
import { fileURLToPath } from 'url';

const extensionDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = join(extensionDir, '..');
const target = process.env.BUNDLE_TARGET || join(extensionDir, 'bundled', 'libs');
const python = process.env.PYTHON || 'python3';

rmSync(target, { recursive: true, force: true });
const args = ['-m', 'pip', 'install', '--quiet', '--no-compile', '--target', target, repoRoot];
console.log(`${python} ${args.join(' ')}`);
const result = spawnSync(python, args, { stdio: 'inherit', timeout: 600_000 });
if (result.status !== 0) {
  console.error(`bundle-python: pip failed (${result.error?.message ?? `exit ${result.status}`})`);
  process.exit(1);
}
