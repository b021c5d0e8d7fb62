import { randomInt, randomUUID } from 'node:crypto';
import type { Trade, TradeStatus, TradeUpdatedWebhook, WebhookStatus } from '../../shared/api';
import { PARTNER_BLOCK_THRESHOLD, PARTNER_BLOCK_WINDOW_MS, isActiveStatus } from '../../shared/api';
import { toUtcIso } from '../../shared/time';
import type { SandboxClock } from '../clock';
import { SANDBOX_CHOICES } from '../config';
import type { SqliteDatabase } from '../db/database';
import { ApiError, notFound } from './apiError';
import type { Catalog } from './catalog';
import type { SandboxEvents } from './events';
import type { ItemRecord } from './itemRecord';
import type { Ledger } from './ledger';
import { TradeHistory } from './tradeHistory';
import { findTransition, isPartnerStrike, resolveOutcome, returnsItemToSale } from './lifecycle';

export interface TradeRow {
  seq: number;
  trade_id: string;
  merchant_id: string;
  external_id: string | null;
  status: TradeStatus;
  price: number;
  item_id: number;
  asset_id: string;
  offer_id: string | null;
  trade_url: string;
  partner: string;
  holder: string | null;
  market_hash_name: string;
  phase: string | null;
  float: number | null;
  webhook_status: WebhookStatus | null;
  fail_reason: string | null;
  error_code: number | null;
  trade_duration_seconds: number;
  created_at: number;
  updated_at: number;
  sent_at: number | null;
  expires_at: number | null;
  completed_at: number | null;
  cancelled_at: number | null;
  end_protection: number | null;
  rollback_at: number | null;
  /** toWire() as JSON without `stage` and the closing brace; null until first computed. */
  wire: string | null;
}

const iso = (ms: number | null) => (ms === null ? null : toUtcIso(ms));

export interface NewTrade {
  merchantId: string;
  item: ItemRecord;
  tradeUrl: string;
  partner: string;
  externalId: string | null;
  tradeDurationSeconds: number;
}

export interface TransitionRequest {
  status: TradeStatus;
  errorCode?: number | null;
  failReason?: string | null;
}

export interface TransitionOptions {
  /** The item is gone (sold elsewhere): it does not go back on sale whatever the outcome. */
  itemGone?: boolean;
}

export class Trades {
  private readonly byIdStmt;
  private readonly setWireStmt;
  /** The Trades/History answer and its caches. */
  readonly history: TradeHistory;
  private readonly expiryTimers = new Map<string, { cancel(): void }>();
  constructor(
    private readonly db: SqliteDatabase,
    private readonly clock: SandboxClock,
    private readonly ledger: Ledger,
    private readonly catalog: Catalog,
    private readonly events: SandboxEvents,
  ) {
    this.byIdStmt = db.prepare<[string], TradeRow>('SELECT * FROM trades WHERE trade_id = ?');
    this.setWireStmt = db.prepare('UPDATE trades SET wire = ? WHERE trade_id = ?');
    this.history = new TradeHistory(db, clock, {
      stageOf: (row, now) => this.stageOf(row, now),
      rebuildWire: (tradeId) => this.refreshWire(tradeId),
      wireOfRow: (row) => Trades.wireBaseOf(row),
    });
  }

  /** toWire() as JSON, minus `stage` and the closing brace (see the `wire` column). */
  static wireBaseOf(row: TradeRow): string {
    const { stage: _stage, ...rest } = Trades.wireFields(row);
    const json = JSON.stringify(rest);
    return json.slice(0, -1);
  }

  /** Recomputes and stores a trade's wire JSON after a write (same transaction as the write). */
  private refreshWire(tradeId: string): string {
    const row = this.get(tradeId);
    const wire = Trades.wireBaseOf(row);
    this.setWireStmt.run(wire, tradeId);
    this.history.written(row.merchant_id, tradeId, wire);
    return wire;
  }

  /** Stage 1 while the trade may still be reversed (at `now`): in flight, or completed within protection. */
  stageOf(row: Pick<TradeRow, 'status' | 'end_protection'>, now = this.clock.now()): 1 | 2 {
    if (isActiveStatus(row.status)) return 1;
    if (row.status === 'COMPLETED' && row.end_protection !== null && now < row.end_protection) return 1;
    return 2;
  }

  toWire(row: TradeRow): Trade {
    return { ...Trades.wireFields(row), stage: this.stageOf(row) };
  }

  /** The wire fields in the order the API shows them; `stage` (clock-dependent) is set by toWire. */
  private static wireFields(row: TradeRow): Trade {
    return {
      tradeId: row.trade_id,
      externalId: row.external_id,
      status: row.status,
      price: row.price,
      itemId: row.item_id,
      assetId: row.asset_id,
      offerId: row.offer_id,
      tradeUrl: row.trade_url,
      market_hash_name: row.market_hash_name,
      phase: row.phase,
      float: row.float,
      webhookStatus: row.webhook_status,
      failReason: row.fail_reason,
      errorCode: row.error_code,
      createdAt: toUtcIso(row.created_at),
      updatedAt: toUtcIso(row.updated_at),
      completedAt: iso(row.completed_at),
      cancelledAt: iso(row.cancelled_at),
      endProtection: iso(row.end_protection),
      rollbackAt: iso(row.rollback_at),
      stage: 1,
    };
  }

