// The set-up steps behind the README's two commands: npm install's postinstall (Electron's download tried,
// one line when it fails; one line when keytar could not be built) and npm test's preflight (which system
// packages are missing, how they get installed, the one line naming the command when they cannot be).
import { spawnSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  installCommand,
  LIBSECRET_NEED,
  missingSystemPackages,
  planInstall,
  type Probe,
  SYSTEM_NEEDS,
} from '../../scripts/lib/systemPackages.mjs';
import { tempDirs } from '../support/tempDirs';

const root = resolve(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);

const temp = tempDirs();

const probeOf = (present: { files?: string[]; commands?: string[]; pkgConfig?: string[] }): Probe => ({
  file: (path) => present.files?.includes(path) ?? false,
  command: (name) => present.commands?.includes(name) ?? false,
  pkgConfig: (name) => present.pkgConfig?.includes(name) ?? false,
});

describe('npm test preflight: what is missing and how it is installed', () => {
  it('lists exactly the needs that are not met, in order', () => {
    const fresh = missingSystemPackages({
      needs: [...SYSTEM_NEEDS, LIBSECRET_NEED],
      probe: probeOf({ commands: ['dbus-run-session'] }),
    });
    expect(fresh.map((need) => need.name)).toEqual([
      'Chromium (/usr/bin/chromium)',
      'xvfb-run',
      'gnome-keyring-daemon',
      'libsecret-1-dev',
    ]);
    const ready = probeOf({
      files: ['/usr/bin/chromium'],
      commands: ['xvfb-run', 'gnome-keyring-daemon', 'dbus-run-session'],
      pkgConfig: ['libsecret-1'],
    });
    expect(missingSystemPackages({ needs: [...SYSTEM_NEEDS, LIBSECRET_NEED], probe: ready })).toEqual([]);
  });

  it('installs as root directly, with passwordless sudo through sudo -n, and otherwise asks the user', () => {
    expect(planInstall({ isRoot: true, hasAptGet: true })).toEqual({ kind: 'apt', prefix: [] });
    expect(planInstall({ isRoot: false, hasAptGet: true, sudoWorks: () => true })).toEqual({
      kind: 'apt',
      prefix: ['sudo', '-n'],
    });
    expect(planInstall({ isRoot: false, hasAptGet: true, sudoWorks: () => false })).toEqual({
      kind: 'manual',
      prefix: ['sudo'],
    });
    expect(planInstall({ isRoot: true, hasAptGet: false })).toEqual({ kind: 'manual', prefix: [] });
  });

  it('names one command with every Debian package once', () => {
    const missing = missingSystemPackages({ needs: [...SYSTEM_NEEDS, LIBSECRET_NEED], probe: probeOf({}) });
    expect(installCommand(missing, [])).toBe(
      'apt-get update && apt-get install -y chromium xvfb xauth gnome-keyring dbus libsecret-1-dev pkg-config',
    );
    expect(installCommand(missing.slice(1, 2), ['sudo'])).toBe(
      'sudo apt-get update && sudo apt-get install -y xvfb xauth',
    );
  });

  it.runIf(process.platform === 'linux')(
    'where it cannot install (no apt-get on PATH), stops with one line naming the exact command',
    () => {
      // A PATH with node and a shell but none of the tools the suites need, and no apt-get.
      const bin = temp('md-path-');
      for (const tool of ['sh', 'bash', 'pkg-config']) {
        const found = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
        if (found) symlinkSync(found, join(bin, tool));
      }
      symlinkSync(process.execPath, join(bin, 'node'));
      const run = spawnSync(process.execPath, ['scripts/test.mjs'], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, PATH: bin, MERCHANT_DESK_TEST_PREFLIGHT_ONLY: '1' },
        timeout: 60_000,
      });
      expect(run.status).toBe(1);
      const lines = run.stderr.split('\n').filter((line) => line.trim() !== '');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^npm test: missing xvfb-run, gnome-keyring-daemon, dbus-run-session(, [^;]+)?; run: (sudo )?apt-get update && (sudo )?apt-get install -y .*xvfb xauth gnome-keyring dbus/,
      );
    },
  );
});

/** Whether the electron package has its binary (then postinstall does not try again). */
function electronInstalled(): boolean {
  try {
    const binary: unknown = require('electron');
    return typeof binary === 'string' && spawnSync('test', ['-x', binary]).status === 0;
  } catch {
    return false;
  }
}

describe('npm install postinstall', () => {
  it.runIf(!electronInstalled())('where Electron cannot be downloaded, goes on and says so in one line', () => {
    // A mirror on a closed loopback port: the download fails at once, on any machine.
    const run = spawnSync(process.execPath, ['scripts/postinstall.mjs'], {
      cwd: root,
      encoding: 'utf8',
      env: {
        ...process.env,
        ELECTRON_SKIP_BINARY_DOWNLOAD: '',
        ELECTRON_MIRROR: 'http://127.0.0.1:9/',
        electron_config_cache: temp('md-electron-cache-'),
      },
      timeout: 120_000,
    });
    expect(run.status).toBe(0);
    const electronLines = run.stdout.split('\n').filter((line) => line.includes('Electron'));
    expect(electronLines).toHaveLength(1);
    expect(electronLines[0]).toMatch(
      /^postinstall: Electron binary could not be downloaded \(.*ECONNREFUSED.*\); `npm start` uses the web host\.$/,
    );
  });

  it('with ELECTRON_SKIP_BINARY_DOWNLOAD set, does not try and says so', () => {
    const run = spawnSync(process.execPath, ['scripts/postinstall.mjs'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
      timeout: 60_000,
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('postinstall: Electron binary not downloaded (ELECTRON_SKIP_BINARY_DOWNLOAD is set)');
  });
});
