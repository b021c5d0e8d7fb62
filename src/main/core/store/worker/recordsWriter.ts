/**
 * The writer thread's changes to the user's records: trades (statuses only move forward), the ledger,
 * recipients, alert rules and firings, notifications, settings and meta. One transaction per call.
 */
import { randomUUID } from 'node:crypto';
import type { BalanceTransaction, Trade, TradeStatus } from '../../../../shared/api';
import type { AlertFiring, AlertRule, AppSettings, Recipient, StoredNotification } from '../../../../shared/ipc';
import type { NotificationMarkRead, ParsedSavedSearchInput, SavedSearch } from '../../../../shared/ipc/contract';
import { StoreError } from '../errors';
import type { NotificationInsertResult } from '../notifications';
import type {
  FiringInput,
  LedgerInsertResult,
  ParsedAlertRuleInput,
  RecipientInput,
  SettingsPatch,
  TradeSource,
  TradeUpdate,
  TradeUpdateResult,
  TradeUpsertResult,
} from '../types';
import { insertNotifications, markNotificationsRead } from './notificationRows';
import type { Db } from './open';
import {
  alertRuleOf,
  canAdvance,
  DEFAULT_SETTINGS,
  FIRING_SELECT,
  firingOf,
  recipientOf,
  sameTrade,
  settingsOf,
  STATUS_RANK,
  statusTimeOf,
  TRADE_FIELDS,
  TRADE_SELECT,
  tradeOf,
} from './recordRows';

