// A test's own Secret Service: a private D-Bus session bus with an unlocked gnome-keyring-daemon in a fresh keyring
// (as scripts/with-keyring.sh starts one), which the test can freeze (SIGSTOP) to play a keychain slow to answer.
// Processes given `env` use it; the test process itself keeps whatever keyring it had.
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { KEYCHAIN_SERVICE } from '../../src/main/core/secrets';
import { waitFor } from './waitFor';

const ROOT = resolve(import.meta.dirname, '../..');

export interface PrivateKeyring {
  /** The environment that points a child process at this keyring (bus, home and XDG folders). */
  env: NodeJS.ProcessEnv;
  /** Stops the daemon (SIGSTOP): calls wait, unanswered, until `thaw`. */
  freeze(): void;
  thaw(): void;
  /** A key stored through keytar in a child process (libsecret, as the app stores it). */
  store(merchantId: string, apiKey: string): Promise<void>;
  close(): void;
}

/** Why a private keyring cannot be started here, or null. */
export function privateKeyringProblem(): string | null {
  for (const tool of ['dbus-daemon', 'dbus-send', 'gnome-keyring-daemon']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} is not installed`;
  }
  const keytar = spawnSync(process.execPath, ['-e', "require('keytar')"], { cwd: ROOT });
  return keytar.status === 0 ? null : 'keytar is not installed';
}

export async function startPrivateKeyring(): Promise<PrivateKeyring> {
  const dir = mkdtempSync(join(tmpdir(), 'private-keyring-'));
  const runtime = join(dir, 'run');
  mkdirSync(runtime, { mode: 0o700 });
  const bus = spawnSync('dbus-daemon', ['--session', '--fork', '--print-address=1', '--print-pid=1'], {
    encoding: 'utf8',
  });
  const [address, busPid] = bus.stdout.trim().split('\n');
  if (bus.status !== 0 || !address || !busPid) throw new Error(`dbus-daemon did not start: ${bus.stderr}`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DBUS_SESSION_BUS_ADDRESS: address,
    HOME: dir,
    XDG_RUNTIME_DIR: runtime,
    XDG_DATA_HOME: join(dir, 'data'),
  };
  let daemonPid = 0;
  const close = () => {
    for (const [pid, signal] of [
      [daemonPid, 'SIGCONT'],
      [daemonPid, 'SIGTERM'],
      [Number(busPid), 'SIGTERM'],
    ] as const) {
      try {
        if (pid > 0) process.kill(pid, signal);
      } catch {
        // already gone
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const keyring = spawnSync('gnome-keyring-daemon', ['--unlock', '--components=secrets'], {
      input: 'private-keyring',
      env,
      encoding: 'utf8',
    });
    if (keyring.status !== 0) throw new Error(`gnome-keyring-daemon did not start: ${keyring.stderr}`);
    // The daemon forks and takes its bus name a moment later.
    daemonPid = await waitFor(() => secretServicePid(env), 10_000, 'gnome-keyring-daemon on the private bus');
  } catch (error) {
    close();
    throw error;
  }
  return {
    env,
    freeze: () => process.kill(daemonPid, 'SIGSTOP'),
    thaw: () => process.kill(daemonPid, 'SIGCONT'),
    store: async (merchantId, apiKey) => {
      const script = `const keytar = require('keytar'); keytar.setPassword(${JSON.stringify(KEYCHAIN_SERVICE)}, process.argv[1], process.argv[2]).catch((e) => { console.error(e.message); process.exit(1); });`;
      await promisify(execFile)(process.execPath, ['-e', script, merchantId, apiKey], {
        cwd: ROOT,
        env,
        timeout: 30_000,
      });
    },
    close,
  };
}

/** The pid owning org.freedesktop.secrets on the bus of `env`, or null while none does. */
function secretServicePid(env: NodeJS.ProcessEnv): number | null {
  const answer = spawnSync(
    'dbus-send',
    [
      '--session',
      '--print-reply',
      '--dest=org.freedesktop.DBus',
      '/org/freedesktop/DBus',
      'org.freedesktop.DBus.GetConnectionUnixProcessID',
      'string:org.freedesktop.secrets',
    ],
    { env, encoding: 'utf8' },
  );
  const pid = /uint32 (\d+)/.exec(answer.stdout)?.[1];
  return answer.status === 0 && pid ? Number(pid) : null;
}
