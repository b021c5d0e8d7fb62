/**
 * The writer thread's changes to the user's records: trades (statuses only move forward), the ledger,
 * recipients, alert rules and firings, notifications, saved searches and meta. One transaction per call.
 */
import { randomUUID } from 'node:crypto';
import type { BalanceTransaction, Trade, TradeUpdatedWebhook } from '../../../../shared/api';
import type { AlertFiring, AlertRule, Recipient, StoredNotification } from '../../../../shared/ipc';
import {
  alertRuleInputSchema,
  MAX_SAVED_SEARCHES,
  notificationMarkReadSchema,
  recipientInputSchema,
  savedSearchInputSchema,
  type AlertRuleInput,
  type NotificationMarkRead,
  type RecipientInput,
  type SavedSearch,
  type SavedSearchInput,
} from '../../../../shared/ipc/contract';
import { StoreError } from '../errors';
import { partnerOf, SET_META_SQL } from '../schema';
import type {
  AutoBuyRecordInput,
  AutoBuySettled,
  AutoBuySettlement,
  FiringInput,
  LedgerInsertResult,
  NotificationInsertResult,
  TradeSource,
  TradeUpdateResult,
  TradeUpsertResult,
} from '../types';
import { insertRefusal, type BuyRefusalInput, type BuyRefusalRow } from './failuresQuery';
import { type Db, type Prepare } from './open';
import { RecordsReader } from './recordsReader';
import {
  canAdvance,
  FIRING_SELECT,
  firingOf,
  type FiringRow,
  LEDGER_FIELDS,
  sameTrade,
  STATUS_RANK,
  statusTimeOf,
  TRADE_FIELDS,
} from './recordRows';

/** `partner`: the recipient's number from the trade URL (the recipient filter's index). */
const TRADE_COLUMNS = [...TRADE_FIELDS, 'status_rank', 'updated_at', 'partner'];
const INSERT_TRADE_SQL = `INSERT INTO trades (${TRADE_COLUMNS.join(', ')}) VALUES (${TRADE_COLUMNS.map((c) => `@${c}`).join(', ')})`;
const UPDATE_TRADE_SQL = `UPDATE trades SET ${TRADE_COLUMNS.filter((c) => c !== 'tradeId')
  .map((c) => `${c} = @${c}`)
  .join(', ')} WHERE tradeId = @tradeId`;
/** An auto-buy's record written whole (a new one, or over the one of its order id). */
const PUT_AUTO_BUY_SQL = `INSERT INTO auto_buys (externalId, ruleId, itemId, price, at, state, tradeId) VALUES (?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT(externalId) DO UPDATE SET ruleId = excluded.ruleId, itemId = excluded.itemId, price = excluded.price,
    at = excluded.at, state = excluded.state, tradeId = excluded.tradeId`;
/** The centre keeps this many notifications; older ones are dropped as new ones arrive. */
const NOTIFICATIONS_KEPT = 20_000;

export class RecordsWriter {
  /** The same queries as the reader thread's, on this connection (inside this writer's transactions). */
  private readonly reads: RecordsReader;
  private readonly prepare: Prepare;

  constructor(private readonly db: Db) {
    this.reads = new RecordsReader(db);
    this.prepare = this.reads.prepare;
  }

  getMeta(key: string): unknown {
    return this.reads.getMeta(key);
  }

  setMeta(key: string, value: unknown): void {
    this.prepare(SET_META_SQL).run(key, JSON.stringify(value ?? null));
  }

  private setMetas(meta: Record<string, unknown> = {}): void {
    for (const [key, value] of Object.entries(meta)) this.setMeta(key, value);
  }

  // ---- trades

