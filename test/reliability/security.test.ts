import { createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Item } from '../../src/shared/api';
import type { IpcEnvelope } from '../../src/shared/ipc';
import { dispatchIpc } from '../../src/main/core/ipc/dispatch';
import { startSandbox, type Sandbox } from '../../src/server/sandbox';
import { signWebhookBody, verifyWebhookSignature } from '../../src/server/webhooks/signature';
import { startWebHost, type WebHost } from '../../src/web/webHost';
import { FaultProxy } from '../support/faultProxy';
import { type EngineHarness, startEngine } from '../support/faults/harness';
import { waitFor } from '../support/waitFor';
import { adminApi, TEST_TRADE_URL, tradeUrlFor, type MerchantCredentials } from '../support/sandboxHttp';
import { makeRendererDir, openBridge } from '../web/support';

/**
 * The API key never leaves the engine: not into the database files (WAL
 * included), the log, the text of a crash, any IPC result or event batch, the
 * web host's bridge socket or the renderer it serves — through a session with
 * buys (accepted and refused), catalog and ledger syncs, network cuts, a hostile
 * proxy that echoes the request headers back, and handlers that throw.
 * And the webhook receiver check rejects what is not exactly signed.
 */

const ROOT = resolve(import.meta.dirname, '../..');

/** Every 12-character window of the key: a truncated or partial leak counts too. */
function leakIn(text: string | Buffer, key: string): string | null {
  const haystack = typeof text === 'string' ? text : text.toString('latin1');
  for (let i = 0; i + 12 <= key.length; i++) {
    const part = key.slice(i, i + 12);
    const at = haystack.indexOf(part);
    if (at >= 0) return haystack.slice(Math.max(0, at - 60), at + 72);
  }
  return null;
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}

