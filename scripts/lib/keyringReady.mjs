// Waits until the Secret Service of this D-Bus session answers a real round trip (store, read back, delete)
// through keytar, as the app and the tests use it: a brand-new keyring on a busy machine can take long to give its
// first answer. One call at a time (a call that hangs is waited for, never doubled); a failed one is tried again.
// Exits 1 with one line if it has not answered within the deadline.
//   node scripts/lib/keyringReady.mjs [deadline seconds, default 180]
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const deadlineMs = Number(process.argv[2] ?? 180) * 1000;
const started = Date.now();

let keytar;
try {
  keytar = require('keytar');
} catch {
  // The keychain tests then skip (or fail in CI) and say why; nothing to warm here.
  console.error('with-keyring: keytar is not installed, so the keyring was not checked');
  process.exit(0);
}

const service = 'merchant-desk-keyring-check';
const account = `ready-${process.pid}`;

async function roundTrip() {
  await keytar.setPassword(service, account, 'ok');
  const read = await keytar.getPassword(service, account);
  await keytar.deletePassword(service, account);
  if (read !== 'ok') throw new Error(`read back ${JSON.stringify(read)} instead of what was stored`);
}

function giveUp(reason) {
  console.error(
    `with-keyring: the keyring (gnome-keyring-daemon) did not answer a store/read round trip within ${deadlineMs / 1000} s: ${reason}`,
  );
  process.exit(1);
}

let lastError = null;
const timer = setTimeout(() => giveUp(lastError ?? 'no answer'), deadlineMs);
for (let attempt = 1; ; attempt++) {
  try {
    await roundTrip();
    break;
  } catch (error) {
    lastError = error instanceof Error ? error.message : String(error);
    await new Promise((resolve) => setTimeout(resolve, Math.min(500 * attempt, 5_000)));
  }
}
clearTimeout(timer);
const tookMs = Date.now() - started;
if (tookMs > 5_000) console.error(`with-keyring: the keyring answered after ${(tookMs / 1000).toFixed(1)} s`);