function prepareStatements(db: Db) {
  return {
    getMeta: db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?'),
    setMeta: db.prepare<[string, string]>('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
    selectTrade: db.prepare<[string], Record<string, unknown>>(`SELECT ${TRADE_SELECT} FROM trades WHERE tradeId = ?`),
    insertTrade: db.prepare(
      `INSERT INTO trades (${TRADE_FIELDS.join(', ')}, status_rank, updated_at) VALUES (${TRADE_FIELDS.map((f) => `@${f}`).join(', ')}, @status_rank, @updated_at)`,
    ),
    updateTrade: db.prepare(
      `UPDATE trades SET ${TRADE_FIELDS.filter((f) => f !== 'tradeId')
        .map((f) => `${f} = @${f}`)
        .join(', ')}, status_rank = @status_rank, updated_at = @updated_at WHERE tradeId = @tradeId`,
    ),
    insertTimeline: db.prepare<[string, string, string, number | null, string | null, string]>(
      'INSERT OR IGNORE INTO trade_timeline (tradeId, status, at, errorCode, failReason, source) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    insertLedger: db.prepare(
      `INSERT OR IGNORE INTO ledger (id, type, amount, balanceBefore, balanceAfter, tradeId, note, createdAt, market_hash_name, phase)
       VALUES (@id, @type, @amount, @balanceBefore, @balanceAfter, @tradeId, @note, @createdAt, @market_hash_name, @phase)`,
    ),
    selectRecipient: db.prepare<[string], Record<string, unknown>>('SELECT id, label, tradeUrl, createdAt FROM recipients WHERE id = ?'),
    upsertRecipient: db.prepare<[string, string, string, string]>(
      'INSERT INTO recipients (id, label, tradeUrl, createdAt) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET label = excluded.label, tradeUrl = excluded.tradeUrl',
    ),
    deleteRecipient: db.prepare<[string]>('DELETE FROM recipients WHERE id = ?'),
    selectRule: db.prepare<[string], { json: string }>('SELECT json FROM alert_rules WHERE id = ?'),
    upsertRule: db.prepare<[string, string, string]>(
      'INSERT INTO alert_rules (id, json, createdAt) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET json = excluded.json',
    ),
    deleteRule: db.prepare<[string]>('DELETE FROM alert_rules WHERE id = ?'),
    insertFiring: db.prepare<[string, string, string, number, string, number, string, string | null, number, number, number]>(
      `INSERT OR IGNORE INTO alert_firings (id, ruleId, ruleName, itemId, market_hash_name, price, firedAt, autoBuySkipped, autoBuyDryRun, autoBuyDone, acknowledged)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    deleteBaseline: db.prepare<[string]>('DELETE FROM auto_buy_baseline WHERE ruleId = ?'),
    insertBaseline: db.prepare<[string, number]>('INSERT OR IGNORE INTO auto_buy_baseline (ruleId, itemId) VALUES (?, ?)'),
    selectFiring: db.prepare<[string], Record<string, unknown>>(`SELECT ${FIRING_SELECT} FROM alert_firings WHERE id = ?`),
    acknowledgeFiring: db.prepare<[string]>('UPDATE alert_firings SET acknowledged = 1 WHERE id = ?'),
    acknowledgeAll: db.prepare('UPDATE alert_firings SET acknowledged = 1 WHERE acknowledged = 0'),
    setFiringAutoBuy: db.prepare<[string | null, string | null, string]>(
      'UPDATE alert_firings SET autoBuyTradeId = ?, autoBuyError = ?, autoBuyDone = 1 WHERE id = ?',
    ),
    deleteFiringsForRule: db.prepare<[string]>('DELETE FROM alert_firings WHERE ruleId = ?'),
    searchById: db.prepare<[string], { createdAt: string }>('SELECT createdAt FROM saved_searches WHERE id = ?'),
    searchByName: db.prepare<[string, string], { name: string }>('SELECT name FROM saved_searches WHERE name = ? COLLATE NOCASE AND id <> ?'),
    upsertSearch: db.prepare<[string, string, string, string, string]>(
      'INSERT INTO saved_searches (id, name, query, createdAt, updatedAt) VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET name = excluded.name, query = excluded.query, updatedAt = excluded.updatedAt',
    ),
    deleteSearch: db.prepare<[string]>('DELETE FROM saved_searches WHERE id = ?'),
    allSettings: db.prepare<[], { key: string; value: string }>('SELECT key, value FROM settings'),
    setSetting: db.prepare<[string, string]>('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
  };
}

export class RecordsWriter {
  private readonly s: ReturnType<typeof prepareStatements>;

  constructor(private readonly db: Db) {
    this.s = prepareStatements(db);
  }

  readMeta(key: string): unknown {
    const row = this.s.getMeta.get(key);
    return row ? (JSON.parse(row.value) as unknown) : null;
  }

  setMeta(key: string, value: unknown): void {
    this.s.setMeta.run(key, JSON.stringify(value ?? null));
  }

  // ---- trades

  private tradeParams(trade: Trade, now: number): Record<string, unknown> {
    const params: Record<string, unknown> = { status_rank: STATUS_RANK[trade.status], updated_at: now };
    for (const field of TRADE_FIELDS) params[field] = trade[field];
    return params;
  }

  upsertTrades(trades: Trade[], source: TradeSource): TradeUpsertResult {
    const now = Date.now();
    const changed: Trade[] = [];
    const newStatuses: { tradeId: string; status: TradeStatus }[] = [];
    this.db.transaction(() => {
      for (const incoming of trades) {
        const row = this.s.selectTrade.get(incoming.tradeId);
        const stored = row ? tradeOf(row) : null;
        if (stored === null) {
          this.s.insertTrade.run(this.tradeParams(incoming, now));
        } else if (stored.status === incoming.status) {
          // Same status: the server's record is the newer word on the other fields (offerId, webhookStatus, …).
          if (sameTrade(stored, incoming)) continue;
          this.s.updateTrade.run(this.tradeParams(incoming, now));
        } else if (canAdvance(stored.status, incoming.status)) {
          this.s.updateTrade.run(this.tradeParams(incoming, now));
        } else {
          // An older status arriving late (SENT after COMPLETED): ignored whole.
          continue;
        }
        changed.push(incoming);
        const added = this.s.insertTimeline.run(
          incoming.tradeId,
          incoming.status,
          statusTimeOf(incoming),
          incoming.errorCode,
          incoming.failReason,
          source,
        );
        if (added.changes > 0) newStatuses.push({ tradeId: incoming.tradeId, status: incoming.status });
      }
    })();
    return { changed, newStatuses };
  }

  applyTradeUpdate(update: TradeUpdate, source: TradeSource): TradeUpdateResult {
    return this.db.transaction((): TradeUpdateResult => {
      const row = this.s.selectTrade.get(update.tradeId);
      if (!row) return { unknown: true, tradeId: update.tradeId };
      const stored = tradeOf(row);
      const nowMs = Date.now();
      const nowIso = new Date(nowMs).toISOString();
      let next: Trade;
      if (stored.status === update.status) {
        next = {
          ...stored,
          externalId: update.externalId ?? stored.externalId,
          offerId: update.offerId ?? stored.offerId,
          failReason: update.failReason ?? stored.failReason,
          errorCode: update.errorCode ?? stored.errorCode,
        };
        if (sameTrade(stored, next)) return { unknown: false, trade: stored, changed: false, newStatus: null };
      } else if (canAdvance(stored.status, update.status)) {
        next = {
          ...stored,
          status: update.status,
          externalId: update.externalId ?? stored.externalId,
          offerId: update.offerId ?? stored.offerId,
          failReason: update.failReason,
          errorCode: update.errorCode,
          updatedAt: nowIso,
          completedAt: update.status === 'COMPLETED' ? (stored.completedAt ?? nowIso) : stored.completedAt,
          cancelledAt: update.status === 'CANCELLED' ? (stored.cancelledAt ?? nowIso) : stored.cancelledAt,
          rollbackAt: update.status === 'REVERSED' ? (stored.rollbackAt ?? nowIso) : stored.rollbackAt,
        };
      } else {
        return { unknown: false, trade: stored, changed: false, newStatus: null };
      }
      this.s.updateTrade.run(this.tradeParams(next, nowMs));
      let newStatus: TradeStatus | null = null;
      if (next.status !== stored.status) {
        const added = this.s.insertTimeline.run(next.tradeId, next.status, nowIso, update.errorCode, update.failReason, source);
        if (added.changes > 0) newStatus = next.status;
      }
      return { unknown: false, trade: next, changed: true, newStatus };
    })();
  }

  // ---- ledger

  insertLedger(entries: BalanceTransaction[]): LedgerInsertResult {
    const inserted: BalanceTransaction[] = [];
    this.db.transaction(() => {
      for (const entry of entries) {
        if (this.s.insertLedger.run(entry).changes > 0) inserted.push(entry);
      }
    })();
    return { inserted };
  }

  // ---- recipients

  saveRecipient(input: RecipientInput): Recipient {
    return this.db.transaction(() => {
      const id = input.id ?? randomUUID();
      const existing = this.s.selectRecipient.get(id);
      const createdAt = existing ? (existing['createdAt'] as string) : new Date().toISOString();
      this.s.upsertRecipient.run(id, input.label, input.tradeUrl, createdAt);
      return recipientOf({ id, label: input.label, tradeUrl: input.tradeUrl, createdAt });
    })();
  }

  deleteRecipient(id: string): { deleted: boolean } {
    return { deleted: this.s.deleteRecipient.run(id).changes > 0 };
  }

  // ---- alert rules and firings

  private readRule(id: string): AlertRule | null {
    const row = this.s.selectRule.get(id);
    return row ? alertRuleOf(row.json) : null;
  }

  private writeRule(rule: AlertRule): AlertRule {
    this.s.upsertRule.run(rule.id, JSON.stringify(rule), rule.createdAt);
    return rule;
  }

  saveAlertRule(input: ParsedAlertRuleInput): AlertRule {
    return this.db.transaction(() => {
      const id = input.id ?? randomUUID();
      const existing = this.readRule(id);
      return this.writeRule({
        id,
        name: input.name,
        enabled: input.enabled,
        filters: input.filters,
        maxPrice: input.maxPrice,
        autoBuy: {
          enabled: input.autoBuy.enabled,
          recipientId: input.autoBuy.recipientId,
          spendCap: input.autoBuy.spendCap,
          dailyCap: input.autoBuy.dailyCap,
          spent: existing?.autoBuy.spent ?? 0,
          dryRun: input.autoBuy.dryRun,
        },
        createdAt: existing?.createdAt ?? new Date().toISOString(),
      });
    })();
  }

  deleteAlertRule(id: string): { deleted: boolean } {
    return this.db.transaction(() => {
      this.s.deleteBaseline.run(id);
      return { deleted: this.s.deleteRule.run(id).changes > 0 };
    })();
  }

  setAutoBuyBaseline(ruleId: string, itemIds: number[]): { stored: number } {
    return this.db.transaction(() => {
      this.s.deleteBaseline.run(ruleId);
      let stored = 0;
      for (const itemId of itemIds) stored += this.s.insertBaseline.run(ruleId, itemId).changes;
      return { stored };
    })();
  }

  setAlertRuleEnabled(id: string, enabled: boolean): AlertRule | null {
    return this.db.transaction(() => {
      const rule = this.readRule(id);
      return rule ? this.writeRule({ ...rule, enabled }) : null;
    })();
  }

  addAlertRuleSpend(id: string, cents: number): AlertRule | null {
    return this.db.transaction(() => {
      const rule = this.readRule(id);
      return rule ? this.writeRule({ ...rule, autoBuy: { ...rule.autoBuy, spent: rule.autoBuy.spent + cents } }) : null;
    })();
  }

  recordFiring(input: FiringInput): AlertFiring | null {
    const id = randomUUID();
    const firedAt = input.firedAt ?? new Date().toISOString();
    const skipped = input.autoBuySkipped ?? null;
    const dryRun = input.autoBuyDryRun === true;
    // A skip or a dry run is decided at once (nothing sent); a skip is folded into its rule's skip line, so it counts as seen.
    const decided = skipped !== null || dryRun ? 1 : 0;
    const result = this.s.insertFiring.run(
      id, input.ruleId, input.ruleName, input.itemId, input.market_hash_name, input.price, firedAt, skipped, dryRun ? 1 : 0, decided, skipped !== null ? 1 : 0,
    );
    if (result.changes === 0) return null;
    return firingOf(this.s.selectFiring.get(id) as Record<string, unknown>);
  }

  acknowledgeFiring(id: string): AlertFiring | null {
    this.s.acknowledgeFiring.run(id);
    const row = this.s.selectFiring.get(id);
    return row ? firingOf(row) : null;
  }

  acknowledgeAllFirings(): { acknowledged: number } {
    return { acknowledged: this.s.acknowledgeAll.run().changes };
  }

  setFiringAutoBuy(id: string, autoBuy: { tradeId: string | null; error: string | null }): AlertFiring | null {
    this.s.setFiringAutoBuy.run(autoBuy.tradeId, autoBuy.error, id);
    const row = this.s.selectFiring.get(id);
    return row ? firingOf(row) : null;
  }

  deleteFiringsForRule(ruleId: string): { deleted: number } {
    return { deleted: this.s.deleteFiringsForRule.run(ruleId).changes };
  }

  // ---- notification centre (notificationRows.ts)

  insertNotifications(list: StoredNotification[]): NotificationInsertResult {
    return insertNotifications(this.db, list);
  }

  markNotificationsRead(input: NotificationMarkRead): { marked: number; unread: number } {
    return markNotificationsRead(this.db, input, new Date().toISOString());
  }

  // ---- saved searches

  saveSearch(input: ParsedSavedSearchInput): SavedSearch {
    return this.db.transaction((): SavedSearch => {
      const id = input.id ?? randomUUID();
      const existing = input.id === undefined ? undefined : this.s.searchById.get(id);
      if (input.id !== undefined && !existing) throw new StoreError('not_found', 'This saved search was deleted; save the search again under a name.');
      const taken = this.s.searchByName.get(input.name, id);
      if (taken) throw new StoreError('conflict', `A search is already saved as "${taken.name}": choose another name, or replace that one.`);
      const now = new Date().toISOString();
      const createdAt = existing?.createdAt ?? now;
      this.s.upsertSearch.run(id, input.name, JSON.stringify(input.query), createdAt, now);
      return { id, name: input.name, query: input.query, createdAt, updatedAt: now };
    })();
  }

  deleteSearch(id: string): { deleted: boolean } {
    return { deleted: this.s.deleteSearch.run(id).changes > 0 };
  }

  // ---- settings

  updateSettings(patch: SettingsPatch): AppSettings {
    return this.db.transaction(() => {
      for (const [key, value] of Object.entries(patch)) {
        if (value === undefined || !(key in DEFAULT_SETTINGS)) continue;
        this.s.setSetting.run(key, JSON.stringify(value));
      }
      return settingsOf(this.s.allSettings.all());
    })();
  }
}
