// src/main/index.ts end to end under plain Node: the real engine with its embedded demo
// sandbox, a stand-in `electron` module (support/fakeElectron.mjs) recording what the
// shell does. Covers the glue the Playwright Electron suite covers where the binary exists,
// and what it cannot drive: the single-instance lock, the tray menu, close to tray, a
// crashed and a hung renderer, secrets in errors, a relaunch after trades changed while
// the app was closed, a window position restored onto a visible display.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/server/sandbox';
import { adminApi } from '../support/sandboxHttp';

const root = resolve(import.meta.dirname, '../..');
const IPC_KEY = 'ipc_key_4d9c2a7b1e6f08a3c5d7e9f1b2a4c6d8';
const ENV_KEY = 'env_key_8b1f3d5a7c9e0b2d4f6a8c0e1f3b5d7a';
const UNSEEN_KEY = 'unseen_key_0a2c4e6f8b1d3f5a7c9e2b4d6f8a';
/** Two displays side by side; the saved window hangs off the right edge of the second one. */
const DISPLAYS = [
  { x: 0, y: 0, width: 1920, height: 1040 },
  { x: 1920, y: 0, width: 1280, height: 1024 },
];
const SAVED_WINDOW = { bounds: { x: 2900, y: 100, width: 1000, height: 700 }, maximized: true };

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON reports from the child
type Report = Record<string, any>;

const dirs: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

function drive(scenario: string, dataDir: string, env: Record<string, string> = {}): Report {
  const child = spawnSync(process.execPath, [join(import.meta.dirname, 'support', 'driveMain.mjs')], {
    cwd: root,
    encoding: 'utf8',
    timeout: 170_000,
    env: {
      ...process.env,
      MERCHANT_DESK_DATA_DIR: dataDir,
      MERCHANT_DESK_TEST: '',
      DRIVE_SCENARIO: scenario,
      MERCHANT_API_KEY: ENV_KEY,
      DRIVE_IPC_KEY: IPC_KEY,
      DRIVE_UNSEEN_KEY: UNSEEN_KEY,
      ...env,
    },
  });
  const line = child.stdout.split('\n').find((l) => l.startsWith('REPORT '));
  if (!line)
    throw new Error(`the ${scenario} driver printed no report (status ${child.status}):\n${child.stderr.slice(-4000)}`);
  const report = JSON.parse(line.slice('REPORT '.length)) as Report;
  if (report.error) throw new Error(`${scenario} driver failed: ${report.error}\n${child.stderr.slice(-4000)}`);
  report.stderr = child.stderr;
  return report;
}

/** Between two launches: the trades the app left active change on the (closed) demo sandbox. */
async function completeWhileClosed(dataDir: string, tradeIds: string[]): Promise<number> {
  const sb = await startSandbox({ dbFile: join(dataDir, 'demo-sandbox.sqlite'), demoMerchant: true });
  try {
    const statusOf = sb.core.db.prepare<[string], string>('SELECT status FROM trades WHERE trade_id = ?').pluck();
    let changed = 0;
    for (const tradeId of tradeIds) {
      const steps: Record<string, string> = { CREATING: 'PENDING', PENDING: 'SENT', SENT: 'COMPLETED' };
      let moved = false;
      for (let next = steps[statusOf.get(tradeId) ?? '']; next; next = steps[statusOf.get(tradeId) ?? '']) {
        await adminApi(sb).transition(tradeId, { status: next });
        moved = true;
      }
      if (moved) changed++;
    }
    return changed;
  } finally {
    await sb.close();
  }
}

let session: Report;
let relaunch: Report;
let completedWhileClosed = 0;
let second: Report;
let failing: Report;

