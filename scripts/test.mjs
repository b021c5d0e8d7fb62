// `npm test`: the whole command. First one step makes sure the system packages the suites need are
// here (Chromium, Xvfb, gnome-keyring, D-Bus, libsecret for keytar), installing the missing ones where
// it can (root or passwordless sudo with apt-get) or stopping with one line naming the command to run.
// Then it builds keytar if the install could not, and runs lint, typecheck, unit and e2e suites inside
// a private D-Bus session with an unlocked gnome-keyring, under Xvfb.
//   MERCHANT_DESK_TEST_PREFLIGHT_ONLY=1  only the check (used by its own test)
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  debianPackagesOf,
  installCommand,
  keytarBuilt,
  LIBSECRET_NEED,
  missingSystemPackages,
  planInstall,
  SYSTEM_NEEDS,
} from './lib/systemPackages.mjs';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

function aptGet(prefix, args) {
  const [command, ...rest] = prefix.length ? [...prefix, 'apt-get'] : ['apt-get'];
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  return run(command, [...rest, ...args], { env, stdio: ['ignore', 'ignore', 'inherit'] });
}

function preflight() {
  if (process.platform !== 'linux') return; // macOS/Windows: a keychain and a display are part of the OS.
  const needs = keytarBuilt(root) ? SYSTEM_NEEDS : [...SYSTEM_NEEDS, LIBSECRET_NEED];
  const missing = missingSystemPackages({ needs });
  if (missing.length === 0) return;
  const names = missing.map((need) => need.name).join(', ');
  const plan = planInstall();
  if (plan.kind === 'manual') {
    console.error(`npm test: missing ${names}; run: ${installCommand(missing, plan.prefix)}`);
    process.exit(1);
  }
  console.log(`npm test: installing ${names} with apt-get`);
  const packages = debianPackagesOf(missing);
  if (
    aptGet(plan.prefix, ['update', '-qq']) !== 0 ||
    aptGet(plan.prefix, ['install', '-y', '-qq', '--no-install-recommends', ...packages]) !== 0
  ) {
    console.error(`npm test: apt-get failed; run: ${installCommand(missing, plan.prefix)}`);
    process.exit(1);
  }
}

/** keytar is optional at install time; the keychain tests need it, and libsecret is here now. */
function ensureKeytar() {
  if (process.platform !== 'linux' || keytarBuilt(root)) return;
  const version = require(join(root, 'package.json')).optionalDependencies?.keytar ?? 'latest';
  console.log('npm test: building keytar (the OS keychain module) now that libsecret is installed');
  const status = run(npm, ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error', `keytar@${version}`]);
  if (status !== 0) {
    console.error(`npm test: keytar could not be built; run: npm install --no-save keytar@${version}`);
    process.exit(1);
  }
}

preflight();
if (process.env.MERCHANT_DESK_TEST_PREFLIGHT_ONLY === '1') process.exit(0);
ensureKeytar();

const steps = ['lint', 'typecheck', 'test:unit', 'test:e2e', 'test:fresh-install'];
const script = steps.map((step) => `npm run --silent ${step}`).join(' && ');
const inSession = process.env.MERCHANT_DESK_TEST_SESSION === '1';
const env = { ...process.env, MERCHANT_DESK_TEST_SESSION: '1' };
let status;
if (inSession || process.platform !== 'linux') {
  status = run('bash', ['-c', script], { env });
} else {
  // The keyring session first, so that xvfb's children inherit its bus address.
  const display = process.env.DISPLAY ? [] : ['xvfb-run', '-a'];
  status = run('bash', [join(root, 'scripts', 'with-keyring.sh'), ...display, 'bash', '-c', script], { env });
}
process.exit(status);
