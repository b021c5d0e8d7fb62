import type { TradeUpdatedWebhook } from '../../shared/api';
import { webhookPauseMs } from '../../shared/api';
import { toUtcIso } from '../../shared/time';
import type { TimerHandle } from '../clock';
import { SANDBOX_CHOICES } from '../config';
import type { SandboxCore } from '../domain/core';
import type { Merchant } from '../domain/merchants';
import { type AttemptResult, type WebhookKind, postWebhook } from './send';
import { type DeliveryRow, DeliveryStore } from './store';

export const TEST_WEBHOOK_MESSAGE = 'Test webhook from the Merchant Trading API sandbox';

/** One attempt plus one per retry delay. */
const MAX_ATTEMPTS = 1 + SANDBOX_CHOICES.webhookRetryDelaysMs.length;

/** What GET /admin/webhooks shows of one delivery. */
export interface WebhookDeliveryLogEntry {
  id: number;
  merchantId: string;
  kind: WebhookKind;
  tradeId: string | null;
  url: string | null;
  state: DeliveryRow['state'];
  attempts: number;
  httpStatus: number | null;
  lastError: string | null;
  createdAt: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  body: unknown;
}

/** Per-merchant delivery state held in memory; the database holds the rest. */
interface Lane {
  readonly merchantId: string;
  /** The running serial pump, if any: one delivery at a time, in creation order. */
  pump: Promise<void> | null;
  pauseTimer: TimerHandle | null;
  readonly retryTimers: Map<number, TimerHandle>;
  inflight: AbortController | null;
  /** Dropped by a reset or shutdown: an attempt finishing late must not write. */
  dead: boolean;
}

const iso = (ms: number | null) => (ms === null ? null : toUtcIso(ms));

/**
 * Sends the spec's webhooks (trade_updated, item_removed, refresh_catalog, test),
 * signed, retried and guarded by a per-merchant circuit breaker. Every time is sandbox
 * clock time, so POST /admin/clock/advance drives retries and pauses. The queue lives
 * in `webhook_deliveries` and survives restarts. Choices: docs/sandbox.md (Webhooks).
 */
export class WebhookDispatcher {
  private readonly store: DeliveryStore;
  private readonly lanes = new Map<string, Lane>();
  /** Last seen webhook URL per merchant, to tell a URL update from other merchant updates. */
  private readonly knownUrls = new Map<string, string | null>();
  private readonly tests = new Map<AbortController, Promise<unknown>>();
  private readonly unsubscribe: (() => void)[] = [];
  /** Bumped by afterReset: work started before it must not write. */
  private generation = 0;
  private closed = false;

  constructor(private readonly core: SandboxCore) {
    this.store = new DeliveryStore(core.db);
    const { events } = core;
    const guarded =
      <A extends unknown[]>(fn: (...args: A) => void) =>
      (...args: A) => {
        if (this.closed) return;
        try {
          fn(...args);
        } catch (error) {
          this.report('event', error);
        }
      };
    const onTrade = guarded((merchantId: string, update: TradeUpdatedWebhook) =>
      this.onTradeUpdated(merchantId, update),
    );
    const onRemoved = guarded((itemIds: number[]) => this.onItemsRemoved(itemIds));
    const onRebuilt = guarded(() => this.onCatalogRebuilt());
    events.on('tradeUpdated', onTrade);
    events.on('itemsRemoved', onRemoved);
    events.on('catalogRebuilt', onRebuilt);
    this.unsubscribe.push(
      () => events.off('tradeUpdated', onTrade),
      () => events.off('itemsRemoved', onRemoved),
      () => events.off('catalogRebuilt', onRebuilt),
      core.merchants.onChange(
        guarded((merchant: Merchant, change: 'created' | 'updated') => this.onMerchantChange(merchant, change)),
      ),
    );
    this.restore();
  }

  // ---- Public API (admin routes and startSandbox)

  /** Sends a test webhook at once, even while the breaker is open; a 2xx answer closes the breaker. */
  async test(merchantId: string): Promise<{ delivered: boolean; httpStatus: number | null }> {
    const merchant = this.core.merchants.get(merchantId);
    if (this.closed) return { delivered: false, httpStatus: null };
    const now = this.core.clock.now();
    const body = JSON.stringify({ event: 'test', message: TEST_WEBHOOK_MESSAGE, timestamp: toUtcIso(now) });
    const base = { merchantId, kind: 'test' as const, body, tradeId: null, createdAt: now };
    const url = merchant.webhookUrl;
    if (!url) {
      this.store.insert({ ...base, url: null, state: 'failed', lastError: 'no webhook URL configured' });
      return { delivered: false, httpStatus: null };
    }
    const id = this.store.insert({ ...base, url, state: 'delivering', attempts: 1, lastAttemptAt: now });
    const generation = this.generation;
    const controller = new AbortController();
    const attempt = postWebhook(url, 'test', body, merchant.apiKey, controller.signal);
    this.tests.set(controller, attempt);
    let result: AttemptResult;
    try {
      result = await attempt;
    } finally {
      this.tests.delete(controller);
    }
    if (generation !== this.generation) return { delivered: false, httpStatus: null };
    this.store.record(id, result.ok ? 'delivered' : 'failed', result.httpStatus, result.error, null);
    // A failed test leaves the breaker as it is: it is a probe, not a delivery.
    if (result.ok && !this.closed && this.core.merchants.find(merchantId)?.webhookUrl === url) {
      this.closeBreaker(merchantId, { flushRetries: true });
    }
    return { delivered: result.ok, httpStatus: result.httpStatus };
  }