  /**
   * Writes `next` over the stored trade (none: a new trade) unless it changes nothing or its status may not follow the
   * stored one (an older status arriving late is ignored whole); whether it was written, its status is new to the
   * trade's timeline (added at `at`) and its webhookStatus became 'failed' with it.
   */
  private putTrade(
    next: Trade,
    at: string,
    source: TradeSource,
    now: number,
    stored = this.reads.trade(next.tradeId),
  ): { written: boolean; newStatus: boolean; newlyFailed: boolean } {
    if (stored && (stored.status === next.status ? sameTrade(stored, next) : !canAdvance(stored.status, next.status)))
      return { written: false, newStatus: false, newlyFailed: false };
    const params: Record<string, unknown> = {
      status_rank: STATUS_RANK[next.status],
      updated_at: now,
      partner: partnerOf(next.tradeUrl),
    };
    for (const field of TRADE_FIELDS) params[field] = next[field];
    this.prepare(stored ? UPDATE_TRADE_SQL : INSERT_TRADE_SQL).run(params);
    const insert = this.prepare(
      'INSERT OR IGNORE INTO trade_timeline (tradeId, status, at, errorCode, failReason, source) VALUES (?, ?, ?, ?, ?, ?)',
    );
    return {
      written: true,
      newStatus: insert.run(next.tradeId, next.status, at, next.errorCode, next.failReason, source).changes > 0,
      newlyFailed: next.webhookStatus === 'failed' && stored?.webhookStatus !== 'failed',
    };
  }

  /**
   * Trades as the server sent them: on the same status, the server's record is the newer word on the other fields.
   * `meta` is written in the same transaction (a back-fill's position with the page it stored).
   */
  upsertTrades(trades: Trade[], source: TradeSource, meta?: Record<string, unknown>): TradeUpsertResult {
    const now = Date.now();
    const result: TradeUpsertResult = { changed: [], newStatuses: [], newlyFailed: [] };
    this.db.transaction(() => {
      for (const trade of trades) {
        const { written, newStatus, newlyFailed } = this.putTrade(trade, statusTimeOf(trade), source, now);
        if (written) result.changed.push(trade);
        if (newStatus) result.newStatuses.push({ tradeId: trade.tradeId, status: trade.status });
        if (newlyFailed) result.newlyFailed.push(trade.tradeId);
      }
      this.setMetas(meta);
    })();
    return result;
  }

  /** A status update (feed, webhook): fields it leaves null keep their stored value, but for a new status's failure fields. */
  applyTradeUpdate(update: TradeUpdatedWebhook, source: TradeSource): TradeUpdateResult {
    return this.db.transaction((): TradeUpdateResult => {
      const stored = this.reads.trade(update.tradeId);
      if (!stored) return { unknown: true, tradeId: update.tradeId };
      const now = new Date();
      const at = now.toISOString();
      const moves = update.status !== stored.status;
      const next: Trade = {
        ...stored,
        externalId: update.externalId ?? stored.externalId,
        offerId: update.offerId ?? stored.offerId,
        failReason: moves ? update.failReason : (update.failReason ?? stored.failReason),
        errorCode: moves ? update.errorCode : (update.errorCode ?? stored.errorCode),
        ...(moves && {
          status: update.status,
          updatedAt: at,
          completedAt: update.status === 'COMPLETED' ? (stored.completedAt ?? at) : stored.completedAt,
          cancelledAt: update.status === 'CANCELLED' ? (stored.cancelledAt ?? at) : stored.cancelledAt,
          rollbackAt: update.status === 'REVERSED' ? (stored.rollbackAt ?? at) : stored.rollbackAt,
        }),
      };
      const { written, newStatus } = this.putTrade(next, at, source, now.getTime(), stored);
      return {
        unknown: false,
        trade: written ? next : stored,
        changed: written,
        newStatus: newStatus && moves ? next.status : null,
      };
    })();
  }

  // ---- ledger

  /** Ledger entries (ids make it idempotent); `meta` in the same transaction (a paging sync's position). */
  insertLedger(entries: BalanceTransaction[], meta?: Record<string, unknown>): LedgerInsertResult {
    const insert = this.prepare(
      `INSERT OR IGNORE INTO ledger (${LEDGER_FIELDS.join(', ')}) VALUES (${LEDGER_FIELDS.map((f) => `@${f}`).join(', ')})`,
    );
    return {
      inserted: this.db.transaction(() => {
        const inserted = entries.filter((entry) => insert.run(entry).changes > 0);
        this.setMetas(meta);
        return inserted;
      })(),
    };
  }

