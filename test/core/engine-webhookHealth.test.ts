import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dispatchIpc } from '../../src/main/core/ipc/dispatch';
import { readWebhookHealth } from '../../src/main/core/operations/webhookHealth';
import { HISTORY_MARK_META } from '../../src/main/core/store/schema';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import { verifyWebhookSignature } from '../../src/server/webhooks/signature';
import type { Item, Trade, TradeHistoryPage } from '../../src/shared/api';
import type { Notification } from '../../src/shared/ipc';
import { type EngineHarness, startEngine } from '../support/faults/harness';
import { FaultProxy } from '../support/faultProxy';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { adminApi, merchantApi, tradeUrlFor } from '../support/sandboxHttp';
import { waitFor } from '../support/waitFor';

/** A webhook endpoint on loopback: records each request, checks its signature with the merchant's key. */
class Receiver {
  readonly hits: {
    type: string | undefined;
    contentType: string | undefined;
    raw: string;
    signature: string;
    verified: boolean;
  }[] = [];
  status = 200;
  private server!: Server;
  url = '';

  constructor(private readonly key: string) {}

  static async start(key: string, path = '/hooks'): Promise<Receiver> {
    const receiver = new Receiver(key);
    receiver.server = createServer((request, response) => receiver.handle(request, response));
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}${path}`;
    return receiver;
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      const signature = String(request.headers['x-signature'] ?? '');
      this.hits.push({
        type: request.headers['x-webhook-type'] as string | undefined,
        contentType: request.headers['content-type'],
        raw: raw.toString('utf8'),
        signature,
        verified: verifyWebhookSignature(raw, signature, this.key),
      });
      response.writeHead(this.status).end('ok');
    });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const API_KEY = 'sk_test_webhook_health_0001';
const SPEC_KEYS = ['tradeId', 'status', 'externalId', 'offerId', 'failReason', 'errorCode'];

async function newItem(sb: Sandbox, itemId: number): Promise<Item> {
  const page = await adminApi(sb).post<{ items: Item[] }>('/admin/items', { items: [{ itemId, price: 500 }] });
  return page.body.items[0] as Item;
}

function buy(sb: Sandbox, merchant: MerchantCredentials, item: Item, partner: number): string {
  return sb.core.buying.buy(merchant.merchantId, {
    itemId: item.itemId,
    assetId: item.assetId,
    price: item.price,
    tradeUrl: tradeUrlFor(partner),
  }).tradeId;
}

/**
 * The sandbox's own record of a trade, as its API gives it. Read in process, not through the API: a wait polls it
 * every 20 ms, and the merchant's 300 requests a minute would answer 429 within seconds on a slow machine.
 */
async function serverTrade(sb: Sandbox, tradeId: string): Promise<Trade> {
  return sb.core.trades.toWire(sb.core.trades.get(tradeId));
}

const webhookNotices = (app: EngineHarness): Notification[] =>
  app.batches.flatMap((batch) => batch.notifications ?? []).filter((n) => n.id.startsWith('webhook-failed:'));

describe('webhook health against the sandbox’s real delivery and breaker', () => {
  let sb: Sandbox;
  let merchant: MerchantCredentials;
  let dataDir: string;
  let app: EngineHarness;
  let failing: Receiver;
  let backEnd: Receiver;

  beforeEach(async () => {
    sb = await startSandbox({ items: 40, seed: 5 });
    failing = await Receiver.start(API_KEY);
    failing.status = 500;
    backEnd = await Receiver.start(API_KEY, '/merchant/webhook/SECRET-PATH');
    merchant = await adminApi(sb).createMerchant({ balance: 1_000_000, apiKey: API_KEY, webhookUrl: failing.url });
    dataDir = mkdtempSync(join(tmpdir(), 'engine-webhook-health-'));
    // The merchant's back end listens on loopback: the host's opt-in for private addresses.
    app = await startEngine(
      dataDir,
      { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, ...merchant },
      { forwardToPrivateAddresses: true },
    );
    await waitFor(() => app.session().connection.state === 'connected', 20_000, 'the feed');
  });

  afterEach(async () => {
    await app.close();
    await Promise.all([failing.close(), backEnd.close()]);
    await sb.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const setUrl = (webhookUrl: string | null) =>
    adminApi(sb).patch(`/admin/merchants/${merchant.merchantId}`, { webhookUrl });

  /** A delivery of `tradeId` (of `status`, else any) tried at the failing endpoint, then failed for good (the URL removed). */
  const failForGood = async (tradeId: string, status?: string): Promise<Trade> => {
    await waitFor(
      () => failing.hits.some((hit) => hit.raw.includes(tradeId) && (!status || hit.raw.includes(status))),
      10_000,
      `the ${status ?? 'first'} delivery of ${tradeId} tried`,
    );
    await setUrl(null);
    return waitFor(
      async () => {
        const now = await serverTrade(sb, tradeId);
        return now.webhookStatus === 'failed' ? now : null;
      },
      10_000,
      `${tradeId} failed`,
    );
  };

  /** A second desk on a new cache (past `held`'s status time), and its history's one notification. */
  const newCacheDesk = async (prefix: string, held: Trade) => {
    await waitFor(() => Date.now() > Date.parse(held.updatedAt), 5_000, 'the clock past its status time');
    const dir = mkdtempSync(join(tmpdir(), prefix));
    const desk = await startEngine(dir, { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, ...merchant });
    const close = async () => {
      await desk.close();
      rmSync(dir, { recursive: true, force: true });
    };
    try {
      const loaded = await waitFor(
        () =>
          desk.batches.flatMap((batch) => batch.notifications ?? []).find((n) => n.title === 'Trade history loaded'),
        30_000,
        'the history’s summary',
      );
      return { desk, loaded, close };
    } catch (error) {
      await close();
      throw error;
    }
  };

  it('shows failed deliveries, guesses the breaker’s pause, tells the first failure once, and replays signed bodies once unless asked again', async () => {
    const tradeIds: string[] = [];
    for (let i = 0; i < 5; i++) tradeIds.push(buy(sb, merchant, await newItem(sb, 97_000_001 + i), 50_001 + i));
    const view = async () =>
      (
        await adminApi(sb).get<{ webhook: { pauses: number; pausedUntil: string | null } }>(
          `/admin/merchants/${merchant.merchantId}`,
        )
      ).body.webhook;
    await waitFor(async () => (await view()).pauses === 1, 10_000, 'the breaker to open');
    // Twelve hours of sandbox time: every pause ends with one attempt that fails, until the first trade's update has
    // had its four attempts.
    await adminApi(sb).advance(12 * 3600);
    const first = await serverTrade(sb, tradeIds[0] as string);
    expect(first.webhookStatus).toBe('failed');
    const breaker = await view();

    // Nothing tells the engine of a failed delivery but its own ask: the view asks, the notice follows once.
    await app.call('operations.webhookHealth');
    await waitFor(() => webhookNotices(app).length > 0, 20_000, 'the first-failure notification');
    const [notice] = webhookNotices(app);
    expect(notice).toMatchObject({
      kind: 'system',
      category: 'connection',
      target: { type: 'trade', tradeId: first.tradeId },
    });

    const health = await app.call('operations.webhookHealth');
    expect(health.failedTotal).toBe(1);
    expect(health.failed.map((t) => t.tradeId)).toEqual([first.tradeId]);
    expect(health.byStatus).toEqual([{ status: first.status, count: 1 }]);
    expect(health.replay).toMatchObject({ enabled: false, log: [] });

    // The guess, at the sandbox's time, against the sandbox's own breaker.
    const sandboxNow = sb.core.clock.now();
    const guessed = await readWebhookHealth(app.session().store, sandboxNow, health.replay);
    expect(guessed.paused).toMatchObject({ since: first.updatedAt, failed: 1, pauseNumber: breaker.pauses });
    const resumeGap = Math.abs(
      Date.parse(guessed.paused?.expectedResumeAt ?? '') - Date.parse(breaker.pausedUntil ?? ''),
    );
    expect(resumeGap).toBeLessThan(60_000);
    expect(guessed.byHour.reduce((sum, b) => sum + b.count, 0) + guessed.byDay.length).toBeGreaterThan(0);

    // Another failure of the same run (nothing delivered since): stored, and not told again.
    await adminApi(sb).advance(26 * 3600);
    const failedNow = (
      await merchantApi(sb, merchant).get<TradeHistoryPage>('/Trades/History?webhookStatus=failed&limit=500')
    ).body.trades;
    const second = failedNow.find((t) => t.tradeId !== first.tradeId);
    expect(second).toBeDefined();
    await app.session().upsertTrades(failedNow, 'reconcile');
    // Stored by this call, or already by the desk's own look-up of the trade's final status.
    await waitFor(
      async () =>
        (await app.call('trades.get', { tradeId: second?.tradeId as string }))?.trade.webhookStatus === 'failed',
      10_000,
      'the second failed trade stored',
    );
    expect(webhookNotices(app)).toHaveLength(1);

    // Replay is off by default.
    const range = { from: first.updatedAt, to: (await app.call('operations.webhookHealth')).history.to as string };
    const off = await dispatchIpc(app.engine, 'operations.replayWebhooks', range);
    expect(off).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    expect(backEnd.hits).toHaveLength(0);

    await app.call('settings.update', { webhookReplayEnabled: true, webhookReplayUrl: backEnd.url });
    const plan = await app.call('operations.replayWebhooks', { ...range, dryRun: true });
    expect(plan).toMatchObject({
      chosen: failedNow.length,
      alreadyReplayed: 0,
      toSend: failedNow.length,
      record: null,
    });
    expect(backEnd.hits).toHaveLength(0);

    const done = await app.call('operations.replayWebhooks', range);
    expect(done.record).toMatchObject({ sent: failedNow.length, delivered: failedNow.length, skipped: 0, range });
    expect(backEnd.hits).toHaveLength(failedNow.length);
    for (const hit of backEnd.hits) {
      expect(hit).toMatchObject({ type: 'trade_updated', contentType: 'application/json', verified: true });
      // Checked apart from the shared function too: hex HMAC-SHA256 of the exact bytes, keyed with the API key.
      expect(hit.signature).toBe(createHmac('sha256', API_KEY).update(hit.raw).digest('hex'));
      const body = JSON.parse(hit.raw) as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(SPEC_KEYS);
      const trade = failedNow.find((t) => t.tradeId === body.tradeId) as Trade;
      expect(body).toEqual({
        tradeId: trade.tradeId,
        status: trade.status,
        externalId: trade.externalId,
        offerId: trade.offerId,
        failReason: trade.failReason,
        errorCode: trade.errorCode,
      });
    }

    // The same range again: refused until the merchant confirms; nothing sent meanwhile.
    const twice = await dispatchIpc(app.engine, 'operations.replayWebhooks', range);
    expect(twice).toMatchObject({
      ok: false,
      error: { code: 'conflict', message: expect.stringContaining('replayed already') },
    });
    expect(backEnd.hits).toHaveLength(failedNow.length);
    const again = await app.call('operations.replayWebhooks', { ...range, again: true });
    expect(again).toMatchObject({ alreadyReplayed: failedNow.length, record: { sent: failedNow.length } });
    expect(backEnd.hits).toHaveLength(2 * failedNow.length);

    const log = (await app.call('operations.webhookHealth')).replay.log;
    expect(log).toHaveLength(2);
    expect(log[0]).toMatchObject({ host: new URL(backEnd.url).host, range });
    const logged = JSON.stringify(log);
    expect(logged).not.toContain(API_KEY);
    expect(logged).not.toContain('SECRET-PATH');
  }, 120_000);
  it('a trade created later with a delivered update ends the run: the next failure is told again', async () => {
    const history = async (query: string) =>
      (await merchantApi(sb, merchant).get<TradeHistoryPage>(`/Trades/History?${query}&limit=500`)).body.trades;
    // Stored by this call, or already by the desk's own look-up of the trade's final status (the clock moved past
    // its expiry): either way the cache holds it so.
    const store = async (trades: Trade[], tradeId: string, webhookStatus: Trade['webhookStatus']) => {
      await app.session().upsertTrades(trades, 'reconcile');
      await waitFor(
        async () => (await app.call('trades.get', { tradeId }))?.trade.webhookStatus === webhookStatus,
        10_000,
        `trade ${tradeId} stored as ${webhookStatus}`,
      );
    };

    // The clock moves on once the trade's first delivery was tried (and failed), as the breaker test waits for it.
    const firstAttempt = (tradeId: string) =>
      waitFor(
        () => failing.hits.some((hit) => hit.type === 'trade_updated' && hit.raw.includes(tradeId)),
        10_000,
        `the first delivery of ${tradeId}`,
      );
    const a = buy(sb, merchant, await newItem(sb, 97_100_001), 51_001);
    await firstAttempt(a);
    await adminApi(sb).advance(12 * 3600);
    await store(await history('webhookStatus=failed'), a, 'failed');
    await waitFor(() => webhookNotices(app).length > 0, 10_000, 'the failure of a told');
    expect(webhookNotices(app).map((n) => n.target)).toEqual([{ type: 'trade', tradeId: a }]);

    // The endpoint works again (a new URL closes the breaker): a trade bought now is delivered.
    await setUrl(backEnd.url);
    const b = buy(sb, merchant, await newItem(sb, 97_100_002), 51_002);
    await waitFor(async () => (await serverTrade(sb, b)).webhookStatus === 'sent', 10_000, 'b delivered');
    await store([await serverTrade(sb, b)], b, 'sent');
    expect(webhookNotices(app)).toHaveLength(1);

    // It fails again: a new run, told once more.
    await setUrl(failing.url);
    const c = buy(sb, merchant, await newItem(sb, 97_100_003), 51_003);
    await firstAttempt(c);
    await adminApi(sb).advance(12 * 3600);
    await store(await history('webhookStatus=failed'), c, 'failed');
    await waitFor(() => webhookNotices(app).length > 1, 10_000, 'the failure of c told');
    expect(webhookNotices(app).map((n) => n.target)).toEqual([
      { type: 'trade', tradeId: a },
      { type: 'trade', tradeId: c },
    ]);
    const health = await readWebhookHealth(app.session().store, sb.core.clock.now(), {
      enabled: false,
      url: null,
      log: [],
    });
    expect(health.paused).toMatchObject({ failed: 1 });
    expect(health.paused?.since).toBe((await serverTrade(sb, c)).updatedAt);
  }, 120_000);

  it('a replay that could not connect marks nothing replayed: once the back end is up, it goes without asking', async () => {
    const tradeId = buy(sb, merchant, await newItem(sb, 97_200_001), 52_001);
    await waitFor(() => failing.hits.some((hit) => hit.raw.includes(tradeId)), 10_000, 'the first delivery');
    await adminApi(sb).advance(12 * 3600);
    const failed = (
      await merchantApi(sb, merchant).get<TradeHistoryPage>('/Trades/History?webhookStatus=failed&limit=500')
    ).body.trades;
    await app.session().upsertTrades(failed, 'reconcile');
    const stored = await waitFor(
      async () => {
        const trade = (await app.call('trades.get', { tradeId }))?.trade;
        return trade?.webhookStatus === 'failed' ? trade : null;
      },
      10_000,
      'the failed delivery in the cache',
    );
    const range = { from: stored.updatedAt, to: (await app.call('operations.webhookHealth')).history.to as string };

    // The merchant's back end is down: nothing listens on its port, the connection is refused.
    const down = await Receiver.start(API_KEY);
    await down.close();
    await app.call('settings.update', { webhookReplayEnabled: true, webhookReplayUrl: down.url });
    const refused = await app.call('operations.replayWebhooks', range);
    expect(refused.record).toMatchObject({ sent: 1, delivered: 0, skipped: 0 });

    // Up again: the delivery was never replayed, so it goes without the "send again" question.
    await app.call('settings.update', { webhookReplayUrl: backEnd.url });
    expect(await app.call('operations.replayWebhooks', { ...range, dryRun: true })).toMatchObject({
      chosen: 1,
      alreadyReplayed: 0,
      toSend: 1,
    });
    // The log says why.
    expect(refused.record?.results).toEqual([
      { tradeId, status: expect.any(String), httpStatus: null, error: expect.stringContaining('nothing was sent') },
    ]);
    const sent = await app.call('operations.replayWebhooks', range);
    expect(sent.record).toMatchObject({ sent: 1, delivered: 1, skipped: 0 });
    expect(backEnd.hits).toEqual([expect.objectContaining({ type: 'trade_updated', verified: true })]);
    // Replayed now: a third time only when asked.
    expect(await dispatchIpc(app.engine, 'operations.replayWebhooks', range)).toMatchObject({
      ok: false,
      error: { code: 'conflict' },
    });
    expect(backEnd.hits).toHaveLength(1);
  }, 60_000);

  it('a new cache sums up the failures of its history in the history’s one notification and tells the first one after', async () => {
    // A delivery that fails at its first attempt and fails for good when the URL is removed: at the status time of a
    // reversed trade (a new cache's start-up reads the window's reversals apart), on the sandbox's real-time clock.
    const reversedAndFailed = async (itemId: number, partner: number) => {
      await setUrl(failing.url);
      const tradeId = buy(sb, merchant, await newItem(sb, itemId), partner);
      for (const status of ['SENT', 'COMPLETED', 'REVERSED']) await adminApi(sb).transition(tradeId, { status });
      return failForGood(tradeId, 'REVERSED');
    };
    const before = await reversedAndFailed(97_300_001, 53_001);

    const { desk: other, loaded, close } = await newCacheDesk('engine-webhook-health-history-', before);
    try {
      expect(loaded.body).toContain('1 whose webhook delivery failed');
      expect((await other.call('trades.get', { tradeId: before.tradeId }))?.trade.webhookStatus).toBe('failed');

      // A failure after the desk opened is news: told, and it is the only failure told.
      const after = await reversedAndFailed(97_300_002, 53_002);
      await other.session().upsertTrades([after], 'reconcile');
      await waitFor(() => webhookNotices(other).length > 0, 10_000, 'the later failure told');
      expect(webhookNotices(other).map((n) => n.target)).toEqual([{ type: 'trade', tradeId: after.tradeId }]);
    } finally {
      await close();
    }
  }, 90_000);

  it('a trade whose delivery failed before the desk opened moves on and is delivered: no failure told, a new one is', async () => {
    // Still active (SENT), its SENT update never delivered: history when the desk opens.
    const a = buy(sb, merchant, await newItem(sb, 97_500_001), 55_001);
    await adminApi(sb).transition(a, { status: 'SENT' });
    const old = await failForGood(a, 'SENT');
    const { desk: other, loaded, close } = await newCacheDesk('engine-webhook-health-moves-', old);
    const held = async (tradeId: string) => (await other.call('trades.get', { tradeId }))?.trade;
    try {
      expect(loaded.body).toContain('1 whose webhook delivery failed');
      await waitFor(() => other.session().connection.state === 'connected', 20_000, 'the other desk live');

      // The endpoint works again and the trade completes while the desk is live: the frame is stored over the old
      // failure (a frame carries no webhookStatus), and the new delivery succeeds.
      await setUrl(backEnd.url);
      await adminApi(sb).transition(a, { status: 'COMPLETED' });
      await waitFor(async () => (await held(a))?.status === 'COMPLETED', 10_000, 'the completion of a stored');
      await waitFor(async () => (await serverTrade(sb, a)).webhookStatus === 'sent', 10_000, 'a delivered');
      await other.session().upsertTrades([await serverTrade(sb, a)], 'reconcile');
      await waitFor(async () => (await held(a))?.webhookStatus === 'sent', 10_000, 'the delivery of a stored');

      // A delivery that fails while the desk is live is news, and the only news: judged after a's writes.
      await setUrl(failing.url);
      const c = buy(sb, merchant, await newItem(sb, 97_500_002), 55_002);
      const failed = await failForGood(c);
      await other.session().upsertTrades([failed], 'reconcile');
      await waitFor(() => webhookNotices(other).length > 0, 10_000, 'the failure of c told');
      expect(webhookNotices(other).map((n) => n.target)).toEqual([{ type: 'trade', tradeId: c }]);
    } finally {
      await close();
    }
  }, 90_000);

  it('a new cache reads a trade of its history that moved on before its window came: the older update’s failure is not told', async () => {
    // SENT while the endpoint failed; that delivery failed for good (the URL removed) before the desk opened.
    const a = buy(sb, merchant, await newItem(sb, 97_600_001), 56_001);
    await adminApi(sb).transition(a, { status: 'SENT' });
    const old = await failForGood(a, 'SENT');
    await waitFor(() => Date.now() > Date.parse(old.updatedAt), 5_000, 'the clock past its status time');

    // A new cache whose first reads of the 14-day window and of the active trades are held: the feed names `a`
    // before the desk holds it.
    const proxy = FaultProxy.forBaseUrl(sb.baseUrl);
    await proxy.start();
    let releaseWindow!: () => void;
    const windowHeld = new Promise<void>((resolve) => (releaseWindow = resolve));
    const startUpRead = (_method: string, path: string) => /[?&](isActive|status)=/.test(path);
    proxy.inject(startUpRead, { kind: 'hold', release: windowHeld });
    const dir = mkdtempSync(join(tmpdir(), 'engine-webhook-health-window-'));
    const desk = await startEngine(dir, { baseUrl: proxy.baseUrl, wsUrl: proxy.wsUrl, ...merchant });
    try {
      await waitFor(() => desk.logs.some((line) => line.includes('Feed connected')), 20_000, 'the desk’s feed');
      // It completes live (no URL: nothing delivers the COMPLETED update). The desk reads the trade it does not hold:
      // the server's record still shows the SENT update's failure.
      await adminApi(sb).transition(a, { status: 'COMPLETED' });
      const held = await waitFor(
        async () => {
          const trade = (await desk.call('trades.get', { tradeId: a }))?.trade;
          return trade?.status === 'COMPLETED' ? trade : null;
        },
        20_000,
        'a read and stored',
      );
      expect(held.webhookStatus).toBe('failed');
      releaseWindow();

      // A delivery that fails after the desk opened, of a trade bought since, is news: told, and the only one.
      await setUrl(failing.url);
      const c = buy(sb, merchant, await newItem(sb, 97_600_002), 56_002);
      await desk.session().upsertTrades([await failForGood(c)], 'reconcile');
      await waitFor(() => webhookNotices(desk).length > 0, 10_000, 'the failure of c told');
      expect(webhookNotices(desk).map((n) => n.target)).toEqual([{ type: 'trade', tradeId: c }]);
    } finally {
      releaseWindow();
      await desk.close();
      await proxy.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('a failure held here that the server no longer lists (a later status delivered since) is read again', async () => {
    const tried = (tradeId: string, status: string) =>
      waitFor(
        () => failing.hits.some((hit) => hit.raw.includes(tradeId) && hit.raw.includes(status)),
        10_000,
        `the ${status} delivery of ${tradeId} tried`,
      );
    // Completed while the endpoint failed (for good once the URL is removed), then reversed while it still fails:
    // the REVERSED update waits for its retry, and the trade still shows the COMPLETED update's failure.
    const a = buy(sb, merchant, await newItem(sb, 97_400_001), 54_001);
    for (const status of ['SENT', 'COMPLETED']) await adminApi(sb).transition(a, { status });
    await tried(a, 'COMPLETED');
    await setUrl(null);
    await setUrl(failing.url);
    await adminApi(sb).transition(a, { status: 'REVERSED' });
    await tried(a, 'REVERSED');
    expect(await serverTrade(sb, a)).toMatchObject({ status: 'REVERSED', webhookStatus: 'failed' });
    // The desk's own read of the reversal's record (rollbackAt is not in a frame) stores it so.
    await waitFor(
      async () => {
        const held = (await app.call('trades.get', { tradeId: a }))?.trade;
        return held?.rollbackAt != null && held.webhookStatus === 'failed';
      },
      // The record of a final status is read 10 s after its frame (TradeLookups): 12 s on a quiet machine.
      60_000,
      () => `the reversal stored with its failed delivery; the engine's log:\n${app.logs.join('\n')}`,
    );

    // The endpoint works again: the waiting REVERSED update is delivered; no status changes, so no frame comes.
    await setUrl(backEnd.url);
    await waitFor(async () => (await serverTrade(sb, a)).webhookStatus === 'sent', 10_000, 'a delivered');
    await app.session().refreshWebhookFailed();
    expect((await app.call('trades.get', { tradeId: a }))?.trade.webhookStatus).toBe('sent');
    expect((await app.call('operations.webhookHealth')).failedTotal).toBe(0);
  }, 90_000);

  it('a cache that is behind stores a failure before the history showing a later delivery: not told', async () => {
    // Another desk's cache, with the account's history loaded once (nothing in it yet), then closed.
    const otherDir = mkdtempSync(join(tmpdir(), 'engine-webhook-health-behind-'));
    const first = await startEngine(otherDir, { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, ...merchant });
    try {
      await waitFor(
        async () => typeof (await first.session().store.getMeta(HISTORY_MARK_META)) === 'string',
        20_000,
        'the history loaded',
      );
    } finally {
      await first.close();
    }

    const a = buy(sb, merchant, await newItem(sb, 97_200_001), 52_001);
    await waitFor(() => failing.hits.some((hit) => hit.raw.includes(a)), 10_000, 'the first delivery of a');
    await adminApi(sb).advance(12 * 3600);
    expect((await serverTrade(sb, a)).webhookStatus).toBe('failed');
    // The endpoint works again: a trade bought later is delivered.
    await setUrl(backEnd.url);
    const b = buy(sb, merchant, await newItem(sb, 97_200_002), 52_002);
    await adminApi(sb).transition(b, { status: 'SENT' });
    await adminApi(sb).transition(b, { status: 'COMPLETED' });
    const settledAndDelivered = async () => {
      const trade = await serverTrade(sb, b);
      return trade.status === 'COMPLETED' && trade.webhookStatus === 'sent';
    };
    await waitFor(settledAndDelivered, 10_000, 'b completed and delivered');

    // The desk opens again and its history comes late: the failed deliveries are stored first.
    const proxy = FaultProxy.forBaseUrl(sb.baseUrl);
    await proxy.start();
    // The back-fill's pages (a range up `to` its start), not the reconcile's reads by status.
    const backfillPage = (_method: string, path: string) =>
      path.startsWith('/Trades/History?') && new URLSearchParams(path.split('?')[1]).has('to');
    proxy.inject(backfillPage, { kind: 'delay', delayMs: 15_000 });
    const other = await startEngine(otherDir, { baseUrl: proxy.baseUrl, wsUrl: proxy.wsUrl, ...merchant });
    try {
      await waitFor(() => other.session().connection.state === 'connected', 20_000, 'the other desk live');
      await other.call('operations.webhookHealth');
      await waitFor(
        async () => (await other.call('trades.get', { tradeId: a }))?.trade.webhookStatus === 'failed',
        10_000,
        'the failure of a stored',
      );
      expect(await other.call('trades.get', { tradeId: b })).toBeNull();
      // Judged: told, or said in the log not to be news.
      const notTold = () =>
        other.logs.some((line) => line.startsWith('webhook watch: 1 failed deliveries, a later one delivered'));
      await waitFor(() => notTold() || webhookNotices(other).length > 0, 10_000, 'the failure judged');
      expect(webhookNotices(other)).toEqual([]);
      expect(notTold()).toBe(true);
    } finally {
      await other.close();
      await proxy.close();
      rmSync(otherDir, { recursive: true, force: true });
    }
  }, 90_000);
});

