import { createServer, type Server } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket as WsSocket } from 'ws';
import type { MerchantDeskApi } from '../../src/shared/ipc/bridge';
import type { EngineEventBatch } from '../../src/shared/ipc/events';
import { startWebHost, type WebHost } from '../../src/web/webHost';
import { EchoEngine } from './support';

/**
 * The browser side end to end, in real Chromium: a page bundled by Vite like the real
 * renderer (the platform bridge, exposed as `window.__md`), served by the web host,
 * calling the engine through the socket. The page's source is written at run time: the
 * renderer is another TypeScript project, so tests here do not import it statically.
 */

const PLATFORM_BRIDGE = join(import.meta.dirname, '../../src/renderer/src/platform/bridge.ts');

function writeTestPage(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><html lang="en"><head><meta charset="UTF-8" /><title>Merchant Desk bridge test</title>' +
      '<script type="module" src="./main.js"></script></head><body></body></html>',
  );
  const importPath = relative(dir, PLATFORM_BRIDGE).split('\\').join('/');
  writeFileSync(
    join(dir, 'main.js'),
    `import { getBridge, onBridgeState } from ${JSON.stringify(importPath.startsWith('.') ? importPath : `./${importPath}`)};
const bridge = getBridge();
const events = [];
const violations = [];
const states = [];
onBridgeState((state) => states.push(state));
bridge.events.subscribe((batch) => events.push(batch));
document.addEventListener('securitypolicyviolation', (e) => violations.push(e.violatedDirective + ' ' + e.blockedURI));
window.__md = { bridge, events, violations, states };
document.body.dataset.ready = 'yes';
`,
  );
}

declare global {
  interface Window {
    __md: { bridge: MerchantDeskApi; events: EngineEventBatch[]; violations: string[]; states: string[] };
  }
}

const TOKEN = 'browser-token-0123456789abcdef';
const batch = (seq: number): EngineEventBatch => ({ seq, at: '2026-01-01T00:00:00.000Z', activeTrades: seq });

