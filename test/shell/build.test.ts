// Builds the app (electron-vite, into a temp dir so a parallel `npm run build` is
// not disturbed) and checks what Electron would load: the sandboxed preload is one
// CommonJS file that requires nothing but electron and exposes only
// `window.merchantDesk`; the main bundle and the store worker bundle exist; the built
// renderer carries the strict CSP as its <meta> policy, and the same build still works
// in a browser through the web host (its own WebSocket, item images, no violation).
// Runs under plain Node: the preload is executed in a vm against a stand-in `electron`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { runInNewContext } from 'node:vm';
import { chromium } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL, IPC_METHOD_NAMES } from '../../src/shared/ipc';
import * as preloadChannels from '../../src/preload/channels';
import { contentSecurityPolicy, metaContentSecurityPolicy } from '../../src/main/shell/csp';
import { Engine } from '../../src/main/core/engine/engine';
import { MemorySecretStore } from '../../src/main/core/secrets';
import { startSandbox } from '../../src/server/sandbox';
import { startWebHost } from '../../src/web/webHost';
import { adminApi } from '../support/sandboxHttp';

const root = resolve(import.meta.dirname, '../..');
let outDir: string;

beforeAll(() => {
  outDir = mkdtempSync(join(tmpdir(), 'md-build-'));
  const require = createRequire(import.meta.url);
  const bin = join(dirname(require.resolve('electron-vite')), '..', 'bin', 'electron-vite.js');
  const build = spawnSync(process.execPath, [bin, 'build', '--outDir', outDir, '--logLevel', 'error'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (build.status !== 0) throw new Error(`electron-vite build failed:\n${build.stdout}\n${build.stderr}`);
}, 180_000);

afterAll(() => {
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

interface FakeIpc {
  invoked: unknown[][];
  listeners: Map<string, ((...args: unknown[]) => void)[]>;
}

/** Runs the built preload against a stand-in electron; returns what it exposed. */
function runPreload(): { exposed: Record<string, unknown>; ipc: FakeIpc; required: string[] } {
  const code = readFileSync(join(outDir, 'preload', 'index.cjs'), 'utf8');
  const exposed: Record<string, unknown> = {};
  const required: string[] = [];
  const ipc: FakeIpc = { invoked: [], listeners: new Map() };
  const electron = {
    contextBridge: {
      exposeInMainWorld: (key: string, api: unknown) => {
        if (key in exposed) throw new Error(`exposed ${key} twice`);
        exposed[key] = api;
      },
    },
    ipcRenderer: {
      invoke: (...args: unknown[]) => {
        ipc.invoked.push(args);
        return Promise.resolve({ ok: true, value: null });
      },
      on: (channel: string, listener: (...args: unknown[]) => void) => {
        ipc.listeners.set(channel, [...(ipc.listeners.get(channel) ?? []), listener]);
      },
      removeListener: (channel: string, listener: (...args: unknown[]) => void) => {
        ipc.listeners.set(
          channel,
          (ipc.listeners.get(channel) ?? []).filter((l) => l !== listener),
        );
      },
    },
  };
  const module = { exports: {} };
  runInNewContext(
    code,
    {
      require: (name: string) => {
        required.push(name);
        if (name === 'electron') return electron;
        throw new Error(`the sandboxed preload cannot require ${name}`);
      },
      module,
      exports: module.exports,
      console,
    },
    { filename: 'index.cjs' },
  );
  return { exposed, ipc, required };
}

describe('built preload (out/preload/index.cjs)', () => {
  it('is a single CommonJS file that requires only electron', () => {
    expect(readdirSync(join(outDir, 'preload'))).toEqual(['index.cjs']);
    const code = readFileSync(join(outDir, 'preload', 'index.cjs'), 'utf8');
    const requires = [...code.matchAll(/require\(([^)]*)\)/g)].map((m) => m[1]);
    expect(requires).toEqual(['"electron"']);
    expect(code).not.toMatch(/^\s*(import|export)\s/m);
    // No zod inside either (a comment may name it): no schemas, no parsing.
    expect(code).not.toMatch(/["']zod["']|safeParse|\bz\.(object|strictObject|string|int)\(/);
    expect(runPreload().required).toEqual(['electron']);
  });

  it('exposes only window.merchantDesk: the contract by area, events and host', () => {
    const { exposed } = runPreload();
    expect(Object.keys(exposed)).toEqual(['merchantDesk']);
    const api = exposed.merchantDesk as Record<string, Record<string, unknown>>;
    const areas = [...new Set(IPC_METHOD_NAMES.map((m) => m.split('.')[0]))];
    expect(Object.keys(api).sort()).toEqual([...areas, 'events', 'host'].sort());
    expect(api.host).toBe('electron');
    for (const method of IPC_METHOD_NAMES) {
      const [area, name] = method.split('.') as [string, string];
      expect(typeof api[area]?.[name], method).toBe('function');
    }
    expect(Object.keys(api.events ?? {})).toEqual(['subscribe']);
    const text = JSON.stringify(Object.keys(api));
    expect(text).not.toMatch(/ipcRenderer|invoke|send/);
  });

  it('calls go over the one call channel as (method, input)', async () => {
    const { exposed, ipc } = runPreload();
    const api = exposed.merchantDesk as { catalog: { query(input: unknown): Promise<unknown> } };
    await expect(api.catalog.query({ search: 'AK' })).resolves.toEqual({ ok: true, value: null });
    expect(ipc.invoked).toEqual([[IPC_CALL_CHANNEL, 'catalog.query', { search: 'AK' }]]);
  });

  it('fans events out from one ipcRenderer listener, removed after the last unsubscribe', () => {
    const { exposed, ipc } = runPreload();
    const api = exposed.merchantDesk as { events: { subscribe(listener: (batch: unknown) => void): () => void } };
    const a: unknown[] = [];
    const b: unknown[] = [];
    const offA = api.events.subscribe((batch) => a.push(batch));
    const offB = api.events.subscribe((batch) => b.push(batch));
    expect(ipc.listeners.get(IPC_EVENT_CHANNEL)).toHaveLength(1);
    const batch = { seq: 1, at: '2026-01-01T00:00:00.000Z', activeTrades: 2 };
    ipc.listeners.get(IPC_EVENT_CHANNEL)?.[0]?.({ sender: 'event' }, batch);
    expect(a).toEqual([batch]);
    expect(b).toEqual([batch]);
    offA();
    offA();
    expect(ipc.listeners.get(IPC_EVENT_CHANNEL)).toHaveLength(1);
    offB();
    expect(ipc.listeners.get(IPC_EVENT_CHANNEL)).toHaveLength(0);
  });

  it('a listener that throws does not starve the others', () => {
    const { exposed, ipc } = runPreload();
    const api = exposed.merchantDesk as { events: { subscribe(listener: (batch: unknown) => void): () => void } };
    const seen: unknown[] = [];
    api.events.subscribe(() => {
      throw new Error('boom');
    });
    api.events.subscribe((batch) => seen.push(batch));
    const original = console.error;
    console.error = () => {};
    try {
      ipc.listeners.get(IPC_EVENT_CHANNEL)?.[0]?.({}, { seq: 1, at: 'x' });
    } finally {
      console.error = original;
    }
    expect(seen).toHaveLength(1);
  });
});

describe('built main', () => {
  it('exists as the ESM bundle package.json points at, with electron external', () => {
    const file = join(outDir, 'main', 'index.js');
    expect(existsSync(file)).toBe(true);
    expect(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).main).toBe('out/main/index.js');
    expect(readFileSync(file, 'utf8')).toMatch(/from "electron"/);
  });

  it('ships the store worker beside it as storeWorker.js (resolveWorkerEntry loads it), without electron', () => {
    const file = join(outDir, 'main', 'storeWorker.js');
    expect(existsSync(file)).toBe(true);
    const code = readFileSync(file, 'utf8');
    expect(code).toMatch(/better-sqlite3/);
    expect(code).not.toMatch(/from "electron"|require\("electron"\)/);
  });

  it('bundles zod, fastify and ws (one file each to compile at start, not hundreds), and the web host starts its server code after the store threads', () => {
    const files = [
      ...readdirSync(join(outDir, 'main')).filter((f) => f.endsWith('.js')),
      ...readdirSync(join(outDir, 'main', 'chunks')).map((f) => `chunks/${f}`),
    ];
    for (const file of files) {
      expect(readFileSync(join(outDir, 'main', file), 'utf8'), file).not.toMatch(
        /(from|import\(|require\()\s*"(zod|fastify|ws)"/,
      );
    }
    // web.js reaches fastify only through a dynamic import: its static imports (and theirs) hold none of it.
    const staticImports = (file: string): string[] =>
      [
        ...readFileSync(join(outDir, 'main', file), 'utf8').matchAll(
          /^import\s[^;]*?from\s*"\.\/(?:chunks\/)?([^"]+)"/gm,
        ),
      ].map((m) => `chunks/${m[1] ?? ''}`);
    const seen = new Set<string>();
    const queue = staticImports('web.js');
    while (queue.length > 0) {
      const file = queue.pop() as string;
      if (seen.has(file)) continue;
      seen.add(file);
      expect(readFileSync(join(outDir, 'main', file), 'utf8'), file).not.toMatch(/FST_ERR_/);
      queue.push(...staticImports(file));
    }
    expect(readFileSync(join(outDir, 'main', 'web.js'), 'utf8')).toMatch(/import\("\.\/chunks\/[^"]+"\)/);
  });
});

/** The content of every `<meta http-equiv="Content-Security-Policy">` of an HTML text. */
function metaPolicies(html: string): string[] {
  return [...html.matchAll(/<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"\s*\/?>/gi)].map(
    (m) => m[1] ?? '',
  );
}

describe('built renderer (out/renderer/index.html)', () => {
  it('exists, loads only its own bundled script, and carries exactly the strict <meta> policy', () => {
    const file = join(outDir, 'renderer', 'index.html');
    expect(existsSync(file)).toBe(true);
    const html = readFileSync(file, 'utf8');
    const policies = metaPolicies(html);
    expect(policies).toEqual([metaContentSecurityPolicy()]);
    const policy = policies[0] ?? '';
    expect(policy).toMatch(/^default-src 'none'; script-src 'self';/);
    expect(policy).toContain("connect-src 'self';");
    expect(policy).toContain("base-uri 'none'");
    expect(policy).toContain("form-action 'none'");
    expect(policy).not.toMatch(/unsafe-eval|ws:|\bhttp:(?!\/\/(127\.0\.0\.1|localhost):)/);
    // Every directive the meta carries is the header's, word for word.
    expect(contentSecurityPolicy().startsWith(policy)).toBe(true);
    // The policy comes before any script, and no script is inline.
    expect(html.indexOf('Content-Security-Policy')).toBeLessThan(html.indexOf('<script'));
    for (const tag of html.match(/<script\b[^>]*>/g) ?? []) expect(tag).toMatch(/\ssrc="\.\/assets\/[^"]+\.js"/);
    expect(html).not.toMatch(/<script\b[^>]*>[^<\s]/);
  });

  it('bundles no zod (inputs are validated in main; its feature probe runs `new Function`, which the policy refuses)', () => {
    const assets = join(outDir, 'renderer', 'assets');
    const scripts = readdirSync(assets).filter((file) => file.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(0);
    // The marker found, not the file (a minified bundle is too long to read in a failure).
    for (const file of scripts)
      expect(/\$ZodType|\$ZodError|\b_zod\b/.exec(readFileSync(join(assets, file), 'utf8'))?.[0], file).toBeUndefined();
  });

  it('still works in Chromium through the web host: its WebSocket, item images, no CSP violation', async () => {
    const sb = await startSandbox({ items: 120, seed: 23 });
    const merchant = await adminApi(sb).createMerchant({ balance: 100_000 });
    const dataDir = mkdtempSync(join(tmpdir(), 'md-build-web-'));
    const engine = new Engine({
      dataDir,
      secrets: new MemorySecretStore(),
      log: () => {},
      startDemo: () => Promise.reject(new Error('no demo here')),
      override: { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, merchantId: merchant.merchantId, apiKey: merchant.apiKey },
    });
    await engine.start();
    const host = await startWebHost({ engine, rendererDir: join(outDir, 'renderer'), host: '127.0.0.1', port: 0 });
    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    });
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('console', (message) => {
        // Nothing at all is refused (zod, whose feature probe tries `new Function`, stays out of the renderer).
        if (/Content.Security.Policy|Refused to/i.test(message.text())) problems.push(message.text());
      });
      await page.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (e) =>
          console.error(`Refused to load (CSP) ${e.violatedDirective} ${e.blockedURI}`),
        );
      });
      await page.goto(host.url);
      const grid = page.getByRole('grid', { name: 'Catalog' });
      await grid.locator('[role="row"][aria-selected]').first().waitFor({ timeout: 30_000 });
      // The bridge socket is open (the rows came through it), and an item image from the sandbox loaded.
      await page.waitForFunction(
        () =>
          [...document.images].some(
            (img) => img.complete && img.naturalWidth > 0 && img.src.startsWith('http://127.0.0.1:'),
          ),
        null,
        { timeout: 30_000 },
      );
      expect(await page.evaluate(() => 'merchantDesk' in window)).toBe(false);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
      await host.close();
      await engine.close();
      await sb.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});

describe('source layout', () => {
  it('the preload repeats the shared channel names exactly', () => {
    expect(preloadChannels.IPC_CALL_CHANNEL).toBe(IPC_CALL_CHANNEL);
    expect(preloadChannels.IPC_EVENT_CHANNEL).toBe(IPC_EVENT_CHANNEL);
  });

  it('the shell modules never import electron (they run under plain Node)', () => {
    const dir = join(root, 'src', 'main', 'shell');
    for (const name of readdirSync(dir)) {
      const text = readFileSync(join(dir, name), 'utf8');
      expect(text, name).not.toMatch(/from\s+['"]electron['"]|require\(['"]electron['"]\)|import\(['"]electron['"]\)/);
    }
  });
});