beforeAll(async () => {
  const dataDir = tempDir('md-main-');
  writeFileSync(join(dataDir, 'window-state.json'), JSON.stringify(SAVED_WINDOW));
  session = drive('session', dataDir, {
    FAKE_ELECTRON_DISPLAYS: JSON.stringify(DISPLAYS),
    XDG_CONFIG_HOME: join(dataDir, 'config'),
  });
  completedWhileClosed = await completeWhileClosed(dataDir, session.tradeIds as string[]);
  // The relaunch starts with --hidden, and its autostart folder is a file: nothing can be written there.
  const blocked = tempDir('md-main-config-');
  writeFileSync(join(blocked, 'autostart'), 'not a folder');
  relaunch = drive('relaunch', dataDir, { DRIVE_ARGV: '--hidden', XDG_CONFIG_HOME: blocked });
  second = drive('second-instance', tempDir('md-main-second-'), {
    FAKE_ELECTRON_LOCK: 'held',
    XDG_CONFIG_HOME: tempDir('md-main-config-'),
  });
  failing = drive('engine-fails', tempDir('md-main-fails-'), {
    DRIVE_ENGINE: 'fail',
    XDG_CONFIG_HOME: tempDir('md-main-config-'),
  });
}, 400_000);

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('the Electron main process (stand-in electron, real engine)', () => {
  it('enables the sandbox and opens the window with the hardened options', () => {
    expect(session.sandboxEnabled).toBe(true);
    expect(session.webPreferences).toMatchObject({
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      webSecurity: true,
    });
    expect(session.rendererUrl).toMatch(/^file:\/\/.*\/renderer\/index\.html$/);
  });

  it('serves IPC only to its own main frame, validated', () => {
    for (const refused of [session.foreign, session.subframe, session.otherContents]) {
      expect(refused).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    }
    expect(session.invalid).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(session.updates).toEqual({
      status: { ok: true, value: null },
      install: {
        ok: true,
        value: { outcome: 'refused', message: 'This copy of Merchant Desk does not update itself.' },
      },
      invalid: {
        ok: false,
        error: { code: 'invalid_input', message: expect.stringMatching(/^updates\.install: confirmed/) },
      },
      foreign: { ok: false, error: { code: 'forbidden', message: expect.any(String) } },
    });
    expect(session.log).toContain('updates: Updates are checked by the installed app only (a development build).');
    expect(session.snapshot).toEqual({ demo: true });
  });

  it('sets the CSP header, denies permissions and foreign downloads', () => {
    expect(session.headers['Content-Security-Policy'][0]).toMatch(/^default-src 'none'; script-src 'self';/);
    expect(session.headers).not.toHaveProperty('content-security-policy');
    expect(session.permission).toBe(false);
    expect(session.permissionCheck).toBe(false);
    expect(session.downloadPrevented).toEqual({ blob: false, remote: true });
  });

  it('keeps navigation in the app and hands only allowed links to the OS', () => {
    expect(session.navigationPrevented).toEqual({ app: false, file: true, https: true, javascript: true });
    expect(session.windowOpen).toEqual({ https: { action: 'deny' }, steamOpenUrl: { action: 'deny' } });
    expect(session.opened).toEqual(['https://example.com/page', 'https://example.com/other']);
  });

  it('restores the saved window onto the display it was on, moved and shrunk to be fully visible', () => {
    // Saved at x 2900 (hanging 700 px off the second display's right edge): moved left onto it, size kept.
    expect(session.windowBounds).toEqual({ x: 1920 + 1280 - 1000, y: 100, width: 1000, height: 700 });
    expect(session.maximized).toBe(true);
    // What the quit saved is what the next launch opens with (one display now: still visible, unchanged).
    expect(session.windowState).toEqual({ bounds: { x: 40, y: 30, width: 1200, height: 760 }, maximized: true });
    expect(relaunch.windowBounds).toEqual({ x: 40, y: 30, width: 1200, height: 760 });
  });

  it('takes the single-instance lock; a second launch focuses the window, restored and shown', () => {
    expect(session.lockRequests).toEqual([true]);
    expect(session.secondInstance).toEqual({ visible: true, minimized: false, focused: true, windows: 1 });
  });

  it('opens merchantdesk:// links from the launch, a second launch and open-url; refuses a hostile one', () => {
    // The launch's own link: the page starts at its route (no page to send `navigate` to yet).
    expect(session.launchLoad).toEqual({ hash: '/item/42' });
    expect(session.deepLinks.navigate).toEqual([
      { type: 'trade', tradeId: '3f1c2a9e-7b44-4e0a-9d51-0c6a2b8e4f10' },
      { type: 'search', query: expect.objectContaining({ priceMax: 1500, wears: ['FN'] }) },
    ]);
    expect(session.deepLinks.notices).toEqual([{ title: 'Link not opened', body: 'A trade link takes no ?query.' }]);
    // Logged by kind and length, never whole (the token, the ids and the filters stay out of the log).
    expect(session.deepLinks.logLines).toEqual([
      'deep link opened: item link (22 characters)',
      'deep link opened: trade link (57 characters)',
      'deep link refused: trade link (60 characters) (A trade link takes no ?query.)',
      'deep link opened: search link (44 characters)',
    ]);
    expect(JSON.stringify(session.deepLinks.logLines)).not.toContain('LinkToken');
    expect(JSON.stringify(session.deepLinks.logLines)).not.toContain('3f1c2a9e');
    // Linux, packaged by no one (no $APPIMAGE): the app does not register itself; the .deb's .desktop file does.
    expect(session.deepLinks.protocolClients).toEqual([]);
    // One that comes while the page (re)loads waits for it, instead of being sent into a page with no listener.
    expect(session.linkWhileLoading).toEqual({
      loadingWhenLinked: true,
      navigatedAfterLoad: { type: 'trade', tradeId: '3f1c2a9e-7b44-4e0a-9d51-0c6a2b8e4f10' },
      lost: [],
    });
  });

  it('a launch while another instance holds the lock quits at once: no window, no tray, no engine', () => {
    expect(second.lockRequests).toEqual([false]);
    expect(second.quitCalls).toBe(1);
    expect(second.windows).toBe(0);
    expect(second.handlers).toBe(0);
    expect(second.trays).toBe(0);
    expect(second.accountsDir).toBe(false);
  });

  it('the tray menu: Open shows the window, Pause alerts pauses and resumes them', () => {
    expect(session.trayOpen).toEqual({ visible: true });
    expect(session.trayPaused.entry).toBe('Resume alerts');
    expect(session.trayPaused.checked).toBe(true);
    expect(session.trayPaused.tooltip).toMatch(/ · alerts paused$/);
    expect(session.trayResumed.entry).toBe('Pause alerts');
    expect(session.trayResumed.tooltip).not.toContain('alerts paused');
  });

  it('the tray menu: Stop all auto-buy stops it in the engine, then offers to resume', () => {
    expect(session.trayAutoBuyStopped.entry).toBe('Resume auto-buy (stopped)');
    expect(session.trayAutoBuyStopped.tooltip).toMatch(/ · auto-buy stopped$/);
    expect(session.trayAutoBuyResumed.entry).toBe('Stop all auto-buy');
  });

  it('with "close to tray" on, closing the window hides it: nothing asked, nothing quit', () => {
    expect(session.closeToTraySet).toBe(true);
    expect(session.closedToTray).toEqual({ destroyed: false, visible: false, windows: 1, quitted: false, dialogs: 0 });
  });

  it('start with the session: the switch writes the autostart entry for this copy with --hidden, and removes it', () => {
    expect(session.autostartOn.setting).toBe(true);
    // Unpackaged: electron and the app folder (a packaged AppImage writes $APPIMAGE: test/shell/autostart.test.ts).
    expect(session.autostartOn.entry).toMatch(/^Exec=\S+ \S+ --hidden$/m);
    expect(session.autostartOn.entry).toContain('X-GNOME-Autostart-enabled=true');
    expect(session.autostartOff).toEqual({ setting: false, exists: false });
  });

  it('launched with --hidden it starts to the tray; the tray shows the window', () => {
    expect(relaunch.hiddenAtStart).toEqual({ windows: 1, visible: false });
    expect(relaunch.shownFromTray).toEqual({ visible: true });
  });

  it('an autostart folder that cannot be written: the merchant is told why and the switch shows off', () => {
    expect(relaunch.autostartRefused.notification.body).toMatch(
      /^Could not turn on starting with the session\. .*autostart.*(EEXIST|ENOTDIR)/,
    );
    expect(relaunch.autostartRefused.setting).toBe('off');
  });

  it('"Send a test notification": a checked call the shell answers by showing one now', () => {
    expect(session.testNotification.answer).toEqual({
      ok: true,
      value: { shown: true, detail: 'Sent to the desktop.' },
    });
    expect(session.testNotification.refused).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(session.testNotification.invalid).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(session.testNotification.shown).toEqual([
      expect.objectContaining({
        title: 'Merchant Desk test notification',
        body: 'Notifications from Merchant Desk reach this desktop.',
      }),
    ]);
  });

  it('a crashed renderer is reloaded and the user is told; a crash loop stops with a message', () => {
    expect(session.crash.reloads).toBe(1);
    expect(session.crash.notification.body).toMatch(/window stopped unexpectedly \(crashed\) and was reloaded/);
    expect(session.log).toContain('renderer gone: crashed (exit code 139)');
    expect(session.log).toMatch(/renderer reloaded: The Merchant Desk window stopped unexpectedly \(crashed\)/);
    // Crashes 3 and 4 within a minute (the hang's restart was the 2nd): one more reload, then it gives up.
    expect(session.crashLoop.reloads).toBe(1);
    expect(session.crashLoop.errorBoxes).toHaveLength(1);
    expect(session.crashLoop.errorBoxes[0].message).toMatch(/stopped 4 times in a minute \(last reason: oom\)/);
    expect(session.crashLoop.notification).toMatchObject({ urgency: 'critical' });
    expect(session.cleanExitReloads).toBe(0);
  });

  it('a hung renderer gets the "not responding" dialog after the grace period; Reload restarts and reloads it', () => {
    expect(session.hangEarly).toEqual({ dialogs: 0 });
    expect(session.log).toContain('window responsive again');
    expect(session.hang.dialog).toEqual({
      message: 'Merchant Desk is not responding',
      buttons: ['Reload', 'Keep waiting'],
    });
    expect(session.hang.reloads).toBe(1);
    expect(session.log).toContain('reloading the unresponsive window');
    expect(session.log).toContain('renderer gone: killed');
    expect(session.hang.notification.body).toMatch(/was restarted \(killed\) and was reloaded/);
  });

  it('forwards engine batches, raises a desktop notification and updates the tray after a buy', () => {
    expect(session.buyOk).toBe(true);
    expect(session.tradeInBatches).toBe(true);
    expect(session.batchesSent).toBeGreaterThan(0);
    expect(session.notification.body).toMatch(/^Trade \$\d+\.\d{2} /);
    expect(session.tray.tooltip).toMatch(/^Merchant Desk — .* · feed connected/);
    // The buy's notification may be counted as unread by the time the menu is read: "(1 unread)" then.
    expect(session.tray.menu[0]).toMatch(/^Open Merchant Desk( \(\d+ unread\))?$/);
    expect(session.tray.menu.slice(1)).toEqual([
      'Pause alerts',
      'Stop all auto-buy',
      'Feed: connected',
      'separator',
      'Quit',
    ]);
    // The badge is the count of active trades.
    expect(session.badge.last).toBe(session.badge.activeTrades);
    expect(session.badge.activeTrades).toBeGreaterThanOrEqual(1);
  });

  it('a notification click shows the window and sends a navigate batch', () => {
    expect(session.afterClick.visible).toBe(true);
    expect(session.afterClick.last.payload.navigate).toEqual({ type: 'trade', tradeId: session.tradeId });
  });

  it('Quit in the tray asks with active trades; cancel keeps the window, quit writes last-quit.json and removes the tray', () => {
    expect(session.afterCancel.windows).toBe(1);
    expect(session.afterCancel.quitted).toBe(false);
    expect(session.afterCancel.dialog).toMatch(/^[12] trades? (is|are) still active\. Quit anyway\?$/);
    expect(session.quitDialogs).toHaveLength(2);
    expect(Date.parse(session.lastQuit.at)).toBeGreaterThan(Date.now() - 400_000);
    expect(session.trayDestroyed).toBe(true);
  });

  it('after a relaunch it says what changed while it was closed: on the desktop and in the window', () => {
    expect(completedWhileClosed).toBeGreaterThanOrEqual(1);
    const trades = completedWhileClosed === 1 ? '1 trade' : `${completedWhileClosed} trades`;
    // The engine's summary after its first sync (the same in the web host): trades by status, then ledger entries.
    expect(relaunch.summary.body).toMatch(new RegExp(`^${trades} completed[;.]`));
    expect(relaunch.log).toContain(`while away: ${relaunch.summary.body}`);
    // In the window: the engine's batch carries the summary and the same words as a notification (a toast, kept by the centre).
    expect(relaunch.summaryBatch.awaySummary.trades).toEqual([
      { status: 'COMPLETED', count: completedWhileClosed, total: expect.any(Number) },
    ]);
    expect(relaunch.summaryBatch.notifications).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'system', title: 'While you were away', body: relaunch.summary.body }),
      ]),
    );
    if (completedWhileClosed === 1) {
      const away = relaunch.summaryBatch.notifications.find(
        (n: { title: string }) => n.title === 'While you were away',
      );
      expect(away.target).toEqual({ type: 'trade', tradeId: expect.any(String) });
    }
  });

  it('logs no trade URL token and no API key: not the one sent over IPC, not the variable, not one it never saw', () => {
    expect(session.accountTest.ok).toBe(true);
    expect(session.log).toMatch(/unhandled rejection: Error: relay refused \[redacted\]/);
    expect(session.log).toMatch(/unhandled rejection: Error: proxy echoed \{"x-api-key":"\[redacted\]"\}/);
    for (const text of [session.log, session.stderr, relaunch.log, relaunch.stderr]) {
      expect(text).toContain('quit');
      for (const secret of ['AbCd1234', IPC_KEY, ENV_KEY, UNSEEN_KEY]) expect(text).not.toContain(secret);
    }
  });

  it('an engine that cannot start: logged and shown without the key, exit code 1', () => {
    expect(failing.exitCode).toBe(1);
    expect(failing.log).toContain(
      'engine failed to start: keychain said no for MERCHANT_API_KEY=[redacted] while sending x-api-key: [redacted]',
    );
    expect(failing.errorBoxes).toHaveLength(1);
    expect(failing.errorBoxes[0].title).toBe('Merchant Desk could not start');
    expect(failing.errorBoxes[0].message).toContain('keychain said no');
    for (const text of [failing.log, failing.stderr, JSON.stringify(failing.errorBoxes)]) {
      expect(text).not.toContain(ENV_KEY);
      expect(text).not.toContain(UNSEEN_KEY);
    }
  });
});
