import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { UpdateStatus } from '../../src/shared/ipc';
import { INSTALL_FAILED, releaseNotesText, UpdateFlow, type Updater } from '../../src/main/shell/updateFlow';
import {
  armedAutoBuyRules,
  installDecision,
  updatePlan,
  type InstallContext,
  type UpdateEnvironment,
} from '../../src/main/shell/updatePolicy';
import { type Clock, UPDATE_CHECK_INTERVAL_MS, UpdateSchedule } from '../../src/main/shell/updateSchedule';
import { IDLE, nextUpdateStatus, updateErrorMessage } from '../../src/main/shell/updateState';

const linux = (env: Record<string, string>, packageType: string | null = null): UpdateEnvironment => ({
  platform: 'linux',
  env,
  packageType,
  isPackaged: true,
});

describe('updatePlan: which update path applies', () => {
  it.each<[string, UpdateEnvironment, string, string | RegExp]>([
    ['Windows (NSIS)', { platform: 'win32', env: {}, packageType: null, isPackaged: true }, 'self-update', 'nsis'],
    ['macOS', { platform: 'darwin', env: {}, packageType: null, isPackaged: true }, 'self-update', 'mac'],
    ['an AppImage', linux({ APPIMAGE: '/home/ann/Apps/Merchant-Desk-0.1.0.AppImage' }), 'self-update', 'appimage'],
    [
      'a .deb (resources/package-type)',
      linux({ APPIMAGE: '/home/ann/x.AppImage' }, 'deb'),
      'notify',
      'Installed from a .deb package: update with your package manager (apt).',
    ],
    ['an .rpm', linux({}, 'rpm'), 'notify', /\.rpm package: update with your package manager \(dnf\)/],
    ['a pacman package', linux({}, 'pacman'), 'notify', /update with your package manager \(pacman\)/],
    ['an AppImage without $APPIMAGE', linux({}), 'notify', /\$APPIMAGE is not set.*cannot replace itself/],
    ['an empty $APPIMAGE', linux({ APPIMAGE: '' }), 'notify', /\$APPIMAGE is not set/],
    [
      'an AppImage under AppImageLauncher’s mount',
      linux({ APPIMAGE: '/run/user/1000/appimagelauncherfs/0001.AppImage' }),
      'notify',
      /AppImageLauncher’s read-only mount, so it cannot replace itself/,
    ],
    [
      'AppImageLauncher’s mount elsewhere',
      linux({ APPIMAGE: '/tmp/.mount/appimagelauncherfs/0003.AppImage' }),
      'notify',
      /AppImageLauncher/,
    ],
    ['a relative $APPIMAGE', linux({ APPIMAGE: 'Apps/x.AppImage' }), 'notify', /not an absolute path/],
    [
      'a development build',
      { platform: 'linux', env: { APPIMAGE: '/a/x.AppImage' }, packageType: null, isPackaged: false },
      'off',
      /development build/,
    ],
    [
      'an unpackaged Windows build',
      { platform: 'win32', env: {}, packageType: null, isPackaged: false },
      'off',
      /development build/,
    ],
    ['FreeBSD', { platform: 'freebsd', env: {}, packageType: null, isPackaged: true }, 'off', /freebsd/],
  ])('%s', (_name, input, mode, detail) => {
    const plan = updatePlan(input);
    expect(plan.mode).toBe(mode);
    if (plan.mode === 'self-update') expect(plan.package).toBe(detail);
    else if (typeof detail === 'string') expect(plan.reason).toBe(detail);
    else expect(plan.reason).toMatch(detail);
  });

  it('a .deb never self-updates, whatever $APPIMAGE says', () => {
    expect(updatePlan(linux({ APPIMAGE: '/home/ann/x.AppImage' }, 'deb'))).toMatchObject({
      mode: 'notify',
      package: 'deb',
    });
  });

  it('a path that merely mentions the launcher is not its mount', () => {
    expect(updatePlan(linux({ APPIMAGE: '/home/ann/appimagelauncherfs-notes/x.AppImage' }))).toEqual({
      mode: 'self-update',
      package: 'appimage',
    });
  });
});

