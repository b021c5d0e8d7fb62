import type { SqliteDatabase } from '../db/database';
import type { WebhookKind } from './send';

/**
 * queued → delivering → delivered | retrying | paused | failed.
 * retrying waits for its retry timer (next_attempt_at); paused waits for the merchant's breaker.
 */
export type DeliveryState = 'queued' | 'delivering' | 'delivered' | 'retrying' | 'paused' | 'failed';

export interface DeliveryRow {
  id: number;
  merchant_id: string;
  kind: WebhookKind;
  body: string;
  trade_id: string | null;
  url: string | null;
  state: DeliveryState;
  attempts: number;
  http_status: number | null;
  last_error: string | null;
  created_at: number;
  last_attempt_at: number | null;
  next_attempt_at: number | null;
}

export interface NewDelivery {
  merchantId: string;
  kind: WebhookKind;
  body: string;
  tradeId: string | null;
  url: string | null;
  state: DeliveryState;
  attempts?: number;
  lastError?: string | null;
  createdAt: number;
  lastAttemptAt?: number | null;
  nextAttemptAt?: number | null;
}

/**
 * Repeats the WHERE of the partial index `webhook_deliveries_waiting_by_merchant`, so SQLite
 * uses it instead of walking a merchant's whole log (it proves a partial index only from an identical term).
 */
const WAITING = "state IN ('queued', 'retrying', 'paused')";

/** The `webhook_deliveries` table: the queue and the delivery log at once. */
export class DeliveryStore {
  private readonly insertStmt;
  private readonly byIdStmt;
  private readonly nextQueuedStmt;
  private readonly hasTradeStatusStmt;
  private readonly latestSettledStmt;

  constructor(private readonly db: SqliteDatabase) {
    this.insertStmt = db.prepare(
      `INSERT INTO webhook_deliveries (merchant_id, kind, body, trade_id, url, state, attempts, last_error, created_at, last_attempt_at, next_attempt_at)
       VALUES (@merchantId, @kind, @body, @tradeId, @url, @state, @attempts, @lastError, @createdAt, @lastAttemptAt, @nextAttemptAt)`,
    );
    this.byIdStmt = db.prepare<[number], DeliveryRow>('SELECT * FROM webhook_deliveries WHERE id = ?');
    this.nextQueuedStmt = db.prepare<[string], DeliveryRow>(
      `SELECT * FROM webhook_deliveries WHERE merchant_id = ? AND state = 'queued' AND ${WAITING} ORDER BY id LIMIT 1`,
    );
    this.hasTradeStatusStmt = db.prepare<[string, string], { found: number }>(
      `SELECT 1 AS found FROM webhook_deliveries
       WHERE trade_id = ? AND kind = 'trade_updated' AND json_extract(body, '$.status') = ? LIMIT 1`,
    );
    this.latestSettledStmt = db.prepare<[string], { state: DeliveryState }>(
      `SELECT state FROM webhook_deliveries
       WHERE trade_id = ? AND kind = 'trade_updated' AND state IN ('delivered', 'failed') ORDER BY id DESC LIMIT 1`,
    );
  }