  // ---- recipients

  /** Creates (no id) or renames/re-points (id) a recipient; the trade URL is stored as given (validate it first). */
  saveRecipient(recipient: RecipientInput): Recipient {
    const input = recipientInputSchema.parse(recipient);
    return this.db.transaction(() => {
      const id = input.id ?? randomUUID();
      const createdAt = this.reads.getRecipient(id)?.createdAt ?? new Date().toISOString();
      this.prepare(
        'INSERT INTO recipients (id, label, tradeUrl, createdAt) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET label = excluded.label, tradeUrl = excluded.tradeUrl',
      ).run(id, input.label, input.tradeUrl, createdAt);
      return { id, label: input.label, tradeUrl: input.tradeUrl, createdAt };
    })();
  }

  deleteRecipient(id: string): { deleted: boolean } {
    return { deleted: this.prepare('DELETE FROM recipients WHERE id = ?').run(id).changes > 0 };
  }

  // ---- alert rules and firings

  private writeRule(rule: AlertRule): AlertRule {
    this.prepare(
      'INSERT INTO alert_rules (id, json, createdAt) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET json = excluded.json',
    ).run(rule.id, JSON.stringify(rule), rule.createdAt);
    return rule;
  }

  /** Creates or updates a rule; an update keeps createdAt and what auto-buy has spent. */
  saveAlertRule(rule: AlertRuleInput): AlertRule {
    const { existingListings: _existingListings, ...input } = alertRuleInputSchema.parse(rule);
    return this.db.transaction(() => {
      const id = input.id ?? randomUUID();
      const existing = this.reads.getAlertRule(id);
      const createdAt = existing?.createdAt ?? new Date().toISOString();
      return this.writeRule({
        ...input,
        id,
        autoBuy: { ...input.autoBuy, spent: existing?.autoBuy.spent ?? 0 },
        createdAt,
      });
    })();
  }

  deleteAlertRule(id: string): { deleted: boolean } {
    return this.db.transaction(() => {
      this.prepare('DELETE FROM auto_buy_baseline WHERE ruleId = ?').run(id);
      return { deleted: this.prepare('DELETE FROM alert_rules WHERE id = ?').run(id).changes > 0 };
    })();
  }

  setAutoBuyBaseline(ruleId: string, itemIds: number[]): { stored: number } {
    return this.db.transaction(() => {
      this.prepare('DELETE FROM auto_buy_baseline WHERE ruleId = ?').run(ruleId);
      const insert = this.prepare('INSERT OR IGNORE INTO auto_buy_baseline (ruleId, itemId) VALUES (?, ?)');
      let stored = 0;
      for (const itemId of itemIds) stored += insert.run(ruleId, itemId).changes;
      return { stored };
    })();
  }

  setAlertRuleEnabled(id: string, enabled: boolean): AlertRule | null {
    return this.db.transaction(() => {
      const rule = this.reads.getAlertRule(id);
      return rule ? this.writeRule({ ...rule, enabled }) : null;
    })();
  }

  // ---- auto-buys

  /**
   * Journal lines whose outcome was not stored (the app stopped with their requests out): in flight, to be looked
   * up. A record of the same order id stays as it is when it is bought, or when it is this attempt's or a later
   * one's (at).
   */
  replayAutoBuys(records: AutoBuyRecordInput[]): { replayed: number } {
    const upsert = this.prepare(`${PUT_AUTO_BUY_SQL} WHERE auto_buys.state <> 'bought' AND auto_buys.at < excluded.at`);
    return this.db.transaction(() => {
      let replayed = 0;
      for (const r of records)
        replayed += upsert.run(r.externalId, r.ruleId, r.itemId, r.price, r.at, 'in_flight', null).changes;
      return { replayed };
    })();
  }

