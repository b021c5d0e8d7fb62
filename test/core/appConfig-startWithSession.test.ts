// The "start with the session" setting (issue 36): off by default and for configs written before it existed, kept
// across a reopen, and a patch of the wrong type refused by the contract main validates with.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppConfigFile } from '../../src/main/core/engine/appConfig';
import { settingsPatchSchema } from '../../src/shared/ipc/contract';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'md-config-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('settings.startWithSession', () => {
  it('is off on a first run and in a config written before the setting existed', () => {
    expect(new AppConfigFile(dir).get().settings.startWithSession).toBe(false);
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ version: 1, settings: { theme: 'light' } }));
    const old = new AppConfigFile(dir);
    expect(old.problem).toBeNull();
    expect(old.get().settings).toMatchObject({ theme: 'light', startWithSession: false });
  });

  it('is kept across a reopen', () => {
    new AppConfigFile(dir).update((c) => ({ ...c, settings: { ...c.settings, startWithSession: true } }));
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).settings.startWithSession).toBe(true);
    expect(new AppConfigFile(dir).get().settings.startWithSession).toBe(true);
  });

  it('takes only a boolean in a settings patch', () => {
    expect(settingsPatchSchema.safeParse({ startWithSession: true }).success).toBe(true);
    for (const bad of ['yes', 1, null])
      expect(settingsPatchSchema.safeParse({ startWithSession: bad }).success).toBe(false);
  });
});