const ready: UpdateStatus = { state: 'ready', version: '0.2.0', notes: null };
const base: InstallContext = { status: ready, buysInFlight: 0, autoBuyRules: 0, confirmed: false };

describe('installDecision: when an install may happen', () => {
  it.each<[string, Partial<InstallContext>, 'installing' | 'confirm' | 'refused', RegExp]>([
    ['ready, nothing in flight, auto-buy off', {}, 'installing', /Restarting into version 0\.2\.0/],
    ['a buy in flight', { buysInFlight: 1 }, 'refused', /A buy is waiting for the marketplace’s answer/],
    ['two buys in flight, even confirmed', { buysInFlight: 2, confirmed: true }, 'refused', /2 buys are waiting/],
    ['auto-buy armed, not confirmed', { autoBuyRules: 2 }, 'confirm', /2 auto-buy rules are armed.*Install version/],
    ['one auto-buy rule armed', { autoBuyRules: 1 }, 'confirm', /^1 auto-buy rule is armed/],
    ['auto-buy armed, confirmed', { autoBuyRules: 1, confirmed: true }, 'installing', /Restarting/],
    ['auto-buy rules unknown', { autoBuyRules: null }, 'confirm', /Auto-buy may be armed/],
    ['a buy in flight with auto-buy armed', { buysInFlight: 1, autoBuyRules: 1 }, 'refused', /A buy is/],
    ['nothing downloaded', { status: IDLE }, 'refused', /No update is downloaded/],
    [
      'still downloading',
      { status: { state: 'downloading', version: '0.2.0', percent: 40, transferred: 4, total: 10 } },
      'refused',
      /No update is downloaded/,
    ],
    [
      'a .deb (manual), even confirmed',
      {
        status: { state: 'manual', version: '0.2.0', notes: null, reason: 'update with your package manager' },
        confirmed: true,
      },
      'refused',
      /^update with your package manager$/,
    ],
  ])('%s', (_name, change, outcome, message) => {
    const decision = installDecision({ ...base, ...change });
    expect(decision.outcome).toBe(outcome);
    expect(decision.message).toMatch(message);
  });
});

describe('armedAutoBuyRules', () => {
  const rule = (enabled: boolean, autoBuy: boolean, dryRun = false) => ({
    enabled,
    autoBuy: { enabled: autoBuy, dryRun, recipientId: 'r', spendCap: 1000, dailyCap: 1000, spent: 0 },
  });
  const rules = [rule(true, true), rule(true, true, true), rule(false, true), rule(true, false)];

  it('counts enabled rules that would really buy (not a dry run)', () => {
    expect(armedAutoBuyRules(rules, { alertsPaused: false, autoBuyStopped: false })).toBe(1);
  });
  it('none while stop-all is on or alerts are paused', () => {
    expect(armedAutoBuyRules(rules, { alertsPaused: false, autoBuyStopped: true })).toBe(0);
    expect(armedAutoBuyRules(rules, { alertsPaused: true })).toBe(0);
  });
  it('unknown rules are unknown (asked about), unless stop-all is on', () => {
    expect(armedAutoBuyRules(null, { alertsPaused: false })).toBeNull();
    expect(armedAutoBuyRules(null, { alertsPaused: false, autoBuyStopped: true })).toBe(0);
  });
});