  insert(delivery: NewDelivery): number {
    const result = this.insertStmt.run({
      merchantId: delivery.merchantId,
      kind: delivery.kind,
      body: delivery.body,
      tradeId: delivery.tradeId,
      url: delivery.url,
      state: delivery.state,
      attempts: delivery.attempts ?? 0,
      lastError: delivery.lastError ?? null,
      createdAt: delivery.createdAt,
      lastAttemptAt: delivery.lastAttemptAt ?? null,
      nextAttemptAt: delivery.nextAttemptAt ?? null,
    });
    return Number(result.lastInsertRowid);
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  find(id: number): DeliveryRow | null {
    return this.byIdStmt.get(id) ?? null;
  }

  nextQueued(merchantId: string): DeliveryRow | null {
    return this.nextQueuedStmt.get(merchantId) ?? null;
  }

  /** Whether a trade_updated webhook for this status of the trade was ever enqueued. */
  hasTradeStatus(tradeId: string, status: string): boolean {
    return this.hasTradeStatusStmt.get(tradeId, status) !== undefined;
  }

  /** The outcome of the newest settled trade_updated delivery of a trade. */
  latestSettledForTrade(tradeId: string): DeliveryState | null {
    return this.latestSettledStmt.get(tradeId)?.state ?? null;
  }

  markDelivering(id: number, url: string, at: number): void {
    this.db
      .prepare(
        "UPDATE webhook_deliveries SET state = 'delivering', url = ?, attempts = attempts + 1, last_attempt_at = ?, next_attempt_at = NULL WHERE id = ?",
      )
      .run(url, at, id);
  }

  /** Records an attempt's outcome. */
  record(
    id: number,
    state: DeliveryState,
    httpStatus: number | null,
    error: string | null,
    nextAttemptAt: number | null,
  ): void {
    this.db
      .prepare(
        'UPDATE webhook_deliveries SET state = ?, http_status = ?, last_error = ?, next_attempt_at = ? WHERE id = ?',
      )
      .run(state, httpStatus, error, nextAttemptAt, id);
  }

  /** Settles a delivery without an attempt (no URL to send to). */
  fail(id: number, error: string): void {
    this.db
      .prepare("UPDATE webhook_deliveries SET state = 'failed', last_error = ?, next_attempt_at = NULL WHERE id = ?")
      .run(error, id);
  }

  /** An attempt cut short by the sandbox itself (shutdown): it does not count. */
  undoAttempt(id: number): void {
    this.db
      .prepare(
        "UPDATE webhook_deliveries SET state = 'queued', attempts = max(attempts - 1, 0) WHERE id = ? AND state = 'delivering'",
      )
      .run(id);
  }

  /** A due retry joins the merchant's queue; false when it is no longer waiting (paused, reset). */
  retryDue(id: number): boolean {
    return (
      this.db
        .prepare(
          "UPDATE webhook_deliveries SET state = 'queued', next_attempt_at = NULL WHERE id = ? AND state = 'retrying'",
        )
        .run(id).changes > 0
    );
  }

  /** The breaker opened: everything waiting for this merchant is held until `until`. */
  hold(merchantId: string, until: number): void {
    this.db
      .prepare(
        `UPDATE webhook_deliveries SET state = 'paused', next_attempt_at = ? WHERE merchant_id = ? AND ${WAITING}`,
      )
      .run(until, merchantId);
  }

  /** Held (and, with `retrying`, retry-waiting) deliveries go back to the queue; returns how many. */
  release(merchantId: string, options: { retrying: boolean }): number {
    const states = options.retrying ? "('paused', 'retrying')" : "('paused')";
    return this.db
      .prepare(
        `UPDATE webhook_deliveries SET state = 'queued', next_attempt_at = NULL WHERE merchant_id = ? AND state IN ${states} AND ${WAITING}`,
      )
      .run(merchantId).changes;
  }

  retrying(merchantId?: string): DeliveryRow[] {
    return (
      merchantId === undefined
        ? this.db.prepare("SELECT * FROM webhook_deliveries WHERE state = 'retrying' ORDER BY id").all()
        : this.db
            .prepare(
              `SELECT * FROM webhook_deliveries WHERE merchant_id = ? AND state = 'retrying' AND ${WAITING} ORDER BY id`,
            )
            .all(merchantId)
    ) as DeliveryRow[];
  }

  countPaused(merchantId: string): number {
    return (
      this.db
        .prepare(
          `SELECT count(*) AS n FROM webhook_deliveries WHERE merchant_id = ? AND state = 'paused' AND ${WAITING}`,
        )
        .get(merchantId) as {
        n: number;
      }
    ).n;
  }

  /** After a restart: a test webhook cut off mid-flight failed; any other attempt cut off is made again. */
  recoverInterrupted(): void {
    this.db.exec(`
      UPDATE webhook_deliveries SET state = 'failed', last_error = 'interrupted by a sandbox restart'
        WHERE state = 'delivering' AND kind = 'test';
      UPDATE webhook_deliveries SET state = 'queued', next_attempt_at = NULL WHERE state = 'delivering';
    `);
  }

  merchantsWaiting(): string[] {
    return (
      this.db
        .prepare("SELECT DISTINCT merchant_id FROM webhook_deliveries WHERE state IN ('queued', 'retrying', 'paused')")
        .all() as { merchant_id: string }[]
    ).map((row) => row.merchant_id);
  }

  recent(merchantId: string | undefined, limit: number): DeliveryRow[] {
    return (
      merchantId === undefined
        ? this.db.prepare('SELECT * FROM webhook_deliveries ORDER BY id DESC LIMIT ?').all(limit)
        : this.db
            .prepare('SELECT * FROM webhook_deliveries WHERE merchant_id = ? ORDER BY id DESC LIMIT ?')
            .all(merchantId, limit)
    ) as DeliveryRow[];
  }
}