  static updateOf(row: TradeRow): TradeUpdatedWebhook {
    return {
      tradeId: row.trade_id,
      status: row.status,
      externalId: row.external_id,
      offerId: row.offer_id,
      failReason: row.fail_reason,
      errorCode: row.error_code,
    };
  }

  find(tradeId: string): TradeRow | null {
    return this.byIdStmt.get(tradeId) ?? null;
  }

  get(tradeId: string): TradeRow {
    const row = this.find(tradeId);
    if (!row) throw notFound(`trade ${tradeId}`);
    return row;
  }

  findByExternalId(merchantId: string, externalId: string): TradeRow | null {
    return (
      (this.db.prepare('SELECT * FROM trades WHERE merchant_id = ? AND external_id = ?').get(merchantId, externalId) as
        TradeRow | undefined) ?? null
    );
  }

  /** The PENDING or SENT trade holding an item (bought items are off sale until their trade ends), or null. */
  activeForItem(itemId: number): TradeRow | null {
    return (
      (this.db
        .prepare(
          "SELECT * FROM trades WHERE item_id = ? AND status IN ('PENDING', 'SENT', 'CREATING') ORDER BY seq DESC LIMIT 1",
        )
        .get(itemId) as TradeRow | undefined) ?? null
    );
  }

  activeCountForPartner(partner: string): number {
    return (
      this.db
        .prepare("SELECT count(*) AS n FROM trades WHERE partner = ? AND status IN ('PENDING', 'SENT', 'CREATING')")
        .get(partner) as {
        n: number;
      }
    ).n;
  }

  activeCountForHolder(holder: string): number {
    return (
      this.db
        .prepare("SELECT count(*) AS n FROM trades WHERE holder = ? AND status IN ('PENDING', 'SENT', 'CREATING')")
        .get(holder) as {
        n: number;
      }
    ).n;
  }

  /** The end of a partner's block, or null when it may trade. */
  partnerBlockedUntil(partner: string): number | null {
    const row = this.db.prepare('SELECT until FROM partner_blocks WHERE partner = ?').get(partner) as
      { until: number } | undefined;
    return row && row.until > this.clock.now() ? row.until : null;
  }