describe('security: the API key stays in the engine', () => {
  let sb: Sandbox;
  let proxy: FaultProxy;
  let merchant: MerchantCredentials;
  let dataDir: string;
  let app: EngineHarness;
  let host: WebHost;
  let renderer: { rendererDir: string; cleanup(): void } | null = null;
  const hostLog: string[] = [];
  const ipc: string[] = [];
  const internalErrors: string[] = [];
  const bridgeMessages: string[] = [];
  const token = 'security-test-token-0123456789';

  async function ipcCall(method: string, input: unknown = {}): Promise<IpcEnvelope<unknown>> {
    const envelope = await dispatchIpc(app.engine, method, input, (m, error) => {
      internalErrors.push(`${m}: ${error instanceof Error ? error.message : String(error)}`);
    });
    ipc.push(JSON.stringify(envelope));
    return envelope;
  }

  beforeAll(async () => {
    sb = await startSandbox({ items: 300, seed: 61 });
    proxy = FaultProxy.forBaseUrl(sb.baseUrl);
    await proxy.start();
    merchant = await adminApi(sb).createMerchant({ balance: 50_000 });
    expect(merchant.apiKey.length).toBeGreaterThanOrEqual(32);
    dataDir = mkdtempSync(join(tmpdir(), 'security-'));
    app = await startEngine(dataDir, {
      baseUrl: proxy.baseUrl,
      wsUrl: proxy.wsUrl,
      merchantId: merchant.merchantId,
      apiKey: merchant.apiKey,
    });
    const built = join(ROOT, 'out', 'renderer');
    if (!existsSync(join(built, 'index.html'))) renderer = makeRendererDir();
    host = await startWebHost({
      engine: app.engine,
      rendererDir: renderer?.rendererDir ?? built,
      token,
      log: (line) => hostLog.push(line),
    });
  }, 60_000);

  afterAll(async () => {
    await host?.close();
    await app?.close();
    await proxy?.close();
    await sb?.close();
    renderer?.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is in no database file, log line, crash text, IPC result, event batch, bridge message or renderer file', async () => {
    const key = merchant.apiKey;
    // The bridge, as the renderer uses it: every frame it receives is kept.
    const { ws: bridge } = await openBridge(host.url, { token }, (message) =>
      bridgeMessages.push(JSON.stringify(message)),
    );
    let nextId = 1;
    const viaBridge = (method: string, input: unknown = {}) =>
      new Promise<Record<string, unknown>>((done) => {
        const id = nextId++;
        const onMessage = (data: unknown) => {
          const message = JSON.parse(String(data)) as Record<string, unknown>;
          if (message.type === 'result' && message.id === id) {
            bridge.off('message', onMessage);
            done(message);
          }
        };
        bridge.on('message', onMessage);
        bridge.send(JSON.stringify({ type: 'call', id, method, input }));
      });

    await waitFor(
      async () => (await app.call('catalog.query', { limit: 1 })).total > 0 && app.session().balance !== null,
      20_000,
      'first sync',
    );
    await viaBridge('app.snapshot');
    await ipcCall('catalog.refresh');
    await ipcCall('recipients.save', { label: 'Main', tradeUrl: TEST_TRADE_URL });
    const [cheap, other, pricey, spare] = (
      await adminApi(sb).post<{ items: Item[] }>('/admin/items', {
        items: [{ price: 800 }, { price: 900 }, { price: 900_000 }, { price: 700 }],
      })
    ).body.items as [Item, Item, Item, Item];
    const buy = (item: Item, patch: Record<string, unknown> = {}) => ({
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      recipient: { tradeUrl: tradeUrlFor(80_000_001) },
      ...patch,
    });
    // Buys: accepted (over IPC and over the bridge), refused for price, funds and a bad trade URL.
    const bought = await ipcCall('buy.byId', buy(cheap));
    expect(bought.ok && (bought.value as { ok: boolean }).ok).toBe(true);
    await viaBridge('buy.byId', buy(other));
    await ipcCall('buy.byId', buy(other, { price: 1 }));
    await ipcCall('buy.byId', buy(pricey));
    await ipcCall('buy.byId', buy(cheap, { recipient: { tradeUrl: 'https://steamcommunity.com/id/nobody' } }));
    await ipcCall('buy.byName', {
      market_hash_name: 'No Such Item (Factory New)',
      maxPrice: 500,
      recipient: { tradeUrl: TEST_TRADE_URL },
    });
    // Trades move; notifications and the ledger sync follow.
    const tradeId = bought.ok ? ((bought.value as { trade: { tradeId: string } }).trade.tradeId as string) : '';
    await adminApi(sb).transition(tradeId, { status: 'SENT' });
    await adminApi(sb).transition(tradeId, { status: 'COMPLETED' });
    await waitFor(async () => (await app.call('wallet.ledger', { limit: 50 })).total >= 3, 15_000, 'ledger synced');
    for (const method of [
      'app.snapshot',
      'trades.query',
      'wallet.ledger',
      'wallet.balanceSeries',
      'recipients.list',
      'alerts.firings',
      'alerts.rules',
    ]) {
      await ipcCall(method);
      await viaBridge(method);
    }
    await ipcCall('trades.get', { tradeId });
    await ipcCall('trades.exportCsv');
    await ipcCall('wallet.exportCsv');
    await ipcCall('alerts.saveRule', { name: 'cheap', namePattern: 'AK-47', maxPrice: 100 });
    // Connection tests: the right key, a wrong one, and one that is not a valid header (its text lands in a fetch error).
    await ipcCall('account.test', {
      baseUrl: proxy.baseUrl,
      wsUrl: proxy.wsUrl,
      merchantId: merchant.merchantId,
      apiKey: key,
    });
    await ipcCall('account.test', {
      baseUrl: proxy.baseUrl,
      wsUrl: proxy.wsUrl,
      merchantId: merchant.merchantId,
      apiKey: `${key.slice(0, -4)}0000`,
    });
    const malformed = await ipcCall('account.test', {
      baseUrl: proxy.baseUrl,
      wsUrl: proxy.wsUrl,
      merchantId: merchant.merchantId,
      apiKey: `${key}\nX`,
    });
    expect(JSON.stringify(malformed)).toMatch(/Could not connect/);

    // A hostile middlebox echoes our request headers back in its error pages.
    const until = Date.now() + 60_000;
    const removeEchoes = [
      proxy.inject('/Wallet', { kind: 'echo', status: 502, untilMs: until }),
      proxy.inject('/Items/Buy', { kind: 'echo', status: 500, untilMs: until }),
      proxy.inject('/Trades', { kind: 'echo', status: 400, untilMs: until }),
    ];
    await app.session().refreshBalance();
    const echoedBuy = await ipcCall('buy.byId', buy(spare));
    expect(JSON.stringify(echoedBuy)).toMatch(/"ok":false/);
    await app.session().reconcile('security test');
    await ipcCall('account.test', { baseUrl: proxy.baseUrl, wsUrl: proxy.wsUrl, merchantId: merchant.merchantId });
    expect(proxy.requests.filter((r) => r.fault === 'echo').length).toBeGreaterThanOrEqual(3);
    expect(app.logs.some((line) => line.includes('502'))).toBe(true);
    for (const remove of removeEchoes) remove();
    // The catalog download runs in the store's worker: its refusal text is scrubbed too.
    const removeCatalogEcho = proxy.inject('/Items/GetAllItemsOnSale', {
      kind: 'echo',
      status: 502,
      untilMs: Date.now() + 60_000,
    });
    await app.session().syncCatalog('security test');
    removeCatalogEcho();
    expect(
      app.logs.some(
        (line) => line.startsWith('catalog sync') && line.includes('HTTP 502 from /Items/GetAllItemsOnSale'),
      ),
      app.logs.slice(-8).join('\n'),
    ).toBe(true);
    // A network cut: the feed drops and reconnects, requests fail and are logged.
    proxy.dropConnections();
    await waitFor(() => app.session().connection.state === 'connected', 20_000, 'feed back after the cut');

    // Handlers that throw: the IPC answer is generic, whatever the error carried; the host logs only the message.
    const store = app.session().store;
    const original = store.queryTrades.bind(store);
    store.queryTrades = () =>
      Promise.reject(new Error(`disk I/O error while reading trades (merchant ${merchant.merchantId}, key ${key})`));
    const crashed = await ipcCall('trades.query', { limit: 5 });
    const crashedBridge = await viaBridge('trades.query', { limit: 5 });
    store.queryTrades = original;
    expect(crashed).toEqual({
      ok: false,
      error: { code: 'internal', message: 'trades.query failed unexpectedly; see the log' },
    });
    expect(JSON.stringify(crashedBridge)).toContain('failed unexpectedly');
    expect(internalErrors.some((line) => line.includes('disk I/O error'))).toBe(true);

    // Database files while the engine runs (the WAL holds the latest writes) ...
    const live = filesUnder(dataDir);
    expect(live.some((file) => file.endsWith('-wal'))).toBe(true);
    for (const file of live) expect(leakIn(readFileSync(file), key), file).toBeNull();

    // ... the renderer the web host serves ...
    const html = await (await fetch(host.url)).text();
    const assets = [...html.matchAll(/(?:src|href)="\.?\/?(assets\/[^"]+)"/g)].map((m) => m[1] as string);
    expect(assets.length).toBeGreaterThan(0);
    expect(leakIn(html, key)).toBeNull();
    for (const asset of assets) {
      const body = await (await fetch(`${host.origin}/${asset}`)).text();
      expect(leakIn(body, key), asset).toBeNull();
    }

    // ... and everything that crossed a boundary, once the bridge has received every batch the engine has sent.
    const lastSeq = app.batches.at(-1)?.seq ?? 0;
    await waitFor(
      () =>
        bridgeMessages.some((text) => {
          const message = JSON.parse(text) as { type?: string; batch?: { seq?: number } };
          return message.type === 'events' && (message.batch?.seq ?? -1) >= lastSeq;
        }),
      10_000,
      'the last batch over the bridge',
    );
    bridge.close();
    const batches = app.batches.map((batch) => JSON.stringify(batch));
    const everything: [string, string[]][] = [
      ['engine log', app.logs],
      ['web host log', hostLog],
      ['internal errors handed to the host', internalErrors],
      ['IPC results', ipc],
      ['event batches', batches],
      ['bridge messages', bridgeMessages],
      ['snapshot', [JSON.stringify(await app.engine.snapshot()), app.engine.describe()]],
      [
        'inspected client and feed',
        [
          inspect(app.session().client, { depth: 4 }),
          inspect(app.session().feed, { depth: 4 }),
          JSON.stringify(app.session().client),
        ],
      ],
    ];
    for (const [what, lines] of everything) {
      for (const line of lines) expect(leakIn(line, key), `${what}: ${line.slice(0, 400)}`).toBeNull();
    }
    expect(batches.length).toBeGreaterThan(10);
    expect(bridgeMessages.length).toBeGreaterThan(10);

    // After a clean close too (the WAL is checkpointed into the main file).
    await host.close();
    await app.close();
    for (const file of filesUnder(dataDir)) expect(leakIn(readFileSync(file), key), file).toBeNull();
    process.stdout.write(
      `security: key checked against ${live.length} live files, ${app.logs.length} log lines, ${ipc.length} IPC results, ` +
        `${batches.length} event batches, ${bridgeMessages.length} bridge messages, ${assets.length + 1} renderer files\n`,
    );
  }, 90_000);
});

