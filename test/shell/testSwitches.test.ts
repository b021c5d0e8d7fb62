// MERCHANT_DESK_TEST (set by the Playwright Electron suite) silences the shell's dialogs and puts a
// test hook on globalThis. A packaged app ignores it: src/main/index.ts under the stand-in electron
// (support/fakeElectron.mjs), packaged or not, with an engine that fails to start (the error dialog).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const dirs: string[] = [];

interface Report {
  error?: string;
  exitCode: number | null;
  errorBoxes: { title: string; message: string }[];
  testHook: string;
  log: string;
}

function launch(env: Record<string, string>): Report {
  const dataDir = mkdtempSync(join(tmpdir(), 'md-switches-'));
  dirs.push(dataDir);
  const child = spawnSync(process.execPath, [join(import.meta.dirname, 'support', 'driveMain.mjs')], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
    env: {
      ...process.env,
      MERCHANT_DESK_DATA_DIR: dataDir,
      DRIVE_SCENARIO: 'engine-fails',
      DRIVE_ENGINE: 'fail',
      FAKE_ELECTRON_PACKAGED: '',
      ...env,
    },
  });
  const line = child.stdout.split('\n').find((l) => l.startsWith('REPORT '));
  if (!line) throw new Error(`the driver printed no report (status ${child.status}):\n${child.stderr.slice(-4000)}`);
  const report = JSON.parse(line.slice('REPORT '.length)) as Report;
  if (report.error) throw new Error(`the driver failed: ${report.error}\n${child.stderr.slice(-4000)}`);
  return report;
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('test-only switches of the main process', () => {
  it('a packaged app ignores MERCHANT_DESK_TEST: it shows its dialogs and puts no hook on globalThis', () => {
    const packaged = launch({ FAKE_ELECTRON_PACKAGED: '1', MERCHANT_DESK_TEST: '1' });
    expect(packaged.exitCode).toBe(1);
    expect(packaged.testHook).toBe('undefined');
    expect(packaged.errorBoxes.map((box) => box.title)).toEqual(['Merchant Desk could not start']);
  }, 130_000);

  it('from the build (not packaged), MERCHANT_DESK_TEST still turns the dialogs off and sets the hook, for the Electron suite', () => {
    const build = launch({ MERCHANT_DESK_TEST: '1' });
    expect(build.exitCode).toBe(1);
    expect(build.testHook).toBe('object');
    expect(build.errorBoxes).toEqual([]);
  }, 130_000);
});