/** A clock the test moves by hand. */
function manualClock() {
  let now = 0;
  const timers = new Map<number, { at: number; run: () => void }>();
  let next = 1;
  const clock: Clock = {
    setTimeout: (run, ms) => {
      timers.set(next, { at: now + ms, run });
      return next++;
    },
    clearTimeout: (handle) => timers.delete(handle as number),
  };
  const advance = (ms: number) => {
    const end = now + ms;
    for (;;) {
      const due = [...timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      timers.delete(due[0]);
      now = due[1].at;
      due[1].run();
    }
    now = end;
  };
  return { clock, advance, pending: () => timers.size };
}

describe('UpdateSchedule: when a check happens', () => {
  const HOUR = 60 * 60 * 1000;

  it('checks at start and every 6 hours', () => {
    const { clock, advance } = manualClock();
    let checks = 0;
    const schedule = new UpdateSchedule(
      clock,
      () => checks++,
      () => true,
    );
    expect(UPDATE_CHECK_INTERVAL_MS).toBe(6 * HOUR);
    schedule.start();
    expect(checks).toBe(1);
    advance(6 * HOUR - 1);
    expect(checks).toBe(1);
    advance(1);
    expect(checks).toBe(2);
    advance(18 * HOUR);
    expect(checks).toBe(5);
    schedule.settingsChanged(); // another setting changed: no extra check
    expect(checks).toBe(5);
  });

  it('never checks while the switch is off (or the settings are not known yet)', () => {
    const { clock, advance, pending } = manualClock();
    let checks = 0;
    let enabled = false;
    const schedule = new UpdateSchedule(
      clock,
      () => checks++,
      () => enabled,
    );
    schedule.start();
    advance(48 * HOUR);
    expect(checks).toBe(0);
    expect(pending()).toBe(0);
    enabled = true; // the settings arrive with the switch on
    schedule.settingsChanged();
    expect(checks).toBe(1);
    enabled = false; // switched off: the next check is cancelled
    schedule.settingsChanged();
    expect(pending()).toBe(0);
    advance(24 * HOUR);
    expect(checks).toBe(1);
    enabled = true; // on again: a check at once, then every 6 hours
    schedule.settingsChanged();
    expect(checks).toBe(2);
    advance(6 * HOUR);
    expect(checks).toBe(3);
  });

  it('a switch turned off between the timer and its check holds it back; stop() ends the checks', () => {
    const { clock, advance, pending } = manualClock();
    let checks = 0;
    let enabled = true;
    const schedule = new UpdateSchedule(
      clock,
      () => checks++,
      () => enabled,
    );
    schedule.start();
    enabled = false; // not told (a settings change not heard yet)
    advance(6 * HOUR);
    expect(checks).toBe(1);
    enabled = true;
    schedule.settingsChanged();
    expect(checks).toBe(2);
    schedule.stop();
    expect(pending()).toBe(0);
    schedule.settingsChanged();
    advance(12 * HOUR);
    expect(checks).toBe(2);
  });
});

describe('nextUpdateStatus: the state shown in the status bar', () => {
  const selfUpdate = { mode: 'self-update', package: 'appimage' } as const;
  const deb = { mode: 'notify', package: 'deb', reason: 'Installed from a .deb package: update with apt.' } as const;

  it('goes idle → checking → available → downloading → ready', () => {
    let status: UpdateStatus = IDLE;
    status = nextUpdateStatus(status, { type: 'checking' }, selfUpdate);
    expect(status).toEqual({ state: 'checking' });
    status = nextUpdateStatus(status, { type: 'available', version: '0.2.0', notes: 'n' }, selfUpdate);
    expect(status).toEqual({ state: 'available', version: '0.2.0', notes: 'n' });
    status = nextUpdateStatus(status, { type: 'progress', percent: 41.7, transferred: 417, total: 1000 }, selfUpdate);
    expect(status).toEqual({ state: 'downloading', version: '0.2.0', percent: 41, transferred: 417, total: 1000 });
    status = nextUpdateStatus(status, { type: 'downloaded', version: '0.2.0', notes: 'n' }, selfUpdate);
    expect(status).toEqual({ state: 'ready', version: '0.2.0', notes: 'n' });
    // A later check (or its failure) does not hide the update ready to install.
    expect(nextUpdateStatus(status, { type: 'checking' }, selfUpdate)).toBe(status);
    expect(nextUpdateStatus(status, { type: 'not-available' }, selfUpdate)).toBe(status);
    expect(nextUpdateStatus(status, { type: 'error', error: new Error('x') }, selfUpdate)).toBe(status);
    // The next check finds the same version (electron-updater re-verifies the cached file): still ready.
    expect(nextUpdateStatus(status, { type: 'available', version: '0.2.0', notes: 'n' }, selfUpdate)).toBe(status);
    expect(nextUpdateStatus(status, { type: 'progress', percent: 100, transferred: 1, total: 1 }, selfUpdate)).toBe(
      status,
    );
    // A newer one than the one downloaded starts over.
    expect(nextUpdateStatus(status, { type: 'available', version: '0.3.0', notes: null }, selfUpdate)).toEqual({
      state: 'available',
      version: '0.3.0',
      notes: null,
    });
  });

  it('a .deb shows the version, its notes and why to use the package manager', () => {
    expect(nextUpdateStatus({ state: 'checking' }, { type: 'available', version: '0.3.0', notes: 'n' }, deb)).toEqual({
      state: 'manual',
      version: '0.3.0',
      notes: 'n',
      reason: 'Installed from a .deb package: update with apt.',
    });
  });

  it('no update: idle; a failure: a clear message', () => {
    expect(nextUpdateStatus({ state: 'checking' }, { type: 'not-available' }, selfUpdate)).toEqual(IDLE);
    const error = Object.assign(new Error('sha512 checksum mismatch, expected x\n    at DigestTransform'), {
      code: 'ERR_CHECKSUM_MISMATCH',
    });
    const status = nextUpdateStatus({ state: 'checking' }, { type: 'error', error }, selfUpdate);
    expect(status).toEqual({ state: 'error', message: updateErrorMessage(error) });
    expect(JSON.stringify(status)).not.toMatch(/ at |expected x/);
  });

  it('progress is clamped to whole percents and bytes within the total', () => {
    expect(
      nextUpdateStatus(
        { state: 'available', version: '1.0.0', notes: null },
        { type: 'progress', percent: Number.NaN, transferred: 2000, total: 1000 },
        selfUpdate,
      ),
    ).toEqual({ state: 'downloading', version: '1.0.0', percent: 0, transferred: 1000, total: 1000 });
  });
});

describe('updateErrorMessage', () => {
  const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });
  it.each<[string, unknown, RegExp]>([
    ['checksum', coded('ERR_CHECKSUM_MISMATCH'), /did not match its sha512 checksum/],
    ['no channel file', coded('ERR_UPDATER_CHANNEL_FILE_NOT_FOUND'), /no release for this system/],
    ['malformed yml', coded('ERR_UPDATER_INVALID_UPDATE_INFO'), /could not be read \(malformed\)/],
    ['no files', coded('ERR_UPDATER_NO_FILES_PROVIDED'), /malformed/],
    ['HTTP 503', coded('HTTP_ERROR_503'), /answered HTTP 503/],
    ['refused', coded('ECONNREFUSED'), /could not be reached/],
    ["Electron's net", new Error('net::ERR_INTERNET_DISCONNECTED'), /could not be reached/],
    ['anything else', new Error('Error: boom\n    at x (/secret/path.js:1:1)'), /^Checking for updates failed/],
    ['not an error', 'boom', /^Checking for updates failed/],
  ])('%s', (_name, error, message) => {
    const text = updateErrorMessage(error);
    expect(text).toMatch(message);
    expect(text).not.toMatch(/ at |\/secret|boom/);
  });
});