  /**
   * What became of an auto-buy, with what follows from it, in one transaction: its record takes the outcome
   * (a bought one stays bought: `earlier`), bought adds its price to its rule's spend, once, and its firing
   * (rule, item, price) shows the outcome.
   */
  settleAutoBuy(settlement: AutoBuySettlement): AutoBuySettled {
    return this.db.transaction((): AutoBuySettled => {
      const record = this.reads.autoBuy(settlement.externalId);
      if (record?.state === 'bought') return { counted: false, earlier: record, firing: null };
      const { externalId, ruleId, itemId, price, at, state, tradeId } = settlement;
      this.prepare(PUT_AUTO_BUY_SQL).run(externalId, ruleId, itemId, price, at, state, tradeId);
      if (state === 'bought') {
        const rule = this.reads.getAlertRule(ruleId);
        if (rule) this.writeRule({ ...rule, autoBuy: { ...rule.autoBuy, spent: rule.autoBuy.spent + price } });
      }
      // A skip (held back before it was sent) is folded into its rule's skip line, as one decided at once is.
      const skipped = settlement.skipped ?? null;
      // One firing at most: (ruleId, itemId, price) is unique.
      const changed = this.prepare<unknown[], string>(
        `UPDATE alert_firings SET autoBuyTradeId = ?, autoBuyError = ?, autoBuySkipped = ?, autoBuyDone = 1,
           acknowledged = CASE WHEN ? IS NULL THEN acknowledged ELSE 1 END WHERE ruleId = ? AND itemId = ? AND price = ? RETURNING id`,
      )
        .pluck()
        .get(tradeId, settlement.error, skipped, skipped, ruleId, itemId, price);
      return {
        counted: state === 'bought',
        earlier: null,
        firing: changed === undefined ? null : this.firing(changed),
      };
    })();
  }

  private firing(id: string): AlertFiring | null {
    const row = this.prepare<[string], FiringRow>(`SELECT ${FIRING_SELECT} FROM alert_firings WHERE id = ?`).get(id);
    return row ? firingOf(row) : null;
  }

  recordFiring(input: FiringInput): AlertFiring | null {
    const id = randomUUID();
    const skipped = input.autoBuySkipped ?? null;
    const dryRun = input.autoBuyDryRun === true;
    // A skip or a dry run is decided at once (nothing sent); a skip is folded into its rule's skip line, so it counts as seen.
    const inserted = this.prepare(
      `INSERT OR IGNORE INTO alert_firings (id, ruleId, ruleName, itemId, market_hash_name, price, firedAt, autoBuySkipped, autoBuyDryRun, autoBuyDone, acknowledged)
       VALUES (@id, @ruleId, @ruleName, @itemId, @market_hash_name, @price, @firedAt, @skipped, @dryRun, @done, @acknowledged)`,
    ).run({
      ...input,
      id,
      firedAt: input.firedAt ?? new Date().toISOString(),
      skipped,
      dryRun: dryRun ? 1 : 0,
      done: skipped !== null || dryRun ? 1 : 0,
      acknowledged: skipped !== null ? 1 : 0,
    });
    return inserted.changes === 0 ? null : this.firing(id);
  }

  acknowledgeFiring(id: string): AlertFiring | null {
    this.prepare('UPDATE alert_firings SET acknowledged = 1 WHERE id = ?').run(id);
    return this.firing(id);
  }

  setFiringAutoBuy(id: string, autoBuy: { tradeId: string | null; error: string | null }): AlertFiring | null {
    this.prepare('UPDATE alert_firings SET autoBuyTradeId = ?, autoBuyError = ?, autoBuyDone = 1 WHERE id = ?').run(
      autoBuy.tradeId,
      autoBuy.error,
      id,
    );
    return this.firing(id);
  }

  deleteFiringsForRule(ruleId: string): { deleted: number } {
    return { deleted: this.prepare('DELETE FROM alert_firings WHERE ruleId = ?').run(ruleId).changes };
  }

  // ---- buy refusals (Operations → Failures)

  recordBuyRefusal(refusal: BuyRefusalInput): BuyRefusalRow {
    return this.db.transaction(() => insertRefusal(this.prepare, refusal))();
  }

