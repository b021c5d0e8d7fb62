// `npm run test:e2e`: Playwright against e2e/, or a no-op until the first spec exists.
//
// e2e/electron.spec.ts needs Electron's binary. Where it was never downloaded
// (no download possible, ELECTRON_SKIP_BINARY_DOWNLOAD=1, headless servers) this runner leaves that spec out
// of the Playwright run and prints exactly one line saying so, instead of a column of
// skipped tests. Positional arguments are Playwright's file filters (regular expressions,
// optionally with :line); they are honoured for the other specs.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('..', import.meta.url));
const e2eDir = fileURLToPath(new URL('../e2e', import.meta.url));

const ELECTRON_SPEC = 'electron.spec.ts';
const SKIP_LINE = 'electron e2e skipped: Electron binary not installed (it could not be downloaded here)';

// Playwright's default testMatch.
const SPEC = /\.(spec|test)\.[cm]?[jt]sx?$/;
// `playwright test` options that take a value as the next argument (so it is not a file filter).
const VALUE_OPTIONS = new Set([
  '-c',
  '--config',
  '-g',
  '--grep',
  '-gv',
  '--grep-invert',
  '-j',
  '--workers',
  '--max-failures',
  '--output',
  '--project',
  '--repeat-each',
  '--reporter',
  '--retries',
  '--shard',
  '--timeout',
  '--trace',
  '--tsconfig',
  '--global-timeout',
  '--ui-host',
  '--ui-port',
  '--browser',
]);

/** The Electron binary's path, or null when it was never downloaded (the package throws, or names a missing file). */
function electronBinary() {
  try {
    const binary = require('electron');
    return typeof binary === 'string' && existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

/** Options (with their values) and file filters, in order. */
function splitArgs(args) {
  const options = [];
  const filters = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') {
      filters.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith('-')) {
      options.push(arg);
      if (VALUE_OPTIONS.has(arg) && i + 1 < args.length) options.push(args[++i]);
      continue;
    }
    filters.push(arg);
  }
  return { options, filters };
}

/** Whether a Playwright file filter (a regular expression, maybe with :line[:column]) selects `file` (relative to e2e/). */
function selects(filter, file) {
  const pattern = filter.replace(/(:\d+){1,2}$/, '');
  const absolute = join(e2eDir, file);
  try {
    const regex = new RegExp(pattern);
    return regex.test(absolute) || regex.test(join('e2e', file));
  } catch {
    return absolute.includes(pattern) || join('e2e', file).includes(pattern);
  }
}

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

let args = process.argv.slice(2);
const isElectronSpec = (file) => file === ELECTRON_SPEC || file.endsWith(`/${ELECTRON_SPEC}`);
if (specs.some(isElectronSpec) && !electronBinary()) {
  const { options, filters } = splitArgs(args);
  const others = specs.filter((f) => !isElectronSpec(f));
  const electronWanted =
    filters.length === 0 || filters.some((filter) => specs.filter(isElectronSpec).some((f) => selects(filter, f)));
  if (electronWanted) console.log(SKIP_LINE);
  let selected;
  if (filters.length === 0) {
    selected = others.map((f) => join('e2e', f));
  } else {
    selected = [];
    for (const filter of filters) {
      const matched = others.filter((f) => selects(filter, f));
      if (matched.length === 0) continue;
      // A filter that names only other specs passes as it is (its :line too); one that also picks the
      // Electron spec is replaced by the other files it picks.
      const picksElectron = specs.filter(isElectronSpec).some((f) => selects(filter, f));
      selected.push(...(picksElectron ? matched.map((f) => join('e2e', f)) : [filter]));
    }
  }
  if (selected.length === 0) process.exit(0);
  args = [...options, ...new Set(selected)];
}

const cli = require.resolve('@playwright/test/cli');
const child = spawn(process.execPath, [cli, 'test', '--config', 'playwright.config.ts', ...args], {
  cwd: root,
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => child.kill(signal));
}
child.on('exit', (code) => process.exit(code ?? 1));