  /** Writes a PENDING trade and its FREEZE; the caller has run every check inside the same transaction. */
  insertPending(trade: NewTrade): TradeRow {
    const now = this.clock.now();
    const tradeId = randomUUID();
    const row: TradeRow = {
      seq: 0,
      trade_id: tradeId,
      merchant_id: trade.merchantId,
      external_id: trade.externalId,
      status: 'PENDING',
      price: trade.item.price,
      item_id: trade.item.itemId,
      asset_id: trade.item.assetId,
      offer_id: null,
      trade_url: trade.tradeUrl,
      partner: trade.partner,
      holder: trade.item.steamId,
      market_hash_name: trade.item.market_hash_name,
      phase: trade.item.phase,
      float: trade.item.float,
      webhook_status: null,
      fail_reason: null,
      error_code: null,
      trade_duration_seconds: trade.tradeDurationSeconds,
      created_at: now,
      updated_at: now,
      sent_at: null,
      expires_at: null,
      completed_at: null,
      cancelled_at: null,
      end_protection: null,
      rollback_at: null,
      wire: null,
    };
    const wire = Trades.wireBaseOf(row);
    this.db
      .prepare(
        `INSERT INTO trades (trade_id, merchant_id, external_id, status, price, item_id, asset_id, trade_url, partner, holder,
           market_hash_name, phase, float, trade_duration_seconds, created_at, updated_at, wire)
         VALUES (?, ?, ?, 'PENDING', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        tradeId,
        trade.merchantId,
        trade.externalId,
        trade.item.price,
        trade.item.itemId,
        trade.item.assetId,
        trade.tradeUrl,
        trade.partner,
        trade.item.steamId,
        trade.item.market_hash_name,
        trade.item.phase,
        trade.item.float,
        trade.tradeDurationSeconds,
        now,
        now,
        wire,
      );
    this.ledger.post(trade.merchantId, {
      type: 'FREEZE',
      amount: -trade.item.price,
      tradeId,
      note: 'Balance frozen for a pending buy',
      market_hash_name: trade.item.market_hash_name,
      phase: trade.item.phase,
    });
    this.history.written(trade.merchantId, tradeId, wire);
    return this.get(tradeId);
  }

  /** Announces a committed change of status. */
  announce(row: TradeRow): void {
    this.events.emit('tradeUpdated', row.merchant_id, Trades.updateOf(row));
  }

  /** Moves a trade along the transition table, with its ledger entry, timestamps and side effects. */
  transition(tradeId: string, request: TransitionRequest, options: TransitionOptions = {}): TradeRow {
    let relistItemId: number | null = null;
    const apply = this.db.transaction((): TradeRow => {
      const row = this.get(tradeId);
      const rule = findTransition(row.status, request.status);
      if (!rule) throw new ApiError(409, 'invalid_request', `A ${row.status} trade cannot become ${request.status}`);
      if (row.status === 'COMPLETED' && this.stageOf(row) !== 1) {
        throw new ApiError(
          409,
          'invalid_request',
          'The trade is past its protection period (stage 2) and cannot be reversed',
        );
      }
      const outcome = resolveOutcome(rule, request.errorCode, request.failReason);
      if (!outcome) {
        throw new ApiError(
          400,
          'invalid_request',
          `errorCode/failReason do not match any ${request.status} row of the outcome table`,
        );
      }
      const now = this.clock.now();
      const sets: Record<string, string | number | null> = {
        status: request.status,
        error_code: outcome.errorCode,
        fail_reason: outcome.failReason,
        updated_at: now,
      };
      if (request.status === 'SENT') {
        sets.offer_id = String(randomInt(1_000_000_000, 9_999_999_999));
        sets.sent_at = now;
        sets.expires_at = now + row.trade_duration_seconds * 1000;
      }
      if (request.status === 'COMPLETED') {
        sets.completed_at = now;
        sets.end_protection = now + SANDBOX_CHOICES.endProtectionMs;
      }
      if (request.status === 'CANCELLED' || request.status === 'EXPIRED') sets.cancelled_at = now;
      if (request.status === 'REVERSED') sets.rollback_at = now;
      // The stored wire JSON changes with the row, in the same UPDATE.
      sets.wire = Trades.wireBaseOf({ ...row, ...sets } as TradeRow);
      const columns = Object.keys(sets);
      this.db
        .prepare(`UPDATE trades SET ${columns.map((c) => `${c} = @${c}`).join(', ')} WHERE trade_id = @tradeId`)
        .run({ ...sets, tradeId });

      if (rule.ledger) {
        this.ledger.post(row.merchant_id, {
          type: rule.ledger.type,
          amount: rule.ledger.refund ? row.price : 0,
          tradeId,
          note: outcome.failReason,
          market_hash_name: row.market_hash_name,
          phase: row.phase,
        });
      }
      if (isPartnerStrike(request.status, outcome.errorCode)) this.recordStrike(row.partner, tradeId, now);
      if (!options.itemGone && returnsItemToSale(request.status, outcome.errorCode)) relistItemId = row.item_id;
      this.history.written(row.merchant_id, tradeId, sets.wire as string);
      return this.get(tradeId);
    });
    const updated = apply();
    this.announce(updated);
    if (relistItemId !== null) this.catalog.relist(relistItemId);
    this.syncExpiryTimer(updated);
    return updated;
  }

  /** Sets the webhook delivery result shown as `webhookStatus`. */
  setWebhookStatus(tradeId: string, status: WebhookStatus): void {
    const row = this.find(tradeId);
    if (!row) return;
    const wire = Trades.wireBaseOf({ ...row, webhook_status: status });
    this.db.prepare('UPDATE trades SET webhook_status = ?, wire = ? WHERE trade_id = ?').run(status, wire, tradeId);
    this.history.written(row.merchant_id, tradeId, wire);
  }

  /** Re-arms expiry timers after a restart. */
  restoreTimers(): void {
    const rows = this.db.prepare("SELECT * FROM trades WHERE status = 'SENT'").all() as TradeRow[];
    for (const row of rows) this.syncExpiryTimer(row);
  }

  stopTimers(): void {
    for (const timer of this.expiryTimers.values()) timer.cancel();
    this.expiryTimers.clear();
  }

  private syncExpiryTimer(row: TradeRow): void {
    const existing = this.expiryTimers.get(row.trade_id);
    if (row.status !== 'SENT' || row.expires_at === null) {
      existing?.cancel();
      this.expiryTimers.delete(row.trade_id);
      return;
    }
    if (existing) return;
    const timer = this.clock.schedule(row.expires_at, `expire trade ${row.trade_id}`, () => {
      this.expiryTimers.delete(row.trade_id);
      if (this.find(row.trade_id)?.status === 'SENT') this.transition(row.trade_id, { status: 'EXPIRED' });
    });
    this.expiryTimers.set(row.trade_id, timer);
  }

  private recordStrike(partner: string, tradeId: string, now: number): void {
    this.db.prepare('INSERT INTO partner_strikes (partner, at, trade_id) VALUES (?, ?, ?)').run(partner, now, tradeId);
    const recent = (
      this.db
        .prepare('SELECT count(*) AS n FROM partner_strikes WHERE partner = ? AND at > ?')
        .get(partner, now - PARTNER_BLOCK_WINDOW_MS) as {
        n: number;
      }
    ).n;
    if (recent >= PARTNER_BLOCK_THRESHOLD && this.partnerBlockedUntil(partner) === null) {
      this.db
        .prepare(
          'INSERT INTO partner_blocks (partner, until) VALUES (?, ?) ON CONFLICT (partner) DO UPDATE SET until = excluded.until',
        )
        .run(partner, now + SANDBOX_CHOICES.partnerBlockMs);
    }
  }
}