  // ---- notifications

  /** Idempotent by id (one already held is left as it is, read or not); keeps the newest NOTIFICATIONS_KEPT. */
  insertNotifications(list: StoredNotification[]): NotificationInsertResult {
    const insert = this.prepare(
      `INSERT OR IGNORE INTO notifications (id, kind, category, severity, title, body, target, at, readAt)
       VALUES (@id, @kind, @category, @severity, @title, @body, @target, @at, @readAt)`,
    );
    return this.db.transaction(() => {
      const inserted = list.filter(
        (n) => insert.run({ ...n, target: n.target === null ? null : JSON.stringify(n.target) }).changes > 0,
      );
      if (inserted.length > 0) {
        this.prepare(
          'DELETE FROM notifications WHERE id IN (SELECT id FROM notifications ORDER BY at DESC, id LIMIT -1 OFFSET ?)',
        ).run(NOTIFICATIONS_KEPT);
      }
      return { inserted, unread: this.reads.unreadNotificationCount() };
    })();
  }

  /** The given ids, or every unread one at or before `through` (now when not given). */
  markNotificationsRead(marks: NotificationMarkRead): { marked: number; unread: number } {
    const input = notificationMarkReadSchema.parse(marks);
    const now = new Date().toISOString();
    return this.db.transaction(() => {
      let marked = 0;
      if ('ids' in input) {
        const mark = this.prepare('UPDATE notifications SET readAt = ? WHERE id = ? AND readAt IS NULL');
        for (const id of input.ids) marked += mark.run(now, id).changes;
      } else {
        marked = this.prepare('UPDATE notifications SET readAt = ? WHERE readAt IS NULL AND at <= ?').run(
          now,
          input.through ?? now,
        ).changes;
      }
      return { marked, unread: this.reads.unreadNotificationCount() };
    })();
  }

  // ---- saved searches

  /**
   * Creates (no id) or renames/replaces (id); a taken name, or a new one past MAX_SAVED_SEARCHES, is refused with
   * StoreError 'conflict', a deleted id with 'not_found'.
   */
  saveSearch(search: SavedSearchInput): SavedSearch {
    const input = savedSearchInputSchema.parse(search);
    return this.db.transaction((): SavedSearch => {
      const id = input.id ?? randomUUID();
      const existing =
        input.id === undefined
          ? undefined
          : this.prepare<[string], { createdAt: string }>('SELECT createdAt FROM saved_searches WHERE id = ?').get(id);
      if (input.id !== undefined && !existing)
        throw new StoreError('not_found', 'This saved search was deleted; save the search again under a name.');
      const count =
        this.prepare<[], { count: number }>('SELECT count(*) AS count FROM saved_searches').get()?.count ?? 0;
      if (input.id === undefined && count >= MAX_SAVED_SEARCHES) {
        throw new StoreError(
          'conflict',
          `At most ${MAX_SAVED_SEARCHES} searches can be saved: delete one to save another.`,
        );
      }
      const taken = this.prepare<[string, string], { name: string }>(
        'SELECT name FROM saved_searches WHERE name = ? COLLATE NOCASE AND id <> ?',
      ).get(input.name, id);
      if (taken)
        throw new StoreError(
          'conflict',
          `A search is already saved as "${taken.name}": choose another name, or replace that one.`,
        );
      const now = new Date().toISOString();
      const createdAt = existing?.createdAt ?? now;
      this.prepare(
        'INSERT INTO saved_searches (id, name, query, createdAt, updatedAt) VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET name = excluded.name, query = excluded.query, updatedAt = excluded.updatedAt',
      ).run(id, input.name, JSON.stringify(input.query), createdAt, now);
      return { id, name: input.name, query: input.query, createdAt, updatedAt: now };
    })();
  }

  deleteSearch(id: string): { deleted: boolean } {
    return { deleted: this.prepare('DELETE FROM saved_searches WHERE id = ?').run(id).changes > 0 };
  }
}