  /** Newest first. */
  log(merchantId: string | undefined, limit: number): WebhookDeliveryLogEntry[] {
    return this.store.recent(merchantId, limit).map((row) => ({
      id: row.id,
      merchantId: row.merchant_id,
      kind: row.kind,
      tradeId: row.trade_id,
      url: row.url,
      state: row.state,
      attempts: row.attempts,
      httpStatus: row.http_status,
      lastError: row.last_error,
      createdAt: toUtcIso(row.created_at),
      lastAttemptAt: iso(row.last_attempt_at),
      nextAttemptAt: iso(row.next_attempt_at),
      body: JSON.parse(row.body) as unknown,
    }));
  }

  /** The core wiped every table (POST /admin/reset): forget queues, timers and attempts in flight. */
  afterReset(): void {
    this.generation++;
    this.dropLanes();
    for (const controller of this.tests.keys()) controller.abort();
    this.knownUrls.clear();
    for (const merchant of this.core.merchants.all()) this.knownUrls.set(merchant.merchantId, merchant.webhookUrl);
  }

  /** Stops timers, aborts requests in flight (an interrupted attempt is made again after a restart) and waits until idle. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const off of this.unsubscribe) off();
    const pumps = [...this.lanes.values()].map((lane) => lane.pump);
    for (const lane of this.lanes.values()) {
      this.cancelTimers(lane);
      lane.inflight?.abort();
    }
    for (const controller of this.tests.keys()) controller.abort();
    await Promise.allSettled([...pumps, ...this.tests.values()]);
    for (const lane of this.lanes.values()) lane.dead = true;
    this.lanes.clear();
  }

  // ---- Events

  private onTradeUpdated(merchantId: string, update: TradeUpdatedWebhook): void {
    const merchant = this.core.merchants.find(merchantId);
    if (!merchant?.webhookUrl) return;
    // The core announces each status once; this keeps it so across restarts and double announcements.
    if (this.store.hasTradeStatus(update.tradeId, update.status)) return;
    const body: TradeUpdatedWebhook = {
      tradeId: update.tradeId,
      status: update.status,
      externalId: update.externalId,
      offerId: update.offerId,
      failReason: update.failReason,
      errorCode: update.errorCode,
    };
    this.enqueue([merchant], 'trade_updated', [{ body: JSON.stringify(body), tradeId: update.tradeId }]);
  }

  private onItemsRemoved(itemIds: number[]): void {
    const targets = this.subscribers();
    if (targets.length === 0 || itemIds.length === 0) return;
    this.enqueue(
      targets,
      'item_removed',
      itemIds.map((itemId) => ({ body: JSON.stringify({ itemId }), tradeId: null })),
    );
  }

  private onCatalogRebuilt(): void {
    const targets = this.subscribers();
    if (targets.length === 0) return;
    this.enqueue(targets, 'refresh_catalog', [{ body: JSON.stringify({ type: 'refresh_catalog' }), tradeId: null }]);
  }

  private onMerchantChange(merchant: Merchant, change: 'created' | 'updated'): void {
    const id = merchant.merchantId;
    const known = this.knownUrls.has(id);
    const previous = this.knownUrls.get(id);
    this.knownUrls.set(id, merchant.webhookUrl);
    if (change === 'created') return;
    const urlChanged = known && previous !== merchant.webhookUrl;
    // Merchants.update already cleared failures and pausedUntil when a webhookUrl was given (even the same one).
    const lane = this.lanes.get(id);
    const releasedByUpdate =
      merchant.webhook.pausedUntil === null && (lane?.pauseTimer != null || this.store.countPaused(id) > 0);
    if (urlChanged || releasedByUpdate) this.closeBreaker(id, { flushRetries: true });
  }

  // ---- Queue

  private subscribers(): Merchant[] {
    // Catalog events come by the thousand a second under load: no read of every merchant when none has a URL.
    if (![...this.knownUrls.values()].some((url) => url !== null)) return [];
    return this.core.merchants.all().filter((merchant) => merchant.webhookUrl !== null);
  }

  private enqueue(
    merchants: Merchant[],
    kind: WebhookKind,
    payloads: { body: string; tradeId: string | null }[],
  ): void {
    const now = this.core.clock.now();
    const ready: string[] = [];
    this.store.transaction(() => {
      for (const merchant of merchants) {
        const pausedUntil = merchant.webhook.pausedUntil;
        for (const payload of payloads) {
          this.store.insert({
            merchantId: merchant.merchantId,
            kind,
            body: payload.body,
            tradeId: payload.tradeId,
            url: merchant.webhookUrl,
            state: pausedUntil === null ? 'queued' : 'paused',
            createdAt: now,
            nextAttemptAt: pausedUntil,
          });
        }
        if (pausedUntil === null) ready.push(merchant.merchantId);
      }
    });
    for (const merchantId of ready) void this.kick(merchantId);
  }

  private lane(merchantId: string): Lane {
    let lane = this.lanes.get(merchantId);
    if (!lane) {
      lane = { merchantId, pump: null, pauseTimer: null, retryTimers: new Map(), inflight: null, dead: false };
      this.lanes.set(merchantId, lane);
    }
    return lane;
  }

  /**
   * Starts the merchant's pump unless it runs; resolves when it has nothing more to send.
   * Never awaited from inside a pump (it would wait for itself).
   */
  private kick(merchantId: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    const lane = this.lane(merchantId);
    if (!lane.pump) {
      lane.pump = (async () => {
        // Let the caller see lane.pump set before the loop can end.
        await null;
        try {
          for (;;) {
            if (lane.dead || this.closed) break;
            const row = this.nextFor(lane);
            if (!row) break;
            try {
              await this.attempt(lane, row);
            } catch (error) {
              this.report(`delivery ${row.id}`, error);
              break;
            }
          }
        } finally {
          // Synchronous with the last empty check: a delivery enqueued later starts a new pump.
          lane.pump = null;
        }
      })();
    }
    return lane.pump;
  }

