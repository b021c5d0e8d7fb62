import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  applyXdgAutostart,
  autostartEntry,
  autostartFile,
  desktopExec,
  honestSetting,
  launchCommand,
  loginItemSettings,
  parseDesktopExec,
  readAutostart,
  startsHidden,
  usesLoginItem,
} from '../../src/main/shell/autostart';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'md-autostart-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const HOSTILE = [
  '/opt/Merchant Desk/merchant-desk',
  '/home/a "quoted" user/Merchant.AppImage',
  "/home/o'brien/apps/Merchant.AppImage",
  '/home/me/100%/Merchant.AppImage',
  '/home/$USER/`id`/Merchant.AppImage',
  '/home/me/back\\slash/Merchant.AppImage',
  '/home/me/a;b&c|d<e>f~g*h?i#j(k)/Merchant.AppImage',
];

describe('launchCommand: what a login runs', () => {
  const base = { execPath: '/tmp/.mount_MerchaXYZ/merchant-desk', appPath: '/app' };

  it('an AppImage: the $APPIMAGE file, not the binary in its temporary mount', () => {
    expect(launchCommand({ ...base, isPackaged: true, appImage: '/home/me/Apps/Merchant Desk.AppImage' })).toEqual([
      '/home/me/Apps/Merchant Desk.AppImage',
    ]);
  });

  it('a deb (or any other package): the executable; a relative $APPIMAGE is not trusted', () => {
    expect(launchCommand({ ...base, execPath: '/opt/Merchant Desk/merchant-desk', isPackaged: true })).toEqual([
      '/opt/Merchant Desk/merchant-desk',
    ]);
    expect(launchCommand({ ...base, isPackaged: true, appImage: 'Merchant.AppImage' })).toEqual([base.execPath]);
  });

  it('unpackaged: electron and the app folder', () => {
    expect(launchCommand({ ...base, execPath: '/repo/electron', isPackaged: false, appImage: '/x' })).toEqual([
      '/repo/electron',
      '/app',
    ]);
  });
});

describe('autostartFile', () => {
  it('is under $XDG_CONFIG_HOME/autostart, ~/.config when unset or relative', () => {
    expect(autostartFile({ XDG_CONFIG_HOME: '/cfg' }, '/home/me')).toBe('/cfg/autostart/merchant-desk.desktop');
    expect(autostartFile({}, '/home/me')).toBe('/home/me/.config/autostart/merchant-desk.desktop');
    expect(autostartFile({ XDG_CONFIG_HOME: 'rel/cfg' }, '/home/me')).toBe(
      '/home/me/.config/autostart/merchant-desk.desktop',
    );
  });
});

describe("desktopExec: the Desktop Entry spec's Exec quoting", () => {
  it('leaves plain arguments alone and quotes the ones with reserved characters', () => {
    expect(desktopExec(['/opt/merchant-desk/merchant-desk', '--hidden'])).toBe(
      '/opt/merchant-desk/merchant-desk --hidden',
    );
    expect(desktopExec(['/opt/Merchant Desk/merchant-desk', '--hidden'])).toBe(
      '"/opt/Merchant Desk/merchant-desk" --hidden',
    );
  });

  it('escapes ", `, $ and \\ inside quotes, doubles %, and then escapes \\ again for the string type', () => {
    expect(desktopExec(['/a "b"/x'])).toBe('"/a \\\\"b\\\\"/x"');
    expect(desktopExec(['/a/$HOME/`id`'])).toBe('"/a/\\\\$HOME/\\\\`id\\\\`"');
    expect(desktopExec(['/a\\b'])).toBe('"/a\\\\\\\\b"');
    expect(desktopExec(['/100%/x'])).toBe('/100%%/x');
    expect(desktopExec(['/100% sure/x'])).toBe('"/100%% sure/x"');
  });

  it('reads back exactly what it wrote, for every hostile path', () => {
    for (const path of HOSTILE) {
      const argv = [path, '/app folder/with "quotes"', '--hidden'];
      expect(parseDesktopExec(desktopExec(argv))).toEqual(argv);
    }
  });

  it('refuses what a desktop file cannot carry, with a clear error', () => {
    expect(() => desktopExec(['/a\nb'])).toThrow(/control character/);
    expect(() => desktopExec(['/opt/a=b/x'])).toThrow(/contains "="/);
    expect(() => desktopExec([])).toThrow(/no program/);
  });

  it('rejects a malformed Exec value', () => {
    expect(parseDesktopExec('"/unterminated --hidden')).toBeNull();
    expect(parseDesktopExec('/bad\\escape')).toBeNull();
  });

  // GLib (GNOME's autostart) parses the entry and runs it: the program gets exactly the arguments written.
  it.skipIf(!existsSync('/usr/bin/gio'))("is what GLib's own parser runs (gio launch)", async () => {
    const dir = tempDir();
    const programDir = join(dir, 'a b"c$d`e\\f\'g;h');
    mkdirSync(programDir);
    const program = join(programDir, 'run me');
    const out = join(dir, 'argv.txt');
    writeFileSync(program, `#!/bin/sh\nprintf '%s\\n' "$@" > '${out}.tmp' && mv '${out}.tmp' '${out}'\n`);
    chmodSync(program, 0o755);
    // GLib looks the program up before expanding %%, so a % goes in an argument here (the app folder of a dev run).
    const entry = join(dir, 'entry.desktop');
    writeFileSync(entry, autostartEntry([program, '/apps/100% "done"/$x']));
    const run = spawnSync('gio', ['launch', entry], { encoding: 'utf8', timeout: 10_000 });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    await expect.poll(() => existsSync(out), { timeout: 10_000 }).toBe(true);
    expect(readFileSync(out, 'utf8')).toBe('/apps/100% "done"/$x\n--hidden\n');
  });
});