describe('web bridge in Chromium', () => {
  const work = mkdtempSync(join(tmpdir(), 'md-web-page-'));
  const outDir = join(work, 'out');
  const engine = new EchoEngine();
  let host: WebHost;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    writeTestPage(join(work, 'src'));
    await build({
      configFile: false,
      root: join(work, 'src'),
      logLevel: 'warn',
      build: { outDir, emptyOutDir: true, minify: false },
    });
    host = await startWebHost({ engine, rendererDir: outDir, token: TOKEN });
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    });
    context = await browser.newContext();
    page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    await page.goto(host.url);
    await page.waitForSelector('body[data-ready="yes"]', { state: 'attached' });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await host?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it("takes the token out of the address bar and keeps it in this origin's storage, in no cookie", async () => {
    expect(page.url()).toBe(`${host.origin}/`);
    expect(await context.cookies()).toEqual([]);
    expect(await page.evaluate(() => localStorage.getItem('merchant-desk.web-token'))).toBe(TOKEN);
    expect(await page.evaluate(() => window.__md.bridge.host)).toBe('web');
    expect(await page.evaluate(() => window.__md.bridge.catalog.item({ itemId: 1 }))).toMatchObject({ ok: true });
  });

  it('an image from another port of 127.0.0.1 receives nothing that opens the bridge, even replayed by a non-browser client', async () => {
    const seen: { url: string; headers: Record<string, string | string[] | undefined> }[] = [];
    const images: Server = createServer((req, res) => {
      seen.push({ url: req.url ?? '', headers: req.headers });
      res.writeHead(200, { 'content-type': 'image/svg+xml' });
      res.end('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>');
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    try {
      const imageUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}/item.svg`;
      const other = await context.newPage();
      // A fresh page load with the token in its URL, as a user opens it; the item image loads from elsewhere.
      await other.goto(host.url);
      await other.waitForSelector('body[data-ready="yes"]', { state: 'attached' });
      expect(await other.evaluate(() => window.__md.bridge.catalog.item({ itemId: 2 }))).toMatchObject({ ok: true });
      const loaded = await other.evaluate(
        (src) =>
          new Promise<boolean>((resolve) => {
            const img = new Image();
            img.onload = () => resolve(true);
            img.onerror = () => resolve(false);
            img.src = src;
            document.body.append(img);
          }),
        imageUrl,
      );
      expect(loaded).toBe(true);
      await other.close();
      expect(seen).toHaveLength(1);
      const received = JSON.stringify(seen);
      expect(received).not.toContain(TOKEN);
      expect(seen[0]?.headers['cookie']).toBeUndefined();
      expect(seen[0]?.headers['referer']).toBeUndefined();

      // Replayed from Node with the page's own Origin: the socket opens, but nothing passes without the token.
      const before = engine.calls.length;
      const replayed = new WsSocket(`ws://127.0.0.1:${host.port}/bridge`, {
        headers: Object.fromEntries(
          Object.entries(seen[0]?.headers ?? {}).filter(([name]) => name === 'cookie' || name === 'authorization'),
        ) as Record<string, string>,
        origin: host.origin,
      });
      const frames: string[] = [];
      replayed.on('message', (data) => frames.push(String(data)));
      replayed.on('error', () => {});
      replayed.on('open', () =>
        replayed.send(JSON.stringify({ type: 'call', id: 1, method: 'app.snapshot', input: {} })),
      );
      const code = await new Promise<number>((resolve) => replayed.on('close', (c) => resolve(c)));
      expect(code).toBe(4401);
      expect(frames).toEqual([]);
      expect(engine.calls.length).toBe(before);
    } finally {
      images.close();
    }
  });

  it("a link with a token the host refuses does not replace this address's token: the page goes on with the one it had", async () => {
    const other = await context.newPage();
    await other.goto(`${host.origin}/?token=someone-elses-token-0123456789#/trades`);
    await other.waitForSelector('body[data-ready="yes"]', { state: 'attached' });
    expect(other.url()).toBe(`${host.origin}/#/trades`);
    expect(await other.evaluate(() => window.__md.bridge.catalog.item({ itemId: 6 }))).toMatchObject({ ok: true });
    expect(await other.evaluate(() => localStorage.getItem('merchant-desk.web-token'))).toBe(TOKEN);
    await other.close();
  });

  it('a reload keeps working (the token stays with this origin), with the URL still clean', async () => {
    await page.reload();
    await page.waitForSelector('body[data-ready="yes"]', { state: 'attached' });
    expect(page.url()).toBe(`${host.origin}/`);
    expect(await page.evaluate(() => window.__md.bridge.catalog.item({ itemId: 3 }))).toMatchObject({ ok: true });
  });

  it('a one-time link (what the CLI hands the browser) opens the app once: used again it says the session expired', async () => {
    const link = host.openUrl();
    const fresh = await browser.newContext();
    try {
      const first = await fresh.newPage();
      await first.goto(`${link}#/trades`);
      await first.waitForSelector('body[data-ready="yes"]', { state: 'attached' });
      expect(await first.evaluate(() => window.__md.bridge.catalog.item({ itemId: 4 }))).toMatchObject({ ok: true });
      expect(first.url()).toBe(`${host.origin}/#/trades`);
      expect(await first.evaluate(() => localStorage.getItem('merchant-desk.web-token'))).toBe(TOKEN);
    } finally {
      await fresh.close();
    }
    const stranger = await browser.newContext();
    try {
      const second = await stranger.newPage();
      await second.goto(link);
      await second.waitForFunction(() => window.__md.states.at(-1) === 'unauthorized', undefined, { timeout: 10_000 });
      expect(await second.evaluate(() => localStorage.getItem('merchant-desk.web-token'))).toBeNull();
    } finally {
      await stranger.close();
    }
  });

  it('calls the engine through dispatchIpc and gets envelopes back', async () => {
    const answers = await page.evaluate(async () => {
      const { bridge } = window.__md;
      return Promise.all([
        bridge.catalog.item({ itemId: 5 }),
        bridge.trades.get({ tradeId: 'missing' }),
        bridge.catalog.item({ itemId: -1 }),
        bridge.app.snapshot({}),
      ]);
    });
    expect(answers[0]).toEqual({ ok: true, value: { method: 'catalog.item', input: { itemId: 5 } } });
    expect(answers[1]).toEqual({ ok: false, error: { code: 'not_found', message: 'no such trade' } });
    expect(answers[2]).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(answers[3]).toEqual({ ok: true, value: { method: 'app.snapshot', input: {} } });
    expect(engine.calls.some((c) => c.method === 'catalog.item' && (c.input as { itemId: number }).itemId === -1)).toBe(
      false,
    );
  });

  it('receives engine event batches', async () => {
    engine.emit(batch(1));
    engine.emit(batch(2));
    await page.waitForFunction(() => window.__md.events.length >= 2);
    expect(await page.evaluate(() => window.__md.events.map((b) => b.seq))).toEqual([1, 2]);
  });

  it('survives a host restart: the call in flight fails, the socket comes back, events flow again', async () => {
    let release = () => {};
    engine.hold = new Promise<void>((resolve) => (release = resolve));
    await page.evaluate(() => {
      (window as unknown as { __inFlight: Promise<unknown> }).__inFlight = window.__md.bridge.catalog.refresh({});
    });
    await expect.poll(() => engine.calls.at(-1)?.method).toBe('catalog.refresh');
    const port = host.port;
    await host.close();
    expect(await page.evaluate(() => (window as unknown as { __inFlight: Promise<unknown> }).__inFlight)).toEqual({
      ok: false,
      error: { code: 'unavailable', message: 'Connection to Merchant Desk lost' },
    });
    release();
    engine.hold = null;

    host = await startWebHost({ engine, rendererDir: outDir, token: TOKEN, port });
    // The page reconnects with the token it holds; a call made now is queued until then.
    expect(await page.evaluate(() => window.__md.bridge.catalog.item({ itemId: 8 }))).toEqual({
      ok: true,
      value: { method: 'catalog.item', input: { itemId: 8 } },
    });
    engine.emit(batch(3));
    await page.waitForFunction(() => window.__md.events.some((b) => b.seq === 3));
    expect(await page.evaluate(() => window.__md.states)).toEqual(
      expect.arrayContaining(['connecting', 'open', 'closed']),
    );
    expect(await page.evaluate(() => window.__md.states.at(-1))).toBe('open');
  });

  it('learns that its session expired when the host comes back with a new token, and recovers once the new URL is opened', async () => {
    const port = host.port;
    await host.close();
    const fresh = 'renewed-token-0123456789abcdef';
    host = await startWebHost({ engine, rendererDir: outDir, token: fresh, port });
    await page.waitForFunction(() => window.__md.states.at(-1) === 'unauthorized', undefined, { timeout: 20_000 });
    // The user opens the newly printed URL in another tab: it stores the new token, and this tab takes it up.
    const other = await context.newPage();
    await other.goto(host.url);
    // The token is stored once the host has welcomed it: closing the tab before that would leave nothing to take up.
    await other.waitForFunction(() => window.__md?.states.includes('open'));
    await other.close();
    await page.waitForFunction(() => window.__md.states.at(-1) === 'open', undefined, { timeout: 20_000 });
    expect(await page.evaluate(() => window.__md.bridge.catalog.item({ itemId: 11 }))).toMatchObject({ ok: true });
  });

  it('two web hosts in one browser keep their own tokens', async () => {
    const second = await startWebHost({ engine, rendererDir: outDir, token: 'second-token-0123456789abcdef' });
    try {
      const other = await context.newPage();
      await other.goto(second.url);
      await other.waitForSelector('body[data-ready="yes"]', { state: 'attached' });
      expect(await other.evaluate(() => window.__md.bridge.catalog.item({ itemId: 12 }))).toMatchObject({ ok: true });
      // The first host's page still works after the second one stored its token (each address has its own storage).
      const again = await context.newPage();
      const answer = await again.goto(`${host.origin}/`);
      expect(answer?.status()).toBe(200);
      expect(await again.evaluate(() => window.__md.bridge.catalog.item({ itemId: 13 }))).toMatchObject({ ok: true });
      expect(await again.evaluate(() => localStorage.getItem('merchant-desk.web-token'))).toBe(
        'renewed-token-0123456789abcdef',
      );
      expect(await other.evaluate(() => localStorage.getItem('merchant-desk.web-token'))).toBe(
        'second-token-0123456789abcdef',
      );
      await other.close();
      await again.close();
    } finally {
      await second.close();
    }
  });

  it('a page of another origin on the same machine cannot open the bridge', async () => {
    const foreign: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>elsewhere</title>');
    });
    await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
    try {
      const other = await context.newPage();
      await other.goto(`http://127.0.0.1:${(foreign.address() as AddressInfo).port}/`);
      // This origin's storage is its own: the host's token is not there.
      expect(await other.evaluate(() => localStorage.getItem('merchant-desk.web-token'))).toBeNull();
      const before = host.stats().connections;
      const outcome = await other.evaluate(
        (url) =>
          new Promise<string>((resolve) => {
            const ws = new WebSocket(url);
            ws.onopen = () => resolve('opened');
            ws.onclose = () => resolve('refused');
          }),
        `ws://127.0.0.1:${host.port}/bridge`,
      );
      expect(outcome).toBe('refused');
      const read = await other.evaluate(async (url) => {
        try {
          const r = await fetch(url, { credentials: 'include', mode: 'no-cors' });
          return `status ${r.status} ${r.type}`;
        } catch (e) {
          return `failed ${(e as Error).message}`;
        }
      }, `${host.origin}/`);
      // Opaque at best: the page can never read the app.
      expect(read).not.toMatch(/status 200 basic/);
      expect(host.stats().connections).toBe(before);
      await other.close();
    } finally {
      foreign.close();
    }
  });

  it('loaded without any CSP violation', async () => {
    expect(await page.evaluate(() => window.__md.violations)).toEqual([]);
    expect(consoleErrors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
  });
});