  private nextFor(lane: Lane): DeliveryRow | null {
    const merchant = this.core.merchants.find(lane.merchantId);
    if (!merchant || merchant.webhook.pausedUntil !== null) return null;
    return this.store.nextQueued(lane.merchantId);
  }

  private async attempt(lane: Lane, row: DeliveryRow): Promise<void> {
    const merchant = this.core.merchants.find(lane.merchantId);
    const url = merchant?.webhookUrl ?? null;
    if (!merchant || !url) {
      this.store.fail(row.id, 'no webhook URL configured');
      this.settleTrade(row);
      return;
    }
    this.store.markDelivering(row.id, url, this.core.clock.now());
    const controller = new AbortController();
    lane.inflight = controller;
    let result: AttemptResult;
    try {
      result = await postWebhook(url, row.kind, row.body, merchant.apiKey, controller.signal);
    } finally {
      lane.inflight = null;
    }
    if (lane.dead) return;
    if (result.aborted) {
      this.store.undoAttempt(row.id);
      return;
    }
    const now = this.core.clock.now();
    const attempts = row.attempts + 1;
    const current = this.core.merchants.find(lane.merchantId);
    // An answer from a URL replaced meanwhile says nothing about the new one's health.
    const countsForBreaker = current !== null && current.webhookUrl === url;

    if (result.ok) {
      this.store.record(row.id, 'delivered', result.httpStatus, null, null);
      this.settleTrade(row);
      const breaker = current?.webhook;
      if (
        countsForBreaker &&
        breaker &&
        (breaker.consecutiveFailures !== 0 || breaker.pauses !== 0 || breaker.pausedUntil !== null)
      ) {
        this.closeBreaker(lane.merchantId, { flushRetries: false });
      }
      return;
    }

    if (attempts >= MAX_ATTEMPTS) {
      this.store.record(row.id, 'failed', result.httpStatus, result.error, null);
      this.settleTrade(row);
    } else {
      const dueAt = now + (SANDBOX_CHOICES.webhookRetryDelaysMs[attempts - 1] as number);
      this.store.record(row.id, 'retrying', result.httpStatus, result.error, dueAt);
      this.scheduleRetry(lane, row.id, dueAt);
    }
    if (!countsForBreaker || !current) return;
    const failures = current.webhook.consecutiveFailures + 1;
    if (failures < SANDBOX_CHOICES.webhookBreakerThreshold) {
      this.core.merchants.setWebhookBreaker(lane.merchantId, { ...current.webhook, consecutiveFailures: failures });
      return;
    }
    // Tripped (or failed again half-open, right after a pause): hold everything for the next, longer pause.
    const pauses = current.webhook.pauses + 1;
    const pausedUntil = now + webhookPauseMs(pauses);
    this.core.merchants.setWebhookBreaker(lane.merchantId, { consecutiveFailures: failures, pauses, pausedUntil });
    this.holdLane(lane, pausedUntil);
  }

