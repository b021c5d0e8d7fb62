// `npm start`: build, then run the Electron app — or, on machines without the Electron
// binary (ELECTRON_SKIP_BINARY_DOWNLOAD=1, CI, headless servers), say so in one line and
// start the web host. MERCHANT_DESK_START_SKIP_BUILD=1 skips the build (out/ must be
// current; tests use it so as not to rebuild a shared out/ under other processes).
// `npm start -- --busy`: the demo starts as a busy merchant (MERCHANT_DESK_DEMO_BUSY=1, src/server/demo.ts).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('..', import.meta.url));
const busy = process.argv.includes('--busy');
const args = process.argv.slice(2).filter((arg) => arg !== '--busy');
const env = busy ? { ...process.env, MERCHANT_DESK_DEMO_BUSY: '1' } : process.env;

// electron-vite does not export its bin; it sits beside dist/.
const electronVite = fileURLToPath(new URL('../bin/electron-vite.js', pathToFileURL(require.resolve('electron-vite'))));
if (process.env.MERCHANT_DESK_START_SKIP_BUILD !== '1') {
  const build = spawnSync(process.execPath, [electronVite, 'build'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

/** Path of the Electron binary, or null when it was never downloaded. */
function electronBinary() {
  try {
    // The electron package exports the binary's path; it throws "Electron failed to
    // install correctly" when the download was skipped.
    const binary = require('electron');
    return typeof binary === 'string' && existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

/** Runs a child with inherited stdio, forwards SIGINT/SIGTERM, and exits with its status. */
function run(command, commandArgs) {
  const child = spawn(command, commandArgs, { cwd: root, stdio: 'inherit', env });
  const forward = (signal) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  child.on('error', (error) => {
    console.error(`start: could not run ${command}: ${error.message}`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    process.exit(code ?? (signal === 'SIGINT' ? 130 : signal === 'SIGTERM' ? 143 : 1));
  });
}

const electron = electronBinary();
if (electron) {
  // package.json "main" points at out/main/index.js.
  run(electron, [root, ...args]);
} else {
  console.log('Electron binary not available on this machine; starting the web host instead.');
  // The web host as built above (out/main/web.js: plain JavaScript, no TypeScript loader, so it is up in
  // ~0.5 s instead of ~1.5 s), run directly: SIGINT/SIGTERM reach the web host itself, which shuts down cleanly.
  run(process.execPath, ['out/main/web.js', ...args]);
}
