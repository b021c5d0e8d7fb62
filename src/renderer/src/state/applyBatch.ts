import type { EngineEventBatch } from '../../../shared/ipc/events';
import type { AppSnapshot } from '../../../shared/ipc/models';
import { accountChanged, withoutAccountScope } from './accountScope';
import { mergeFirings } from './slices/alerts';
import { applyCatalogBatch } from './slices/catalog';
import { applyConnBatch, connFromSnapshot } from './slices/conn';
import { pushToasts, toastsFromNotifications } from './slices/notes';
import { withSearchChanges } from './slices/searches';
import { applyTradesBatch } from './slices/trades';
import type { AppState } from './store';

/**
 * Fold one coalesced engine batch into the state: returns only the slices that
 * changed, for ONE setState. Absent fields of the batch mean "unchanged".
 */
export function applyBatch(state: AppState, batch: EngineEventBatch, nowMs: number): Partial<AppState> {
  const out: Partial<AppState> = {};

  const conn = applyConnBatch(state.conn, batch);
  if (conn !== state.conn) out.conn = conn;

  const catalog = applyCatalogBatch(state.catalog, batch, nowMs);
  if (catalog !== state.catalog) out.catalog = catalog;

  let trades = applyTradesBatch(state.trades, batch.trades);
  // Too many changed to carry: what the list shows may be out of date.
  if (batch.tradesInvalidated && !trades.stale) trades = { ...trades, stale: true };
  if (trades !== state.trades) out.trades = trades;

  if (batch.balance !== undefined || batch.ledgerChanged || batch.runway) {
    out.wallet = {
      ...state.wallet,
      ...(batch.runway ? { runway: batch.runway } : {}),
      ...(batch.balance !== undefined ? { balance: batch.balance, balanceAt: batch.balanceAt ?? null } : {}),
      ...(batch.ledgerChanged ? { stale: true } : {}),
    };
  }

  // Settings changed elsewhere (the tray's "Pause alerts", another window).
  if (batch.settings) out.settings = { ...state.settings, settings: batch.settings };
  if (batch.savedSearches)
    out.searches = { ...state.searches, list: withSearchChanges(state.searches.list, batch.savedSearches) };

  if (batch.firings && batch.firings.length > 0) out.alerts = mergeFirings(state.alerts, batch.firings);
  if (batch.autoBuy) out.alerts = { ...(out.alerts ?? state.alerts), autoBuy: batch.autoBuy };

  if (batch.awaySummary || batch.forwarding) {
    out.away = {
      ...state.away,
      ...(batch.awaySummary ? { summary: batch.awaySummary } : {}),
      ...(batch.forwarding ? { forwarding: batch.forwarding } : {}),
    };
  }

  if (batch.unreadNotifications !== undefined && batch.unreadNotifications !== state.inbox.unread) {
    out.inbox = { ...state.inbox, unread: batch.unreadNotifications };
  }

  if (batch.notifications && batch.notifications.length > 0) {
    const notes = pushToasts(state.notes, toastsFromNotifications(batch.notifications));
    if (notes !== state.notes) out.notes = notes;
  }
  return out;
}

/** A full picture from the engine; another account than the page held replaces everything scoped to it. */
export function applySnapshot(state: AppState, snap: AppSnapshot, host: 'electron' | 'web'): Partial<AppState> {
  const fresh = accountChanged(state.conn.account, snap.account) ? withoutAccountScope(state) : null;
  const base: AppState = fresh ? { ...state, ...fresh } : state;
  return {
    ...fresh,
    conn: connFromSnapshot(base.conn, snap, host),
    catalog: { ...base.catalog, info: snap.catalog },
    wallet: { ...base.wallet, balance: snap.balance, balanceAt: snap.balanceAt ?? null },
    settings: { ...base.settings, settings: snap.settings },
    // Another account's list is not this one's: the screen reads it again.
    inbox: {
      ...base.inbox,
      ...(fresh ? { page: null, status: 'idle' as const } : {}),
      unread: snap.unreadNotifications ?? 0,
    },
    ...(snap.autoBuy ? { alerts: { ...base.alerts, autoBuy: snap.autoBuy } } : {}),
    away: { ...base.away, summary: snap.awaySummary ?? null, forwarding: snap.forwarding ?? null },
  };
}

/** What a batch may say of the state a snapshot also carries. */
const SNAPSHOT_FIELDS = [
  'connection',
  'rateLimit',
  'progress',
  'exports',
  'balance',
  'balanceAt',
  'activeTrades',
  'catalog',
  'settings',
  'unreadNotifications',
  'unacknowledgedFirings',
  'autoBuy',
  'awaySummary',
  'forwarding',
] as const satisfies readonly (keyof EngineEventBatch)[];

/**
 * A snapshot read again, then what the batches applied while it was out (see readWithBatches) say of the same
 * state. Their news (trades, items, firings, toasts) was applied when they came, and is not again.
 */
export function applySnapshotAfter(
  state: AppState,
  snap: AppSnapshot,
  host: 'electron' | 'web',
  since: readonly EngineEventBatch[],
): Partial<AppState> {
  let next: AppState = { ...state, ...applySnapshot(state, snap, host) };
  for (const batch of since) {
    const fields = Object.fromEntries(
      SNAPSHOT_FIELDS.filter((key) => batch[key] !== undefined).map((k) => [k, batch[k]]),
    );
    // The seq seen last stays: these batches were counted when they came.
    next = { ...next, ...applyBatch(next, { ...fields, seq: next.conn.lastSeq, at: batch.at }, 0) };
  }
  return next;
}