describe('autostartEntry', () => {
  it('is an application entry that runs the app hidden, enabled for GNOME', () => {
    expect(autostartEntry(['/home/me/Apps/Merchant Desk.AppImage'])).toBe(
      [
        '[Desktop Entry]',
        'Type=Application',
        'Name=Merchant Desk',
        'Comment=Start Merchant Desk in the tray when you log in',
        'Exec="/home/me/Apps/Merchant Desk.AppImage" --hidden',
        'Icon=merchant-desk',
        'Terminal=false',
        'X-GNOME-Autostart-enabled=true',
        '',
      ].join('\n'),
    );
  });
});

describe('applyXdgAutostart on a real folder', () => {
  const appImage = '/home/me/Apps/Merchant "Desk" 100%.AppImage';

  it('writes the entry (making the folder), reads it back as on, and leaves no temp file', () => {
    const dir = tempDir();
    const file = autostartFile({ XDG_CONFIG_HOME: join(dir, 'config') }, dir);
    expect(applyXdgAutostart(file, true, () => [appImage])).toEqual({ on: true, changed: true, error: null });
    expect(readFileSync(file, 'utf8')).toBe(autostartEntry([appImage]));
    expect(readAutostart(file, [appImage])).toEqual({ present: true, current: true });
    expect(readdirSync(join(dir, 'config', 'autostart'))).toEqual(['merchant-desk.desktop']);
  });

  it('is idempotent: on twice writes once, off twice removes once', () => {
    const dir = tempDir();
    const file = join(dir, 'autostart', 'merchant-desk.desktop');
    expect(applyXdgAutostart(file, true, () => [appImage]).changed).toBe(true);
    expect(applyXdgAutostart(file, true, () => [appImage])).toEqual({ on: true, changed: false, error: null });
    expect(applyXdgAutostart(file, false, () => [appImage])).toEqual({ on: false, changed: true, error: null });
    expect(existsSync(file)).toBe(false);
    expect(applyXdgAutostart(file, false, () => [appImage])).toEqual({ on: false, changed: false, error: null });
  });

  it('rewrites an entry that starts another path (the AppImage was moved)', () => {
    const dir = tempDir();
    const file = join(dir, 'autostart', 'merchant-desk.desktop');
    applyXdgAutostart(file, true, () => ['/old/place/Merchant.AppImage']);
    expect(readAutostart(file, [appImage])).toEqual({ present: true, current: false });
    expect(applyXdgAutostart(file, true, () => [appImage])).toEqual({ on: true, changed: true, error: null });
    expect(readAutostart(file, [appImage]).current).toBe(true);
    expect(readFileSync(file, 'utf8')).not.toContain('/old/place');
  });

  it('an entry the desktop switched off (a startup-applications tool) is written on again when the switch is on', () => {
    const dir = tempDir();
    const file = join(dir, 'autostart', 'merchant-desk.desktop');
    applyXdgAutostart(file, true, () => [appImage]);
    const entry = readFileSync(file, 'utf8');
    for (const off of [
      entry.replace('X-GNOME-Autostart-enabled=true', 'X-GNOME-Autostart-enabled=false'),
      `${entry}Hidden=true\n`,
    ]) {
      writeFileSync(file, off);
      expect(readAutostart(file, [appImage])).toEqual({ present: true, current: false });
      expect(applyXdgAutostart(file, true, () => [appImage])).toEqual({ on: true, changed: true, error: null });
      expect(readFileSync(file, 'utf8')).toBe(entry);
    }
  });

  it('an unwritable folder: a clear error, nothing on disk, and the result says off', () => {
    const dir = tempDir();
    // A file where the autostart folder should be: refused even to root.
    writeFileSync(join(dir, 'autostart'), 'not a folder');
    const file = join(dir, 'autostart', 'merchant-desk.desktop');
    const result = applyXdgAutostart(file, true, () => [appImage]);
    expect(result.on).toBe(false);
    expect(result.changed).toBe(false);
    expect(result.error).toMatch(/^Could not turn on starting with the session\. .*autostart.*(EEXIST|ENOTDIR)/);
    expect(readFileSync(join(dir, 'autostart'), 'utf8')).toBe('not a folder');
    expect(honestSetting(true, result)).toBe(false);
  });

  it('a path a desktop file cannot carry: a clear error, the old entry kept and reported', () => {
    const dir = tempDir();
    const file = join(dir, 'autostart', 'merchant-desk.desktop');
    applyXdgAutostart(file, true, () => ['/old/Merchant.AppImage']);
    const result = applyXdgAutostart(file, true, () => ['/new/line\nhere.AppImage']);
    expect(result).toEqual({
      on: true,
      changed: false,
      error: expect.stringMatching(/^Could not turn on starting with the session\. .*control character/) as string,
    });
    expect(readFileSync(file, 'utf8')).toContain('Exec=/old/Merchant.AppImage --hidden');
  });

  it('an entry that cannot be removed: the error, and the switch stays on', () => {
    const dir = tempDir();
    const file = join(dir, 'autostart', 'merchant-desk.desktop');
    // Something in its place that is not a file the app wrote (a folder): reading it fails.
    mkdirSync(join(file, 'inside'), { recursive: true });
    const result = applyXdgAutostart(file, false, () => [appImage]);
    expect(result.error).toMatch(/^Could not turn off starting with the session\. Could not read .*EISDIR/);
    expect(existsSync(file)).toBe(true);
  });
});

