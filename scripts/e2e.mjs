// `npm run test:e2e`: Playwright against e2e/, or a no-op until the first spec exists.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('..', import.meta.url));
const e2eDir = fileURLToPath(new URL('../e2e', import.meta.url));

// Playwright's default testMatch.
const SPEC = /\.(spec|test)\.[cm]?[jt]sx?$/;
let specs = [];
try {
  specs = readdirSync(e2eDir, { recursive: true, encoding: 'utf8' }).filter((f) => SPEC.test(f));
} catch {
  // no e2e/ folder
}
if (specs.length === 0) {
  console.log('e2e: no Playwright specs yet');
  process.exit(0);
}

const cli = require.resolve('@playwright/test/cli');
const child = spawn(
  process.execPath,
  [cli, 'test', '--config', 'playwright.config.ts', ...process.argv.slice(2)],
  { cwd: root, stdio: 'inherit' },
);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => child.kill(signal));
}
child.on('exit', (code) => process.exit(code ?? 1));