describe('releaseNotesText', () => {
  it('is plain text from HTML, several versions, or nothing', () => {
    expect(releaseNotesText('<p>Faster <b>catalog</b></p><ul><li>one</li><li>two &amp; three</li></ul>')).toBe(
      'Faster catalog\none\ntwo & three',
    );
    expect(
      releaseNotesText([
        { version: '0.3.0', note: 'Three' },
        { version: '0.2.0', note: null },
      ]),
    ).toBe('0.3.0: Three\n0.2.0:');
    expect(releaseNotesText(null)).toBeNull();
    expect(releaseNotesText('  ')).toBeNull();
    expect(releaseNotesText('x'.repeat(10_000))?.length).toBe(4_000);
  });
});

/** An updater that records what the flow asks of it and emits what a test tells it to. */
class StandInUpdater extends EventEmitter implements Updater {
  autoDownload = true;
  autoInstallOnAppQuit = true;
  forceDevUpdateConfig = false;
  logger: Updater['logger'] = null;
  installs: [boolean | undefined, boolean | undefined][] = [];
  checkForUpdates(): Promise<null> {
    return Promise.resolve(null);
  }
  quitAndInstall(isSilent?: boolean, isForceRunAfter?: boolean): void {
    this.installs.push([isSilent, isForceRunAfter]);
  }
}

