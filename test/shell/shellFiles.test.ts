import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLog, MAX_LOG_BYTES } from '../../src/main/shell/log';
import { resolveDataDir, resourceFile, trayIconName } from '../../src/main/shell/paths';
import { CrashTracker, CRASH_WINDOW_MS, MAX_CRASHES_IN_WINDOW } from '../../src/main/shell/rendererHealth';
import {
  LAST_QUIT_FILE,
  WINDOW_STATE_FILE,
  readLastQuit,
  readWindowState,
  writeLastQuit,
  writeWindowState,
} from '../../src/main/shell/stateFiles';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'md-shell-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('state files', () => {
  it('round-trips the window state and leaves no temp file behind', () => {
    expect(readWindowState(dir)).toBeNull();
    writeWindowState(dir, { bounds: { x: 10, y: 20, width: 1100, height: 700 }, maximized: true });
    expect(readWindowState(dir)).toEqual({ bounds: { x: 10, y: 20, width: 1100, height: 700 }, maximized: true });
    expect(readdirSync(dir)).toEqual([WINDOW_STATE_FILE]);
  });

  it('treats a damaged window state as absent', () => {
    writeFileSync(join(dir, WINDOW_STATE_FILE), '{"bounds": {"x": 1');
    expect(readWindowState(dir)).toBeNull();
  });

  it('round-trips the last quit time and refuses anything that is not a UTC timestamp', () => {
    expect(readLastQuit(dir)).toBeNull();
    writeLastQuit(dir, '2026-03-01T10:00:00.000Z');
    expect(readLastQuit(dir)).toBe('2026-03-01T10:00:00.000Z');
    expect(JSON.parse(readFileSync(join(dir, LAST_QUIT_FILE), 'utf8'))).toEqual({ at: '2026-03-01T10:00:00.000Z' });
    writeFileSync(join(dir, LAST_QUIT_FILE), JSON.stringify({ at: 'yesterday' }));
    expect(readLastQuit(dir)).toBeNull();
    writeFileSync(join(dir, LAST_QUIT_FILE), 'garbage');
    expect(readLastQuit(dir)).toBeNull();
  });

  it('creates the data dir when it does not exist yet', () => {
    const nested = join(dir, 'a', 'b');
    writeLastQuit(nested, '2026-03-01T10:00:00.000Z');
    expect(readLastQuit(nested)).toBe('2026-03-01T10:00:00.000Z');
  });
});

describe('paths', () => {
  it('uses userData unless MERCHANT_DESK_DATA_DIR is set', () => {
    expect(resolveDataDir({}, '/home/u/.config/Merchant Desk')).toBe('/home/u/.config/Merchant Desk');
    expect(resolveDataDir({ MERCHANT_DESK_DATA_DIR: '  ' }, '/u')).toBe('/u');
    expect(resolveDataDir({ MERCHANT_DESK_DATA_DIR: '/tmp/md-e2e' }, '/u')).toBe('/tmp/md-e2e');
    expect(resolveDataDir({ MERCHANT_DESK_DATA_DIR: 'rel/dir' }, '/u')).toBe(resolve('rel/dir'));
  });

  it('finds resources beside the repository build or the packaged app', () => {
    expect(resourceFile('tray.png', { isPackaged: false, bundleDir: '/repo/out/main', resourcesPath: '/x' })).toBe(
      '/repo/resources/tray.png',
    );
    expect(resourceFile('tray.png', { isPackaged: true, bundleDir: '/x', resourcesPath: '/opt/md/resources' })).toBe(
      '/opt/md/resources/resources/tray.png',
    );
    expect(() =>
      resourceFile('../secret', { isPackaged: false, bundleDir: '/repo/out/main', resourcesPath: '/x' }),
    ).toThrow();
  });

  it('uses a template tray image on macOS only', () => {
    expect(trayIconName('darwin')).toBe('trayTemplate.png');
    expect(trayIconName('linux')).toBe('tray.png');
    expect(trayIconName('win32')).toBe('tray.png');
  });
});

describe('log', () => {
  it('writes timestamped single lines to logs/main.log', () => {
    const echoed: string[] = [];
    const log = createLog(dir, { echo: (line) => echoed.push(line) });
    log('hello');
    log('two\nlines');
    const text = readFileSync(join(dir, 'logs', 'main.log'), 'utf8');
    expect(text.trim().split('\n')).toHaveLength(2);
    expect(text).toMatch(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z hello\n/);
    expect(text).toContain('two\\nlines');
    expect(echoed).toHaveLength(2);
  });

  it('keeps one old generation when the log grew too big', () => {
    createLog(dir, { echo: () => {} })('first');
    writeFileSync(join(dir, 'logs', 'main.log'), 'x'.repeat(MAX_LOG_BYTES + 1));
    createLog(dir, { echo: () => {} })('fresh');
    expect(statSync(join(dir, 'logs', 'main.old.log')).size).toBe(MAX_LOG_BYTES + 1);
    expect(readFileSync(join(dir, 'logs', 'main.log'), 'utf8')).toMatch(/fresh\n$/);
  });
});

describe('CrashTracker', () => {
  it('reloads after a crash and gives up after too many in a minute', () => {
    const tracker = new CrashTracker();
    for (let i = 0; i < MAX_CRASHES_IN_WINDOW; i++)
      expect(tracker.onGone('crashed', 1_000 * i)).toEqual({ action: 'reload' });
    const last = tracker.onGone('oom', 5_000);
    expect(last.action).toBe('give-up');
    expect(last.action === 'give-up' && last.message).toContain('oom');
  });

  it('forgets crashes older than the window', () => {
    const tracker = new CrashTracker();
    for (let i = 0; i < MAX_CRASHES_IN_WINDOW; i++) tracker.onGone('crashed', i);
    expect(tracker.onGone('crashed', CRASH_WINDOW_MS + 10)).toEqual({ action: 'reload' });
  });

  it('ignores a clean exit', () => {
    expect(new CrashTracker().onGone('clean-exit', 0)).toEqual({ action: 'ignore' });
  });
});
