import { mkdtempSync, rmSync } from 'node:fs';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { BuyResult, Item, Trade, TradeHistoryPage } from '../../src/shared/api';
import { UTC_TIMESTAMP_PATTERN } from '../../src/shared/time';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import { signWebhookBody, verifyWebhookSignature } from '../../src/server/webhooks/signature';
import type { WebhookDeliveryLogEntry } from '../../src/server/webhooks/dispatcher';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { adminApi, merchantApi, tradeUrlFor } from '../support/sandboxHttp';
import { OUTCOME_ROWS, ROW_TRADE_DURATION_SECONDS, driveRow, expectedUpdates } from './outcomeRows';
import { waitFor } from '../support/waitFor';

const MINUTE = 60;

interface Hit {
  type: string | undefined;
  contentType: string | undefined;
  signature: string | undefined;
  raw: string;
  json: Record<string, unknown>;
  verified: boolean;
}

type Answer = number | 'hang';

/** A merchant's webhook endpoint: records every request and checks its signature with the merchant's key. */
class Receiver {
  readonly hits: Hit[] = [];
  answer: (hit: Hit) => Answer = () => 200;
  /** Slows every answer, to see whether deliveries overlap. */
  delayMs = 0;
  inFlight = 0;
  maxInFlight = 0;
  private server!: Server;
  url = '';

  constructor(readonly secret: string) {}