describe('security: webhook signature check at a receiver', () => {
  const key = 'sk_sandbox_0123456789abcdef0123456789abcdef0123456789abcdef';
  const body =
    '{"tradeId":"1f0c","status":"COMPLETED","externalId":"ünïcødé-✓","offerId":null,"failReason":null,"errorCode":null}';
  const signature = signWebhookBody(body, key);

  it('accepts exactly the signature of the exact bytes, in either hex case', () => {
    expect(verifyWebhookSignature(Buffer.from(body, 'utf8'), signature, key)).toBe(true);
    expect(verifyWebhookSignature(body, signature.toUpperCase(), key)).toBe(true);
    const mixed = [...signature].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join('');
    expect(verifyWebhookSignature(body, mixed, key)).toBe(true);
    // The same HMAC computed independently (what a merchant's own receiver would do).
    expect(createHmac('sha256', key).update(Buffer.from(body, 'utf8')).digest('hex')).toBe(signature);
  });

  it('rejects wrong keys, truncated, extended, prefixed, padded and re-serialised variants', () => {
    const rejected: [string, string | Buffer, string | undefined, string][] = [
      ['another key of the same length', body, signature, `${key.slice(0, -1)}X`],
      ['a prefix of the key', body, signWebhookBody(body, key.slice(0, 20)), key],
      ['the key with a trailing newline', body, signWebhookBody(body, `${key}\n`), key],
      ['signature truncated to 63', body, signature.slice(0, 63), key],
      ['signature truncated to 32', body, signature.slice(0, 32), key],
      ['signature plus one hex digit', body, `${signature}0`, key],
      ['signature twice', body, signature + signature, key],
      ['sha256= prefix', body, `sha256=${signature}`, key],
      ['padded with spaces', body, ` ${signature} `, key],
      ['base64 of the same digest', body, Buffer.from(signature, 'hex').toString('base64'), key],
      ['another body signed with the key', body, signWebhookBody(body.replace('COMPLETED', 'CANCELLED'), key), key],
      ['body with one byte flipped', body.replace('"COMPLETED"', '"COMPLETEd"'), signature, key],
      ['body re-serialised (same JSON value)', JSON.stringify(JSON.parse(body), null, 1), signature, key],
      ['body in another encoding', Buffer.from(body, 'latin1'), signature, key],
      ['body with a trailing newline', `${body}\n`, signature, key],
      ['empty body', '', signature, key],
      ['no header', body, undefined, key],
      ['all-zero signature', body, '0'.repeat(64), key],
    ];
    for (const [what, bytes, header, secret] of rejected)
      expect(verifyWebhookSignature(bytes, header, secret), what).toBe(false);
  });

  it('a receiver behind a tampering relay rejects the altered deliveries of the sandbox and accepts the intact ones', async () => {
    const sb = await startSandbox({ items: 50, seed: 62 });
    const verdicts: { kind: string; ok: boolean; tampered: boolean }[] = [];
    let merchantKey = '';
    // The receiver: raw bytes, verified before anything is parsed.
    const receiver: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const ok = verifyWebhookSignature(
          Buffer.concat(chunks),
          req.headers['x-signature'] as string | undefined,
          merchantKey,
        );
        verdicts.push({ kind: String(req.headers['x-webhook-type']), ok, tampered: req.headers['x-tampered'] === '1' });
        res.writeHead(ok ? 200 : 401).end();
      });
    });
    await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
    const receiverPort = (receiver.address() as AddressInfo).port;
    // The relay alters every second delivery: the body, or the signature.
    let seen = 0;
    const relay = new FaultProxy({ host: '127.0.0.1', port: receiverPort });
    relay.inject('/', {
      kind: 'tamper',
      request: (raw, headers) => {
        const n = seen++;
        if (n % 2 === 0) return raw;
        headers['x-tampered'] = '1';
        if (n % 4 === 1)
          return Buffer.from(
            raw
              .toString('utf8')
              .replace(/"status":"(\w+)"/, '"status":"COMPLETED"')
              .replace(/}$/, ' }'),
          );
        headers['x-signature'] = signWebhookBody(raw, 'guessed-key');
        return raw;
      },
    });
    await relay.start();
    try {
      const relayUrl = `${relay.baseUrl}/hook`;
      const m = await adminApi(sb).createMerchant({ balance: 100_000, webhookUrl: relayUrl });
      merchantKey = m.apiKey;
      for (let i = 0; i < 3; i++)
        expect((await adminApi(sb).post(`/admin/merchants/${m.merchantId}/webhook-test`)).status).toBe(200);
      const [item] = (await adminApi(sb).post<{ items: Item[] }>('/admin/items', { items: [{ price: 500 }] })).body
        .items as [Item];
      expect((await adminApi(sb).delete(`/admin/items/${item.itemId}`)).status).toBe(200);
      await waitFor(() => verdicts.length >= 4, 15_000, 'deliveries');
      expect(verdicts.filter((v) => v.tampered).every((v) => !v.ok)).toBe(true);
      expect(verdicts.filter((v) => !v.tampered).every((v) => v.ok)).toBe(true);
      expect(verdicts.filter((v) => v.tampered).length).toBeGreaterThanOrEqual(2);
    } finally {
      await relay.close();
      await new Promise<void>((done) => receiver.close(() => done()));
      await sb.close();
    }
  }, 30_000);
});