describe('Windows and macOS: the login item', () => {
  it('asks for --hidden, and macOS hides it itself', () => {
    expect(usesLoginItem('win32')).toBe(true);
    expect(usesLoginItem('darwin')).toBe(true);
    expect(usesLoginItem('linux')).toBe(false);
    expect(loginItemSettings('win32', true)).toEqual({ openAtLogin: true, args: ['--hidden'] });
    expect(loginItemSettings('darwin', false)).toEqual({ openAtLogin: false, args: ['--hidden'], openAsHidden: true });
  });
});

describe('startsHidden', () => {
  it('starts to the tray with --hidden (or as a hidden macOS login item), only when there is a tray', () => {
    expect(startsHidden(['/app', '--hidden'], false, true)).toBe(true);
    expect(startsHidden(['/app'], true, true)).toBe(true);
    expect(startsHidden(['/app', '--hidden'], false, false)).toBe(false);
    expect(startsHidden(['/app'], false, true)).toBe(false);
    expect(startsHidden(['/app', '--hidden=no', 'merchantdesk://--hidden'], false, true)).toBe(false);
  });
});

describe('honestSetting', () => {
  it('corrects the setting to what is on disk, or leaves it', () => {
    expect(honestSetting(true, { on: true })).toBeNull();
    expect(honestSetting(false, { on: true })).toBe(true);
    expect(honestSetting(true, { on: false })).toBe(false);
  });
});