  static async start(secret: string): Promise<Receiver> {
    const receiver = new Receiver(secret);
    receiver.server = createServer((request, response) => receiver.handle(request, response));
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}/hooks`;
    return receiver;
  }

  of(type: string): Record<string, unknown>[] {
    return this.hits.filter((hit) => hit.type === type).map((hit) => hit.json);
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      const header = (name: string) =>
        typeof request.headers[name] === 'string' ? (request.headers[name] as string) : undefined;
      const hit: Hit = {
        type: header('x-webhook-type'),
        contentType: header('content-type'),
        signature: header('x-signature'),
        raw: raw.toString('utf8'),
        json: JSON.parse(raw.toString('utf8')) as Record<string, unknown>,
        verified: verifyWebhookSignature(raw, header('x-signature'), this.secret),
      };
      this.hits.push(hit);
      const answer = this.answer(hit);
      if (answer === 'hang') return;
      this.inFlight++;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      setTimeout(() => {
        this.inFlight--;
        response
          .writeHead(answer, answer >= 300 && answer < 400 ? { location: 'http://127.0.0.1:9/elsewhere' } : {})
          .end('ok');
      }, this.delayMs);
    });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

interface MerchantView {
  webhookUrl: string | null;
  webhook: { consecutiveFailures: number; pauses: number; pausedUntil: string | null };
}

describe('webhook dispatcher', () => {
  let sb: Sandbox | null = null;
  const receivers: Receiver[] = [];
  const tempDirs: string[] = [];
  let keySeq = 0;
  let partner = 1000;

  afterEach(async () => {
    await sb?.close();
    sb = null;
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
    for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  const admin = () => adminApi(sb as Sandbox);

  async function start(options: { dbFile?: string } = {}): Promise<Sandbox> {
    sb = await startSandbox({ items: 200, seed: 7, ...options });
    return sb;
  }

  /** A merchant whose webhook URL points at a fresh receiver that knows its key. */
  async function merchantWithReceiver(): Promise<{ merchant: MerchantCredentials; receiver: Receiver }> {
    const apiKey = `sk_test_webhooks_${String(++keySeq).padStart(8, '0')}`;
    const receiver = await Receiver.start(apiKey);
    receivers.push(receiver);
    const merchant = await admin().createMerchant({ webhookUrl: receiver.url, balance: 100_000, apiKey });
    return { merchant, receiver };
  }

  async function anyItem(): Promise<Item> {
    const page = await admin().post<{ items: Item[] }>('/admin/items', { items: [{ price: 500 }] });
    return page.body.items[0] as Item;
  }

  async function buy(merchant: MerchantCredentials): Promise<{ trade: BuyResult; item: Item }> {
    const item = await anyItem();
    const answer = await merchantApi(sb as Sandbox, merchant).post<BuyResult>('/Items/Buy', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      tradeUrl: tradeUrlFor(partner++),
    });
    expect(answer.status).toBe(200);
    return { trade: answer.body, item };
  }

  async function tradeOf(merchant: MerchantCredentials, tradeId: string): Promise<Trade> {
    return (await merchantApi(sb as Sandbox, merchant).get<TradeHistoryPage>(`/Trades/History?tradeId=${tradeId}`)).body
      .trades[0] as Trade;
  }

  async function merchantView(merchantId: string): Promise<MerchantView> {
    return (await admin().get<MerchantView>(`/admin/merchants/${merchantId}`)).body;
  }

  async function webhookLog(merchantId: string): Promise<WebhookDeliveryLogEntry[]> {
    return (
      await admin().get<{ deliveries: WebhookDeliveryLogEntry[] }>(
        `/admin/webhooks?merchantId=${merchantId}&limit=1000`,
      )
    ).body.deliveries;
  }

  /** Polls the merchant's delivery log until `check` holds: the dispatcher records an answer a moment after the receiver sends it. */
  async function logWhen(
    merchantId: string,
    check: (log: WebhookDeliveryLogEntry[]) => boolean,
    what: string,
  ): Promise<WebhookDeliveryLogEntry[]> {
    let log: WebhookDeliveryLogEntry[] = [];
    return waitFor(
      async () => {
        log = await webhookLog(merchantId);
        return check(log) ? log : null;
      },
      5000,
      what,
      5,
    ).catch((error: Error) => {
      throw new Error(`${error.message}: ${JSON.stringify(log.map((e) => [e.kind, e.state]))}`);
    });
  }

  const stateOf =
    (kind: WebhookDeliveryLogEntry['kind'], state: WebhookDeliveryLogEntry['state']) =>
    (log: WebhookDeliveryLogEntry[]) =>
      log.find((entry) => entry.kind === kind)?.state === state;

  async function clockNow(): Promise<number> {
    return Date.parse((await admin().get<{ now: string }>('/admin/clock')).body.now);
  }

  /**
   * An item_removed queued after everything so far, waited for at the receiver: a merchant's deliveries go out one at a
   * time in creation order, so once it has arrived nothing queued before it is still on its way.
   */
  async function deliverMarker(receiver: Receiver): Promise<number> {
    const [itemId] = (await removeItems(1)) as [number];
    await waitFor(
      () => receiver.hits.some((hit) => hit.type === 'item_removed' && hit.json.itemId === itemId),
      5000,
      'the marker delivery',
    );
    return itemId;
  }

  /** Takes `count` fresh items off sale: one item_removed webhook each to every merchant with a URL. */
  async function removeItems(count: number): Promise<number[]> {
    const ids: number[] = [];
    for (let i = 0; i < count; i++) {
      const item = await anyItem();
      expect((await admin().delete(`/admin/items/${item.itemId}`)).status).toBe(200);
      ids.push(item.itemId);
    }
    return ids;
  }

  it('signs with hex HMAC-SHA256 and verifies in constant time; a tampered body fails', () => {
    const body = '{"itemId":42}';
    const signature = signWebhookBody(body, 'secret-key');
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    // Known answer, as `printf '%s' '{"itemId":42}' | openssl dgst -sha256 -hmac secret-key` gives it.
    expect(signature).toBe('ce8601fb2eca3749b86c6b8aab8189b59025007be2a04bf9a725ba42bce1c034');
    expect(signWebhookBody(Buffer.from(body), 'secret-key')).toBe(signature);
    expect(verifyWebhookSignature(body, signature, 'secret-key')).toBe(true);
    expect(verifyWebhookSignature(Buffer.from(body), signature.toUpperCase(), 'secret-key')).toBe(true);
    expect(verifyWebhookSignature('{"itemId":43}', signature, 'secret-key')).toBe(false);
    expect(verifyWebhookSignature('{"itemId": 42}', signature, 'secret-key')).toBe(false);
    expect(verifyWebhookSignature(body, signature, 'other-key')).toBe(false);
    expect(verifyWebhookSignature(body, undefined, 'secret-key')).toBe(false);
    expect(verifyWebhookSignature(body, '', 'secret-key')).toBe(false);
    expect(verifyWebhookSignature(body, signature.slice(0, 62), 'secret-key')).toBe(false);
    expect(verifyWebhookSignature(body, `${signature.slice(0, 63)}g`, 'secret-key')).toBe(false);
  });

  it('delivers every kind with the spec headers and a valid signature, one at a time and in order', async () => {
    await start();
    const { merchant, receiver } = await merchantWithReceiver();
    receiver.delayMs = 20;
    const silent = await admin().createMerchant({ balance: 100_000 });

    // A buy: item_removed for the bought item (to every merchant with a URL), then trade_updated PENDING.
    const { trade, item } = await buy(merchant);
    await admin().transition(trade.tradeId, { status: 'SENT' });
    await admin().transition(trade.tradeId, { status: 'COMPLETED' });
    await waitFor(() => receiver.of('trade_updated').length === 3, 5000, 'three trade_updated webhooks');
    expect(receiver.of('item_removed')).toEqual([{ itemId: item.itemId }]);
    const updates = receiver.of('trade_updated');
    expect(updates.map((u) => u.status)).toEqual(['PENDING', 'SENT', 'COMPLETED']);
    for (const update of updates) {
      expect(Object.keys(update)).toEqual(['tradeId', 'status', 'externalId', 'offerId', 'failReason', 'errorCode']);
      expect(update).toMatchObject({ tradeId: trade.tradeId, externalId: null, failReason: null, errorCode: null });
    }
    expect(updates[0]?.offerId).toBeNull();
    expect(updates[1]?.offerId).toMatch(/^\d+$/);
    await waitFor(() => receiver.inFlight === 0, 5000, 'last answer');
    expect((await tradeOf(merchant, trade.tradeId)).webhookStatus).toBe('sent');

    // item_removed per item taken off sale; refresh_catalog after a rebuild.
    const removed = await removeItems(2);
    await admin().post('/admin/catalog/rebuild');
    await waitFor(() => receiver.of('refresh_catalog').length === 1, 5000, 'refresh_catalog');
    expect(receiver.of('item_removed').slice(1)).toEqual(removed.map((itemId) => ({ itemId })));
    expect(receiver.of('refresh_catalog')).toEqual([{ type: 'refresh_catalog' }]);

    // The test webhook, answered at once (it does not wait for the queue, so let the queue drain first).
    await waitFor(() => receiver.inFlight === 0, 5000, 'last answer');
    const before = await clockNow();
    const test = await admin().post<{ delivered: boolean; httpStatus: number | null }>(
      `/admin/merchants/${merchant.merchantId}/webhook-test`,
    );
    expect(test.body).toEqual({ delivered: true, httpStatus: 200 });
    const [testBody] = receiver.of('test');
    expect(testBody).toEqual({
      event: 'test',
      message: 'Test webhook from the Merchant Trading API sandbox',
      timestamp: expect.any(String),
    });
    expect(testBody?.timestamp).toMatch(UTC_TIMESTAMP_PATTERN);
    expect(Math.abs(Date.parse(testBody?.timestamp as string) - before)).toBeLessThan(5000);

    for (const hit of receiver.hits) {
      expect(hit.contentType).toBe('application/json');
      expect(['trade_updated', 'item_removed', 'refresh_catalog', 'test']).toContain(hit.type);
      expect(hit.signature).toBe(signWebhookBody(hit.raw, merchant.apiKey));
      expect(hit.verified).toBe(true);
      // The bytes signed are the bytes sent: a changed body no longer verifies.
      expect(verifyWebhookSignature(`${hit.raw} `, hit.signature, merchant.apiKey)).toBe(false);
    }
    expect(receiver.hits.map((hit) => hit.type)).toEqual([
      'item_removed',
      'trade_updated',
      'trade_updated',
      'trade_updated',
      'item_removed',
      'item_removed',
      'refresh_catalog',
      'test',
    ]);
    expect(receiver.maxInFlight).toBe(1);

    // A merchant without a URL gets nothing; its trades keep webhookStatus null.
    const quiet = await buy(silent);
    // Deliveries are queued as the event happens, before the buy answers: nothing for the silent merchant can come later.
    await waitFor(() => receiver.of('item_removed').length === 4, 5000, 'item_removed of the silent merchant’s buy');
    expect((await tradeOf(silent, quiet.trade.tradeId)).webhookStatus).toBeNull();
    expect(await webhookLog(silent.merchantId)).toEqual([]);

    // The log: newest first, ISO timestamps, no secrets.
    const log = await webhookLog(merchant.merchantId);
    expect(log.map((entry) => entry.kind)).toEqual([
      'item_removed',
      'test',
      'refresh_catalog',
      'item_removed',
      'item_removed',
      'trade_updated',
      'trade_updated',
      'trade_updated',
      'item_removed',
    ]);
    expect(log[5]).toMatchObject({
      merchantId: merchant.merchantId,
      tradeId: trade.tradeId,
      url: receiver.url,
      state: 'delivered',
      attempts: 1,
      httpStatus: 200,
      lastError: null,
      nextAttemptAt: null,
      body: { status: 'COMPLETED' },
    });
    for (const entry of log) {
      expect(entry.createdAt).toMatch(UTC_TIMESTAMP_PATTERN);
      expect(entry.lastAttemptAt).toMatch(UTC_TIMESTAMP_PATTERN);
    }
    expect(JSON.stringify(log)).not.toContain(merchant.apiKey);
    const all = (await admin().get<{ deliveries: unknown[] }>('/admin/webhooks?limit=3')).body.deliveries;
    expect(all).toHaveLength(3);
  });

  it('sends one signed trade_updated per status for every row of the outcome table', async () => {
    await start();
    const { merchant, receiver } = await merchantWithReceiver();
    const api = merchantApi(sb as Sandbox, merchant);
    const seen: { tradeId: string; expected: ReturnType<typeof expectedUpdates> }[] = [];
    for (const [index, row] of OUTCOME_ROWS.entries()) {
      const item = await anyItem();
      const externalId = `row-${index}`;
      const bought = await api.post<BuyResult>('/Items/Buy', {
        itemId: item.itemId,
        assetId: item.assetId,
        price: item.price,
        tradeUrl: tradeUrlFor(partner++),
        externalId,
        tradeDurationSeconds: ROW_TRADE_DURATION_SECONDS,
      });
      expect(bought.status).toBe(200);
      const { tradeId } = bought.body;
      const offerId = await driveRow(admin(), tradeId, row);
      const expected = expectedUpdates(row, tradeId, externalId, offerId);
      const mine = () => receiver.hits.filter((hit) => hit.type === 'trade_updated' && hit.json.tradeId === tradeId);
      await waitFor(() => mine().length === expected.length, 5000, `${row.name}: ${expected.length} webhooks`);
      await waitFor(() => receiver.inFlight === 0, 5000, 'last answer');

      // Exactly the spec's body, field for field and in order, one per status, each signed with the merchant's key.
      const hits = mine();
      expect(
        hits.map((hit) => hit.json),
        row.name,
      ).toEqual(expected);
      for (const hit of hits) {
        expect(Object.keys(hit.json)).toEqual([
          'tradeId',
          'status',
          'externalId',
          'offerId',
          'failReason',
          'errorCode',
        ]);
        expect(hit.contentType).toBe('application/json');
        expect(hit.verified, row.name).toBe(true);
        expect(hit.signature).toBe(signWebhookBody(hit.raw, merchant.apiKey));
      }
      expect(await tradeOf(merchant, tradeId), row.name).toMatchObject({
        ...row.final,
        externalId,
        offerId,
        webhookStatus: 'sent',
      });
      seen.push({ tradeId, expected });
    }

    // Nothing is delivered twice, even hours later (no retry of a delivered status).
    await admin().advance(6 * 3600);
    await deliverMarker(receiver);
    for (const { tradeId, expected } of seen) {
      const statuses = receiver.hits
        .filter((hit) => hit.type === 'trade_updated' && hit.json.tradeId === tradeId)
        .map((hit) => hit.json.status);
      expect(statuses).toEqual(expected.map((update) => update.status));
      const logged = (await webhookLog(merchant.merchantId)).filter((entry) => entry.tradeId === tradeId);
      expect(logged.map((entry) => [entry.state, entry.attempts]).reverse()).toEqual(
        expected.map(() => ['delivered', 1]),
      );
      expect(logged.map((entry) => entry.body).reverse()).toEqual(expected);
    }
    expect(receiver.hits.every((hit) => hit.verified)).toBe(true);
  });

  it('retries after 10 s, 60 s and 300 s of clock time, then marks the trade failed', async () => {
    await start();
    const { merchant, receiver } = await merchantWithReceiver();
    receiver.answer = (hit) => (hit.type === 'trade_updated' ? 500 : 200);
    const { trade } = await buy(merchant);
    const attempts = () => receiver.of('trade_updated').length;
    await waitFor(() => attempts() === 1, 5000, 'first attempt');
    // The retry is timed from the recorded answer: advancing before it is recorded would shift the schedule.
    await logWhen(merchant.merchantId, stateOf('trade_updated', 'retrying'), 'the first attempt recorded');

    const schedule: [number, number][] = [
      [9, 1],
      [1, 2],
      [58, 2],
      [2, 3],
      [298, 3],
      [2, 4],
      [3600, 4],
    ];
    for (const [seconds, expected] of schedule) {
      await admin().advance(seconds);
      expect(attempts(), `after +${seconds}s`).toBe(expected);
    }
    const [entry] = (await webhookLog(merchant.merchantId)).filter((e) => e.kind === 'trade_updated');
    expect(entry).toMatchObject({
      state: 'failed',
      attempts: 4,
      httpStatus: 500,
      lastError: 'HTTP 500',
      nextAttemptAt: null,
    });
    expect((await tradeOf(merchant, trade.tradeId)).webhookStatus).toBe('failed');
    const api = merchantApi(sb as Sandbox, merchant);
    const failed = (await api.get<TradeHistoryPage>('/Trades/History?webhookStatus=failed')).body;
    expect(failed.trades.map((t) => t.tradeId)).toEqual([trade.tradeId]);
    // The refresh_catalog webhooks of the 5-minute rebuilds (answered 200) kept the breaker closed.
    expect((await merchantView(merchant.merchantId)).webhook).toMatchObject({ pauses: 0, pausedUntil: null });

    // The next status gets through: the trade is `sent` again and the failure count resets.
    receiver.answer = () => 200;
    await admin().transition(trade.tradeId, { status: 'SENT' });
    await waitFor(() => attempts() === 5, 5000, 'SENT webhook');
    await logWhen(merchant.merchantId, stateOf('trade_updated', 'delivered'), 'the SENT webhook recorded');
    expect((await tradeOf(merchant, trade.tradeId)).webhookStatus).toBe('sent');
    expect((await api.get<TradeHistoryPage>('/Trades/History?webhookStatus=failed')).body.total).toBe(0);
    expect((await merchantView(merchant.merchantId)).webhook).toEqual({
      consecutiveFailures: 0,
      pauses: 0,
      pausedUntil: null,
    });
  });

  it('treats a redirect as a failure and does not follow it', async () => {
    await start();
    const { merchant, receiver } = await merchantWithReceiver();
    receiver.answer = () => 302;
    await removeItems(1);
    await waitFor(() => receiver.hits.length === 1, 5000, 'attempt');
    const [entry] = await logWhen(merchant.merchantId, (log) => log[0]?.state !== 'delivering', 'the attempt recorded');
    expect(entry).toMatchObject({ state: 'retrying', attempts: 1, httpStatus: 302 });
    expect(entry?.lastError).toMatch(/^HTTP 302/);
    expect(receiver.hits).toHaveLength(1);
  });

  it('opens the breaker after 5 failures and pauses 15, 30, 60, 120, 240, 240 minutes with no attempt meanwhile', async () => {
    await start();
    const { merchant, receiver } = await merchantWithReceiver();
    receiver.answer = () => 500;
    await removeItems(6);
    // Five first attempts fail (the first ones wait for their retry and do not block the others): the breaker opens.
    await waitFor(() => receiver.hits.length === 5, 5000, 'five failed attempts');
    // The breaker opens as the 5th answer is recorded, in the same step that would otherwise send the 6th.
    let view = await waitFor(
      async () => {
        const view = await merchantView(merchant.merchantId);
        return view.webhook.pauses > 0 ? view : null;
      },
      5000,
      'the breaker to open',
      5,
    );
    expect(receiver.hits.length).toBe(5);
    expect(view.webhook).toMatchObject({ consecutiveFailures: 5, pauses: 1 });
    const log = await webhookLog(merchant.merchantId);
    expect(log.map((e) => e.state)).toEqual(['paused', 'paused', 'paused', 'paused', 'paused', 'paused']);
    const tripAttempt = Date.parse(log[1]?.lastAttemptAt as string);
    expect(Date.parse(view.webhook.pausedUntil as string) - tripAttempt).toBeGreaterThanOrEqual(15 * MINUTE * 1000);
    expect(Date.parse(view.webhook.pausedUntil as string) - tripAttempt).toBeLessThan(15 * MINUTE * 1000 + 2000);

    const pauses = [15, 30, 60, 120, 240, 240];
    for (const [index, minutes] of pauses.entries()) {
      view = await merchantView(merchant.merchantId);
      expect(view.webhook.pauses).toBe(index + 1);
      const pausedUntil = Date.parse(view.webhook.pausedUntil as string);
      const left = pausedUntil - (await clockNow());
      expect(left).toBeGreaterThan(minutes * MINUTE * 1000 - 3000);
      expect(left).toBeLessThanOrEqual(minutes * MINUTE * 1000);
      const hits = receiver.hits.length;
      // Nothing goes out while paused, not even the refresh_catalog webhooks of the 5-minute rebuilds.
      await admin().advance(Math.floor(left / 1000) - 5);
      expect(receiver.hits.length, `during pause ${index + 1}`).toBe(hits);
      // Half-open at the end of the pause: one attempt, it fails, and the next (doubled) pause starts at once.
      await admin().advance(6);
      expect(receiver.hits.length, `after pause ${index + 1}`).toBe(hits + 1);
      view = await merchantView(merchant.merchantId);
      expect(view.webhook.pauses).toBe(index + 2);
      expect(view.webhook.consecutiveFailures).toBe(5 + index + 1);
    }
    const next =
      Date.parse((await merchantView(merchant.merchantId)).webhook.pausedUntil as string) - (await clockNow());
    expect(next).toBeGreaterThan(240 * MINUTE * 1000 - 3000);
    expect(receiver.hits.every((hit) => hit.verified)).toBe(true);

    // A test webhook answered 2xx closes the breaker and everything held goes out, in order.
    receiver.answer = () => 200;
    const hitsBefore = receiver.hits.length;
    const held = (await webhookLog(merchant.merchantId)).filter((e) => e.state === 'paused');
    // The six item_removed (one of them already failed for good) plus the refresh_catalog webhooks of ~12 hours.
    expect(held.length).toBeGreaterThan(100);
    const test = await admin().post<{ delivered: boolean; httpStatus: number }>(
      `/admin/merchants/${merchant.merchantId}/webhook-test`,
    );
    expect(test.body).toEqual({ delivered: true, httpStatus: 200 });
    expect((await merchantView(merchant.merchantId)).webhook).toEqual({
      consecutiveFailures: 0,
      pauses: 0,
      pausedUntil: null,
    });
    await waitFor(() => receiver.hits.length === hitsBefore + 1 + held.length, 10_000, 'held deliveries');
    const flushed = receiver.hits.slice(hitsBefore + 1);
    const firstRefresh = flushed.findIndex((hit) => hit.type === 'refresh_catalog');
    expect(flushed.slice(0, firstRefresh).every((hit) => hit.type === 'item_removed')).toBe(true);
    expect(flushed.slice(firstRefresh).every((hit) => hit.type === 'refresh_catalog')).toBe(true);
    const settled = await logWhen(
      merchant.merchantId,
      (log) => log.every((e) => e.state === 'delivered' || e.state === 'failed'),
      'every delivery settled',
    );
    const states = new Set(settled.map((e) => e.state));
    expect([...states].sort()).toEqual(['delivered', 'failed']);
  });

  it('resumes at once, to the new URL, when the webhook URL is updated', async () => {
    await start();
    const { merchant, receiver } = await merchantWithReceiver();
    receiver.answer = () => 500;
    const removed = await removeItems(5);
    await waitFor(() => receiver.hits.length === 5, 5000, 'five failed attempts');
    // The 5th answer reaches the dispatcher a moment after the receiver saw the request.
    await waitFor(() => receiver.inFlight === 0, 5000, 'the 5th answer');
    await waitFor(
      async () => (await merchantView(merchant.merchantId)).webhook.pauses === 1,
      1000,
      'the breaker to open',
      10,
    ).catch(() => undefined);
    expect((await merchantView(merchant.merchantId)).webhook.pauses).toBe(1);
    // A failed test webhook does not resume delivery.
    const failedTest = await admin().post<{ delivered: boolean; httpStatus: number }>(
      `/admin/merchants/${merchant.merchantId}/webhook-test`,
    );
    expect(failedTest.body).toEqual({ delivered: false, httpStatus: 500 });
    expect((await merchantView(merchant.merchantId)).webhook.pauses).toBe(1);

    const fresh = await Receiver.start(merchant.apiKey);
    receivers.push(fresh);
    const patched = await admin().patch<MerchantView>(`/admin/merchants/${merchant.merchantId}`, {
      webhookUrl: fresh.url,
    });
    expect(patched.status).toBe(200);
    await waitFor(() => fresh.hits.length === 5, 5000, 'held deliveries at the new URL');
    expect(fresh.of('item_removed')).toEqual(removed.map((itemId) => ({ itemId })));
    expect(fresh.hits.every((hit) => hit.verified)).toBe(true);
    await logWhen(
      merchant.merchantId,
      (log) => log.filter((e) => e.kind === 'item_removed').every((e) => e.state === 'delivered'),
      'the held deliveries recorded',
    );
    expect((await merchantView(merchant.merchantId)).webhook).toEqual({
      consecutiveFailures: 0,
      pauses: 0,
      pausedUntil: null,
    });
    const log = await webhookLog(merchant.merchantId);
    expect(
      log.filter((e) => e.kind === 'item_removed').every((e) => e.state === 'delivered' && e.url === fresh.url),
    ).toBe(true);

    // The old pause timer is gone: nothing more reaches the old URL.
    const timers = (await admin().get<{ pending: { label: string }[] }>('/admin/clock')).body.pending;
    expect(timers.filter((timer) => timer.label.startsWith('webhook'))).toEqual([]);
    const oldHits = receiver.hits.length;
    await admin().advance(16 * MINUTE);
    expect(receiver.hits.length).toBe(oldHits);

    // Removing the URL fails what was waiting; the trade shows `failed`.
    fresh.answer = () => 500;
    const { trade } = await buy(merchant);
    await waitFor(() => fresh.of('trade_updated').length === 1, 5000, 'PENDING attempt');
    await logWhen(merchant.merchantId, stateOf('trade_updated', 'retrying'), 'the PENDING attempt recorded');
    await admin().patch(`/admin/merchants/${merchant.merchantId}`, { webhookUrl: null });
    const unset = await logWhen(
      merchant.merchantId,
      (entries) => entries.find((e) => e.kind === 'trade_updated')?.state !== 'retrying',
      'the retry given up',
    );
    const [pending] = unset.filter((e) => e.kind === 'trade_updated');
    expect(pending).toMatchObject({ state: 'failed', attempts: 1, lastError: 'no webhook URL configured' });
    expect((await tradeOf(merchant, trade.tradeId)).webhookStatus).toBe('failed');
    await admin().advance(600);
    expect(fresh.hits.filter((hit) => hit.type === 'trade_updated')).toHaveLength(1);
  });

  it('counts a delivery time-out (5 s) as a failed attempt', async () => {
    await start();
    const { merchant, receiver } = await merchantWithReceiver();
    receiver.answer = () => 'hang';
    const startedAt = Date.now();
    await removeItems(1);
    await waitFor(() => receiver.hits.length === 1, 5000, 'attempt');
    const { entry } = await waitFor(
      async () => {
        const [entry] = await webhookLog(merchant.merchantId);
        return entry?.state !== 'delivering' ? { entry } : null;
      },
      30_000,
      'the attempt to end',
      100,
    );
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(4900);
    expect(entry).toMatchObject({
      state: 'retrying',
      attempts: 1,
      httpStatus: null,
      lastError: 'timeout after 5000 ms',
    });
    expect((await merchantView(merchant.merchantId)).webhook.consecutiveFailures).toBe(1);
  }, 15_000);

  it('resumes waiting deliveries after a restart, and forgets them on reset', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webhooks-restart-'));
    tempDirs.push(dir);
    const dbFile = join(dir, 'sandbox.db');
    await start({ dbFile });
    const { merchant, receiver } = await merchantWithReceiver();
    receiver.answer = () => 503;
    const [itemId] = await removeItems(1);
    await waitFor(() => receiver.hits.length === 1, 5000, 'first attempt');
    await logWhen(merchant.merchantId, stateOf('item_removed', 'retrying'), 'the first attempt recorded');
    await (sb as Sandbox).close();

    receiver.answer = () => 200;
    await start({ dbFile });
    // The retry waits for its time after the restart too: a delivery queued now goes out, the retry does not.
    const marker = await deliverMarker(receiver);
    expect(receiver.hits.map((hit) => hit.json)).toEqual([{ itemId }, { itemId: marker }]);
    await admin().advance(10);
    expect(receiver.hits).toHaveLength(3);
    expect(receiver.hits[2]?.json).toEqual({ itemId });
    const entry = (await webhookLog(merchant.merchantId)).find(
      (e) => (e.body as { itemId?: number }).itemId === itemId,
    );
    expect(entry).toMatchObject({ state: 'delivered', attempts: 2, httpStatus: 200 });

    // Reset: the tables are wiped and nothing queued before goes out afterwards.
    receiver.answer = () => 500;
    await removeItems(1);
    await waitFor(() => receiver.hits.length === 4, 5000, 'attempt before reset');
    await logWhen(merchant.merchantId, stateOf('item_removed', 'retrying'), 'the attempt before reset recorded');
    expect((await admin().post('/admin/reset')).status).toBe(200);
    await admin().advance(600);
    expect(receiver.hits).toHaveLength(4);
    expect((await admin().get<{ deliveries: unknown[] }>('/admin/webhooks')).body.deliveries).toEqual([]);
  });
});