describe('webhook replay refuses bad input and changes nothing', () => {
  let sb: Sandbox;
  let merchant: MerchantCredentials;
  let dataDir: string;
  let app: EngineHarness;

  beforeEach(async () => {
    sb = await startSandbox({ items: 40, seed: 5 });
    merchant = await adminApi(sb).createMerchant({ balance: 1_000_000, apiKey: API_KEY });
    dataDir = mkdtempSync(join(tmpdir(), 'engine-webhook-replay-'));
    app = await startEngine(dataDir, { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, ...merchant });
    await waitFor(() => app.session().connection.state === 'connected', 20_000, 'the feed');
  });

  afterEach(async () => {
    await app.close();
    await sb.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses URLs that are not http(s) or are not public (without the opt-in), and ranges that are empty, reversed or beyond the cache', async () => {
    const refusals: [string, string][] = [
      ['ftp://example.com/hook', 'http:// or https://'],
      ['javascript:alert(1)', 'http:// or https://'],
      ['http://127.0.0.1:8080/hook', 'loopback or private'],
      ['http://localhost/hook', 'loopback or private'],
      ['https://10.1.2.3/hook', 'loopback or private'],
      ['http://[::1]/hook', 'loopback or private'],
      ['http://192.168.1.20/hook', 'loopback or private'],
    ];
    for (const [url, reason] of refusals) {
      const answer = await dispatchIpc(app.engine, 'settings.update', {
        webhookReplayUrl: url,
        webhookReplayEnabled: true,
      });
      expect(answer, url).toMatchObject({
        ok: false,
        error: { code: 'invalid_input', message: expect.stringContaining(reason) },
      });
    }
    const unchanged = (await app.call('app.snapshot')).settings;
    expect(unchanged.webhookReplayUrl).toBeNull();
    expect(unchanged.webhookReplayEnabled).toBe(false);

    // A public URL that is never reached: every refusal below comes before anything is sent.
    await app.call('settings.update', {
      webhookReplayEnabled: true,
      webhookReplayUrl: 'https://hooks.example.com/desk',
    });
    const tradeId = buy(sb, merchant, await newItem(sb, 98_000_001), 60_001);
    await adminApi(sb).advance(1);
    await adminApi(sb).transition(tradeId, { status: 'SENT' });
    const stored = await waitFor(
      async () => {
        const trade = (await app.call('trades.get', { tradeId }))?.trade;
        return trade?.status === 'SENT' ? trade : null;
      },
      10_000,
      'the trade sent',
    );
    const at = Date.parse(stored.createdAt);
    const iso = (ms: number) => new Date(ms).toISOString();
    const cases: [unknown, string][] = [
      [{ from: iso(at + 1000), to: iso(at) }, 'reversed'],
      [{ from: iso(at), to: iso(at) }, 'The range is empty'],
      [{ from: iso(at - 86_400_000), to: iso(at) }, 'beyond the cached history'],
      [{ from: iso(at), to: iso(at + 86_400_000) }, 'beyond the cached history'],
      [{ from: stored.createdAt, to: stored.updatedAt }, 'The range is empty: no failed delivery'],
      [{ tradeIds: ['no-such-trade'] }, 'not in the local cache'],
      [{ tradeIds: [tradeId] }, 'only failed deliveries are replayed'],
      [{ tradeIds: [] }, 'at least one trade'],
    ];
    for (const [input, reason] of cases) {
      const answer = await dispatchIpc(app.engine, 'operations.replayWebhooks', input);
      expect(answer, JSON.stringify(input)).toMatchObject({
        ok: false,
        error: { message: expect.stringContaining(reason) },
      });
    }
    expect((await app.call('operations.webhookHealth')).replay.log).toEqual([]);
  }, 60_000);
});
