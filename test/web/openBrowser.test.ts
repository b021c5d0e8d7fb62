// The browser `npm run web` opens: its command line (readable by every local user) carries a
// one-time link, never the token, and it gets a clean environment (no API key, no web token).
// A fake `xdg-open`, first in PATH, records what the real CLI hands it.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/server/sandbox';
import { browserEnvironment } from '../../src/web/openBrowser';
import { waitFor } from '../support/waitFor';
import { adminApi } from '../support/sandboxHttp';
import { openBridge } from './support';

const ROOT = resolve(import.meta.dirname, '../..');
const TOKEN = 'open-browser-token-0123456789abcdef';

describe('the browser the web host opens', () => {
  const work = mkdtempSync(join(tmpdir(), 'md-open-'));
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    rmSync(work, { recursive: true, force: true });
  });

  it('gets a one-time link in its arguments and no secret in its environment', async () => {
    const sb = await startSandbox({ items: 200, seed: 23 });
    cleanups.push(() => sb.close());
    const merchant = await adminApi(sb).createMerchant({ balance: 10_000 });
    const bin = join(work, 'bin');
    const home = join(work, 'home');
    mkdirSync(bin);
    mkdirSync(home);
    const argvFile = join(work, 'argv');
    const envFile = join(work, 'env');
    writeFileSync(
      join(bin, 'xdg-open'),
      `#!/bin/sh\nenv > '${envFile}.tmp'\nprintf '%s\\n' "$@" > '${argvFile}.tmp'\nmv '${envFile}.tmp' '${envFile}'\nmv '${argvFile}.tmp' '${argvFile}'\n`,
    );
    chmodSync(join(bin, 'xdg-open'), 0o755);

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: `${bin}:${process.env['PATH'] ?? ''}`,
      DISPLAY: ':99',
      HOME: home,
      DBUS_SESSION_BUS_ADDRESS: 'disabled:',
      MERCHANT_ID: merchant.merchantId,
      MERCHANT_API_KEY: merchant.apiKey,
      MERCHANT_DESK_WEB_TOKEN: TOKEN,
    };
    const args = [
      '--import',
      'tsx',
      'src/web/cli.ts',
      '--base-url',
      sb.baseUrl,
      '--ws-url',
      sb.wsUrl,
      '--data-dir',
      join(work, 'data'),
      '--port',
      '0',
    ];
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let exitCode: number | null | undefined;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => (exitCode = code));
    cleanups.push(async () => {
      if (exitCode !== undefined) return;
      child.kill('SIGTERM');
      await waitFor(() => exitCode !== undefined, 15_000, 'the web host to stop').catch(() => child.kill('SIGKILL'));
    });

    await waitFor(() => existsSync(argvFile) || exitCode !== undefined, 120_000, 'the browser to be opened');
    expect(exitCode, stderr).toBeUndefined();
    const printed = new URL((/^Merchant Desk web host: (\S+)$/m.exec(stdout) as RegExpExecArray)[1] as string);
    expect(printed.searchParams.get('token')).toBe(TOKEN);

    const argv = readFileSync(argvFile, 'utf8').trim().split('\n');
    expect(argv).toHaveLength(1);
    const link = new URL(argv[0] as string);
    expect(link.origin).toBe(printed.origin);
    expect(link.search).toMatch(/^\?code=[A-Za-z0-9_-]{32,}$/);
    expect(argv[0]).not.toContain(TOKEN);

    const browserEnv = readFileSync(envFile, 'utf8');
    expect(browserEnv).not.toContain(merchant.apiKey);
    expect(browserEnv).not.toContain(TOKEN);
    expect(browserEnv).not.toMatch(/^MERCHANT_/m);
    expect(browserEnv).toMatch(/^DISPLAY=:99$/m);
    expect(browserEnv).toContain(`PATH=${bin}:`);

    // The link is good once: it hands the page the token; replayed (from `ps`, later) it opens nothing.
    const code = link.searchParams.get('code') as string;
    const first = await openBridge(link, { code });
    expect(first.welcome).toEqual({ type: 'welcome', token: TOKEN });
    first.ws.terminate();
    await expect(openBridge(link, { code })).rejects.toThrow(/4401 unauthorized: this link was already used/);
    await waitFor(() => stderr.includes('presented a second time'), 5_000, 'the warning about a second use');
    expect(stderr).not.toContain(TOKEN);
    expect(stderr).not.toContain(code);
  }, 150_000);

  it('an allow-list: the session variables a launcher needs pass, anything else stays behind', () => {
    expect(
      browserEnvironment({
        PATH: '/usr/bin',
        HOME: '/home/u',
        DISPLAY: ':0',
        WAYLAND_DISPLAY: 'wayland-0',
        XAUTHORITY: '/run/user/1000/xauth',
        XDG_RUNTIME_DIR: '/run/user/1000',
        DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
        LANG: 'en_US.UTF-8',
        LC_TIME: 'C',
        https_proxy: 'http://proxy:3128',
        SystemRoot: 'C:\\Windows',
        MERCHANT_API_KEY: 'sk-secret',
        MERCHANT_DESK_WEB_TOKEN: 'token',
        AWS_SECRET_ACCESS_KEY: 'aws',
        GITHUB_TOKEN: 'gh',
        NODE_OPTIONS: '--require /tmp/x.js',
        LD_PRELOAD: '/tmp/x.so',
      }),
    ).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/u',
      DISPLAY: ':0',
      WAYLAND_DISPLAY: 'wayland-0',
      XAUTHORITY: '/run/user/1000/xauth',
      XDG_RUNTIME_DIR: '/run/user/1000',
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
      LANG: 'en_US.UTF-8',
      LC_TIME: 'C',
      https_proxy: 'http://proxy:3128',
      SystemRoot: 'C:\\Windows',
    });
  });
});