  /** A trade's webhookStatus follows its newest settled trade_updated delivery. */
  private settleTrade(row: DeliveryRow): void {
    if (row.kind !== 'trade_updated' || row.trade_id === null) return;
    const state = this.store.latestSettledForTrade(row.trade_id);
    if (state === 'delivered') this.core.trades.setWebhookStatus(row.trade_id, 'sent');
    else if (state === 'failed') this.core.trades.setWebhookStatus(row.trade_id, 'failed');
  }

  // ---- Timers and the breaker

  private scheduleRetry(lane: Lane, id: number, dueAt: number): void {
    lane.retryTimers.get(id)?.cancel();
    const timer = this.core.clock.schedule(dueAt, `webhook retry ${id}`, async () => {
      if (lane.retryTimers.get(id) !== timer) return;
      lane.retryTimers.delete(id);
      if (lane.dead || this.closed) return;
      // Waiting here lets a clock advance see the retry's outcome (and the retries it schedules) in order.
      if (this.store.retryDue(id)) await this.kick(lane.merchantId);
    });
    lane.retryTimers.set(id, timer);
  }

  private holdLane(lane: Lane, pausedUntil: number): void {
    for (const timer of lane.retryTimers.values()) timer.cancel();
    lane.retryTimers.clear();
    this.store.hold(lane.merchantId, pausedUntil);
    lane.pauseTimer?.cancel();
    const timer = this.core.clock.schedule(pausedUntil, `webhook pause end ${lane.merchantId}`, async () => {
      if (lane.pauseTimer !== timer) return;
      lane.pauseTimer = null;
      if (lane.dead || this.closed) return;
      const merchant = this.core.merchants.find(lane.merchantId);
      if (!merchant || merchant.webhook.pausedUntil === null) return;
      // Half-open: failures stay at the threshold, so one more failure opens the breaker again at once.
      this.core.merchants.setWebhookBreaker(lane.merchantId, { ...merchant.webhook, pausedUntil: null });
      this.store.release(lane.merchantId, { retrying: false });
      await this.kick(lane.merchantId);
    });
    lane.pauseTimer = timer;
  }

  /** Closed breaker: failures and pauses back to 0; held deliveries go out (with `flushRetries`, those waiting for a retry too). */
  private closeBreaker(merchantId: string, options: { flushRetries: boolean }): void {
    const lane = this.lane(merchantId);
    lane.pauseTimer?.cancel();
    lane.pauseTimer = null;
    this.core.merchants.setWebhookBreaker(merchantId, { consecutiveFailures: 0, pauses: 0, pausedUntil: null });
    if (options.flushRetries) {
      for (const timer of lane.retryTimers.values()) timer.cancel();
      lane.retryTimers.clear();
    }
    this.store.release(merchantId, { retrying: options.flushRetries });
    void this.kick(merchantId);
  }

  private cancelTimers(lane: Lane): void {
    lane.pauseTimer?.cancel();
    lane.pauseTimer = null;
    for (const timer of lane.retryTimers.values()) timer.cancel();
    lane.retryTimers.clear();
  }

  private dropLanes(): void {
    for (const lane of this.lanes.values()) {
      lane.dead = true;
      this.cancelTimers(lane);
      lane.inflight?.abort();
    }
    this.lanes.clear();
  }

  /** Picks up what a previous run left: queued, retrying and paused deliveries, and open breakers. */
  private restore(): void {
    this.store.recoverInterrupted();
    const now = this.core.clock.now();
    const waiting = new Set(this.store.merchantsWaiting());
    for (const merchant of this.core.merchants.all()) {
      const id = merchant.merchantId;
      this.knownUrls.set(id, merchant.webhookUrl);
      const pausedUntil = merchant.webhook.pausedUntil;
      if (pausedUntil !== null && pausedUntil > now) {
        this.holdLane(this.lane(id), pausedUntil);
        continue;
      }
      if (pausedUntil !== null) {
        // The pause ended while the sandbox was down: half-open now.
        this.core.merchants.setWebhookBreaker(id, { ...merchant.webhook, pausedUntil: null });
      }
      if (!waiting.has(id)) continue;
      this.store.release(id, { retrying: false });
      const lane = this.lane(id);
      for (const row of this.store.retrying(id)) this.scheduleRetry(lane, row.id, row.next_attempt_at ?? now);
      void this.kick(id);
    }
  }

  private report(what: string, error: unknown): void {
    // Messages only: never request headers, the API key or a signature.
    console.error(`webhooks: ${what} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
