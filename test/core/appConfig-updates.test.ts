import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppConfigFile, DEFAULT_SETTINGS } from '../../src/main/core/engine/appConfig';
import { tempDirs } from '../support/tempDirs';

const temp = tempDirs();

describe('config.json: "Check for updates"', () => {
  it('is on by default, also for a config written before the setting existed', () => {
    expect(DEFAULT_SETTINGS.checkForUpdates).toBe(true);
    const dir = temp('md-config-');
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ version: 1, settings: { theme: 'light' } }));
    const config = new AppConfigFile(dir);
    expect(config.problem).toBeNull();
    expect(config.get().settings).toMatchObject({ theme: 'light', checkForUpdates: true });
  });

  it('keeps "off" across restarts', () => {
    const dir = temp('md-config-');
    new AppConfigFile(dir).update((c) => ({ ...c, settings: { ...c.settings, checkForUpdates: false } }));
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).settings.checkForUpdates).toBe(false);
    expect(new AppConfigFile(dir).get().settings.checkForUpdates).toBe(false);
  });

  it('a value edited by hand into something else reads as on and loses no other setting', () => {
    const dir = temp('md-config-');
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ version: 1, settings: { theme: 'light', closeToTray: true, checkForUpdates: 'no' } }),
    );
    const config = new AppConfigFile(dir);
    expect(config.problem).toBeNull();
    expect(config.get().settings).toMatchObject({ theme: 'light', closeToTray: true, checkForUpdates: true });
  });
});
