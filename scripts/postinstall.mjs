// `npm install`'s last step. Electron's own install script (which downloads its binary) is not
// allowed to run by itself (`allowScripts`), because a failed download would fail the whole install
// on machines that cannot reach it. It runs here instead: where the binary downloads, it is
// installed as usual; where it cannot, the install goes on and says so in one line, and `npm start`
// falls back to the web host. keytar is an optional dependency: where it cannot be built, say so too.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { keytarBuilt } from './lib/systemPackages.mjs';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('..', import.meta.url));
const DOWNLOAD_TIMEOUT_MS = 5 * 60_000;

function packageDir(name) {
  try {
    return dirname(require.resolve(`${name}/package.json`, { paths: [root] }));
  } catch {
    return null;
  }
}

function installElectron() {
  const dir = packageDir('electron');
  if (!dir) return; // `npm install --omit=dev`
  if (process.env.ELECTRON_SKIP_BINARY_DOWNLOAD) {
    console.log(
      'postinstall: Electron binary not downloaded (ELECTRON_SKIP_BINARY_DOWNLOAD is set); `npm start` uses the web host.',
    );
    return;
  }
  if (existsSync(join(dir, 'path.txt')) && existsSync(join(dir, 'dist'))) return;
  const result = spawnSync(process.execPath, ['install.js'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: DOWNLOAD_TIMEOUT_MS,
  });
  if (result.status === 0) return;
  const reason =
    `${result.stderr ?? ''}${result.error?.message ?? ''}`
      .trim()
      .split('\n')
      .find((line) => line.trim()) ?? `exit ${result.status}`;
  console.log(
    `postinstall: Electron binary could not be downloaded (${reason.trim().slice(0, 160)}); \`npm start\` uses the web host.`,
  );
}

function reportKeytar() {
  if (!keytarBuilt(root)) {
    console.log(
      'postinstall: keytar (OS keychain) not built (on Linux it needs libsecret-1-dev); the app keeps API keys with Electron safeStorage, or in memory / MERCHANT_API_KEY in the web host.',
    );
  }
}

installElectron();
reportKeytar();
