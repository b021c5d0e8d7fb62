// src/main/index.ts end to end under plain Node: the real engine with its embedded demo
// sandbox, a stand-in `electron` module (support/fakeElectron.mjs) recording what the
// shell does. Covers the glue the Playwright Electron suite covers where the binary exists.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
let dataDir: string;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON report from the child
let report: Record<string, any>;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'md-main-'));
  const child = spawnSync(process.execPath, [join(import.meta.dirname, 'support', 'driveMain.mjs')], {
    cwd: root,
    encoding: 'utf8',
    timeout: 150_000,
    env: { ...process.env, MERCHANT_DESK_DATA_DIR: dataDir, MERCHANT_DESK_TEST: '' },
  });
  const line = child.stdout.split('\n').find((l) => l.startsWith('REPORT '));
  if (!line) throw new Error(`the main process driver printed no report (status ${child.status}):\n${child.stderr.slice(-4000)}`);
  report = JSON.parse(line.slice('REPORT '.length));
  if (report.error) throw new Error(`driver failed: ${report.error}\n${child.stderr.slice(-4000)}`);
}, 180_000);

afterAll(() => {
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('the Electron main process (stand-in electron, real engine)', () => {
  it('enables the sandbox and opens the window with the hardened options', () => {
    expect(report.sandboxEnabled).toBe(true);
    expect(report.webPreferences).toMatchObject({ sandbox: true, contextIsolation: true, nodeIntegration: false, webSecurity: true });
    expect(report.rendererUrl).toMatch(/^file:\/\/.*\/renderer\/index\.html$/);
  });

  it('serves IPC only to its own main frame, validated', () => {
    for (const refused of [report.foreign, report.subframe, report.otherContents]) {
      expect(refused).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    }
    expect(report.invalid).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(report.snapshot).toEqual({ demo: true });
  });

  it('sets the CSP header, denies permissions and foreign downloads', () => {
    expect(report.headers['Content-Security-Policy'][0]).toMatch(/^default-src 'none'; script-src 'self';/);
    expect(report.headers).not.toHaveProperty('content-security-policy');
    expect(report.permission).toBe(false);
    expect(report.permissionCheck).toBe(false);
    expect(report.downloadPrevented).toEqual({ blob: false, remote: true });
  });

  it('keeps navigation in the app and hands only allowed links to the OS', () => {
    expect(report.navigationPrevented).toEqual({ app: false, file: true, https: true, javascript: true });
    expect(report.windowOpen).toEqual({ https: { action: 'deny' }, steamOpenUrl: { action: 'deny' } });
    expect(report.opened).toEqual(['https://example.com/page', 'https://example.com/other']);
  });

  it('forwards engine batches, raises a desktop notification and updates the tray after a buy', () => {
    expect(report.buyOk).toBe(true);
    expect(report.tradeInBatches).toBe(true);
    expect(report.batchesSent).toBeGreaterThan(0);
    expect(report.notification.body).toMatch(/^Trade \$\d+\.\d{2} /);
    expect(report.tray.tooltip).toMatch(/^Merchant Desk — .* · feed connected/);
    expect(report.tray.menu).toEqual(['Open Merchant Desk', 'Pause alerts', 'Feed: connected', 'separator', 'Quit']);
  });

  it('a notification click shows the window and sends a navigate batch', () => {
    expect(report.afterClick.visible).toBe(true);
    expect(report.afterClick.last.payload.navigate).toEqual({ type: 'trade', tradeId: report.tradeId });
  });

  it('asks before quitting with an active trade; cancel keeps the window, quit writes last-quit.json', () => {
    expect(report.afterCancel).toEqual({ windows: 1, dialog: '1 trade is still active. Quit anyway?', quitted: false });
    expect(report.dialogs).toHaveLength(2);
    expect(Date.parse(report.lastQuit.at)).toBeGreaterThan(Date.now() - 180_000);
    expect(report.windowState).toEqual({ bounds: { x: 40, y: 30, width: 1200, height: 760 }, maximized: false });
    expect(report.errorBoxes).toEqual([]);
  });

  it('logs no trade URL token', () => {
    expect(report.log).toContain('quit');
    expect(report.log).not.toContain('AbCd1234');
  });
});