describe('UpdateFlow: the updater bound to the state', () => {
  it('downloads in the background, never installs on quit, and installs only through the decision', () => {
    const updater = new StandInUpdater();
    const seen: UpdateStatus[] = [];
    const flow = new UpdateFlow(
      updater,
      { mode: 'self-update', package: 'nsis' },
      { changed: (s) => seen.push(s), log: () => {} },
    );
    expect([updater.autoDownload, updater.autoInstallOnAppQuit, updater.forceDevUpdateConfig]).toEqual([
      true,
      false,
      false,
    ]);
    expect(flow.install({ buysInFlight: 0, autoBuyRules: 0, confirmed: true }).outcome).toBe('refused');
    updater.emit('update-available', { version: '0.2.0', releaseNotes: 'Notes' });
    updater.emit('download-progress', { percent: 10, transferred: 1, total: 10 });
    updater.emit('download-progress', { percent: 10.4, transferred: 1, total: 10 }); // the same, not sent again
    updater.emit('update-downloaded', { version: '0.2.0', releaseNotes: 'Notes' });
    expect(seen.map((s) => s.state)).toEqual(['available', 'downloading', 'ready']);
    expect(flow.install({ buysInFlight: 1, autoBuyRules: 0, confirmed: true }).outcome).toBe('refused');
    expect(flow.install({ buysInFlight: 0, autoBuyRules: 1, confirmed: false }).outcome).toBe('confirm');
    expect(updater.installs).toEqual([]);
    expect(flow.install({ buysInFlight: 0, autoBuyRules: 1, confirmed: true }).outcome).toBe('installing');
    expect(updater.installs).toEqual([[false, true]]);
  });

  it('an AppImage is replaced without starting the new one (the shell relaunches it after its own shutdown)', () => {
    const updater = new StandInUpdater();
    const flow = new UpdateFlow(
      updater,
      { mode: 'self-update', package: 'appimage' },
      { changed: () => {}, log: () => {} },
    );
    updater.emit('update-downloaded', { version: '0.2.0', releaseNotes: null });
    expect(flow.install({ buysInFlight: 0, autoBuyRules: 0, confirmed: false }).outcome).toBe('installing');
    expect(updater.installs).toEqual([[true, false]]);
    expect(flow.relaunchAppImage('/home/ann/Merchant-Desk.AppImage')).toBe('/home/ann/Merchant-Desk.AppImage');
    updater.emit('appimage-filename-updated', '/home/ann/Merchant-Desk-0.2.0.AppImage');
    expect(flow.relaunchAppImage('/home/ann/Merchant-Desk-0.1.0.AppImage')).toBe(
      '/home/ann/Merchant-Desk-0.2.0.AppImage',
    );
  });

  it('an install electron-updater could not do is refused with its error, not reported as installing', () => {
    const updater = new StandInUpdater();
    updater.quitAndInstall = () => {
      updater.emit('error', Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' }));
    };
    const flow = new UpdateFlow(
      updater,
      { mode: 'self-update', package: 'nsis' },
      { changed: () => {}, log: () => {} },
    );
    updater.emit('update-downloaded', { version: '0.2.0', releaseNotes: null });
    expect(flow.install({ buysInFlight: 0, autoBuyRules: 0, confirmed: false })).toEqual({
      outcome: 'refused',
      message: INSTALL_FAILED,
    });
    expect(flow.current.state).toBe('ready');
  });

  it('a plan that only announces never downloads, and logs URLs by their origin only', () => {
    const updater = new StandInUpdater();
    const log: string[] = [];
    new UpdateFlow(
      updater,
      { mode: 'notify', package: 'deb', reason: 'update with your package manager' },
      { changed: () => {}, log: (line) => log.push(line) },
    );
    expect([updater.autoDownload, updater.autoInstallOnAppQuit, updater.forceDevUpdateConfig]).toEqual([
      false,
      false,
      true,
    ]);
    updater.logger?.warn('Cannot download https://updates.example/feed/latest-linux.yml?token=abc\n  at stack');
    updater.emit('error', new Error('fetch https://updates.example/feed/x.AppImage?sig=s3cr3t failed'));
    expect(log.join('\n')).toContain('https://updates.example/…');
    expect(log.join('\n')).not.toMatch(/token=abc|s3cr3t|at stack/);
  });
});
