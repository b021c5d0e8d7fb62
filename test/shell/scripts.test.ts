// The two launch scripts where Electron's binary is absent (as here: it cannot be downloaded)
// and where it is present. "Absent" is forced with ELECTRON_OVERRIDE_DIST_PATH pointing at an empty
// directory (the electron package then names a file that does not exist), "present" with one that
// holds a file called electron, so both cases run on any machine.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../support/tempDirs';
import { waitFor } from '../support/waitFor';

const root = resolve(import.meta.dirname, '../..');
const SKIP_LINE = 'electron e2e skipped: Electron binary not installed (it could not be downloaded here)';
const FALLBACK_LINE = 'Electron binary not available on this machine; starting the web host instead.';

const temp = tempDirs();

const absent = () => ({ ELECTRON_OVERRIDE_DIST_PATH: temp('md-no-electron-') });
const present = () => {
  const dir = temp('md-fake-electron-');
  writeFileSync(join(dir, 'electron'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
  return { ELECTRON_OVERRIDE_DIST_PATH: dir };
};

function e2e(args: string[], env: Record<string, string>) {
  const run = spawnSync(process.execPath, ['scripts/e2e.mjs', ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, ...env },
  });
  return { status: run.status, lines: run.stdout.split('\n').filter((line) => line.trim() !== ''), stderr: run.stderr };
}

const specFiles = readdirSync(join(root, 'e2e')).filter((f) => /\.spec\.ts$/.test(f));

describe('scripts/e2e.mjs (npm run test:e2e)', () => {
  it('without the Electron binary: one line about it, the Electron spec left out, every other spec run', () => {
    const { status, lines } = e2e(['--list'], absent());
    expect(status).toBe(0);
    expect(lines.filter((line) => /electron/i.test(line))).toEqual([SKIP_LINE]);
    expect(lines.filter((line) => /skipped/i.test(line))).toEqual([SKIP_LINE]);
    const listed = new Set(lines.map((line) => /^\s*(\S+\.spec\.ts):\d+/.exec(line)?.[1]).filter(Boolean));
    expect([...listed].sort()).toEqual(specFiles.filter((f) => f !== 'electron.spec.ts').sort());
    expect(lines.at(-1)).toMatch(new RegExp(`^Total: \\d+ tests? in ${specFiles.length - 1} files$`));
  }, 120_000);

  it('asked for the Electron spec alone: only that line, and Playwright does not start', () => {
    const { status, lines } = e2e(['e2e/electron.spec.ts', '--list'], absent());
    expect(status).toBe(0);
    expect(lines).toEqual([SKIP_LINE]);
  });

  it('a filter for other specs runs them and says nothing about Electron', () => {
    const { status, lines } = e2e(['--list', 'catalog-live'], absent());
    expect(status).toBe(0);
    expect(lines.some((line) => /electron/i.test(line))).toBe(false);
    expect(lines.at(-1)).toMatch(/^Total: \d+ tests? in 1 file$/); // catalog-live.spec.ts only
  }, 120_000);

  it('with the binary: the Electron spec is in the run and nothing is said', () => {
    const { status, lines } = e2e(['--list', 'electron'], present());
    expect(status).toBe(0);
    expect(lines).not.toContain(SKIP_LINE);
    expect(lines.filter((line) => /electron\.spec\.ts:\d+/.test(line)).length).toBeGreaterThanOrEqual(5);
  }, 120_000);
});

/** `node scripts/start.mjs` without the Electron binary, in its own process group, up to the web host's URL line. */
async function startLauncher() {
  const dataDir = temp('md-start-');
  const child = spawn(process.execPath, ['scripts/start.mjs', '--port', '0', '--no-open'], {
    cwd: root,
    env: { ...process.env, ...absent(), MERCHANT_DESK_START_SKIP_BUILD: '1', MERCHANT_DESK_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const output = { stderr: '' };
  child.stderr?.on('data', (chunk: Buffer) => {
    output.stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  /** Waits for the exit (SIGKILLs the group after 15 s) and returns the code, or 'hung'. */
  const exitCode = async () => {
    const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 15_000))]);
    if (code === 'hung' && child.pid) process.kill(-child.pid, 'SIGKILL');
    return code;
  };
  const lines: string[] = [];
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(
      () =>
        reject(new Error(`no URL line in 90 s; stdout ${JSON.stringify(lines)}; stderr ${output.stderr.slice(-2000)}`)),
      90_000,
    );
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      lines.push(line);
      const match = /^Merchant Desk web host: (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/.exec(line);
      if (match?.[1]) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    });
    void exited.then((code) =>
      reject(new Error(`start.mjs exited (${code}) before the URL line; stderr ${output.stderr.slice(-2000)}`)),
    );
  }).catch(async (error: unknown) => {
    if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGKILL');
    throw error;
  });
  return { child, url, lines, output, exitCode };
}

describe('scripts/start.mjs (npm start)', () => {
  it('without the Electron binary: says so in one line, then starts the web host, which serves the app', async () => {
    const { child, url, lines, output, exitCode } = await startLauncher();
    try {
      // Exactly one line before the web host's own: the fallback notice.
      expect(lines).toEqual([FALLBACK_LINE, `Merchant Desk web host: ${url}`]);
      // The token URL serves the app (the page keeps the token itself: no cookie, no redirect).
      const page = await fetch(url, { redirect: 'manual' });
      expect(page.status).toBe(200);
      expect(page.headers.get('set-cookie')).toBeNull();
      expect(await page.text()).toContain('<div id="root"></div>');
    } finally {
      // start.mjs forwards SIGTERM to the web host, which shuts down cleanly.
      if (child.exitCode === null) child.kill('SIGTERM');
      expect(await exitCode(), output.stderr.slice(-3000)).toBe(0);
    }
  }, 120_000);

  it("shuts down cleanly on a terminal's Ctrl-C, which reaches the launcher and the web host both (and the launcher forwards it)", async () => {
    const { child, exitCode, output } = await startLauncher();
    // Once the engine is up (its shutdown then takes long enough for the forwarded signal to arrive meanwhile).
    await waitFor(() => output.stderr.includes('; data in '), 60_000, 'the engine up', 100).catch(() => undefined);
    expect(output.stderr).toContain('; data in ');
    // SIGINT to the whole process group, as a terminal sends it: the web host gets it twice within moments.
    process.kill(-(child.pid as number), 'SIGINT');
    expect(await exitCode(), output.stderr.slice(-3000)).toBe(0);
    expect(output.stderr).toContain('web: SIGINT: shutting down');
    expect(output.stderr).not.toContain('again; exiting without a clean shutdown');
  }, 120_000);
});
