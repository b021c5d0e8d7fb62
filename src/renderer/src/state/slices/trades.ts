import type { Trade, TradeStatus } from '../../../../shared/api';
import type { Page, TradeDetail } from '../../../../shared/ipc/models';
import type { TradeQuery } from '../../../../shared/ipc/contract';
import type { EngineEventBatch } from '../../../../shared/ipc/events';
import { isActiveStatus } from '../../../../shared/api/values';
import { dateInputToIso } from '../../lib/format';

export type TradesTab = 'active' | 'history';

export interface TradeFilters {
  statuses: TradeStatus[];
  /** `<input type="date">` values (local days). */
  from: string;
  to: string;
  externalId: string;
  tradeId: string;
  /** As typed: a partner number, or a trade URL (its partner is the recipient). */
  recipient: string;
  webhookFailed: boolean;
  /** An outcome code (0: none), set by a cell of Operations → Failures. */
  errorCode: number | null;
  /** Exact UTC bounds (a failures board cell's day or hour): used instead of the date inputs while set. */
  utcRange: { from: string; to: string; label: string } | null;
}

export const EMPTY_TRADE_FILTERS: TradeFilters = {
  statuses: [],
  from: '',
  to: '',
  externalId: '',
  tradeId: '',
  recipient: '',
  webhookFailed: false,
  errorCode: null,
  utcRange: null,
};

export interface ListState<Id> {
  ids: Id[];
  total: number;
  status: 'idle' | 'loading' | 'ready' | 'error';
  error: string | null;
  /** The query the ids answer. */
  key: string;
}

export interface TradeDetailState {
  id: string | null;
  status: 'idle' | 'loading' | 'ready' | 'missing' | 'error';
  data: TradeDetail | null;
  error: string | null;
}

export interface TradesSlice {
  /**
   * The trades on screen only: the current page's and the open detail's (at most the page
   * size + 1). The cache pages from SQLite; nothing here grows with the history.
   */
  byId: Record<string, Trade>;
  tab: TradesTab;
  filters: TradeFilters;
  offset: number;
  limit: number;
  list: ListState<string>;
  /** The list's total is a floor (an id prefix many ids start with): "2,000+". */
  totalCapped: boolean;
  /** Live changes arrived that the list may not show (new trades, trades leaving "active"). */
  stale: boolean;
  detail: TradeDetailState;
}

export const TRADE_PAGE_SIZES = [25, 50, 100, 200] as const;

export const initialTrades: TradesSlice = {
  byId: {},
  tab: 'active',
  filters: EMPTY_TRADE_FILTERS,
  offset: 0,
  limit: 50,
  list: { ids: [], total: 0, status: 'idle', error: null, key: '' },
  totalCapped: false,
  stale: false,
  detail: { id: null, status: 'idle', data: null, error: null },
};

/** An id filter as the engine matches it (a prefix): a shortened id copied from a table ("3f2a9c1e…ab") is its head. */
export function idFilterPrefix(text: string): string {
  const trimmed = text.trim();
  const cut = trimmed.indexOf('…');
  return cut >= 0 ? trimmed.slice(0, cut) : trimmed;
}

/**
 * The recipient filter's partner number: digits as typed, or the partner of a pasted trade URL; '' when empty,
 * null when it is neither (the field says so and the list is not asked).
 */
export function recipientPartner(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  if (/^[1-9][0-9]{0,9}$/.test(trimmed)) return Number(trimmed) <= 0xffff_ffff ? trimmed : null;
  return /[?&]partner=([1-9][0-9]{0,9})(?:&|$)/.exec(trimmed)?.[1] ?? null;
}

export function toTradeQuery(slice: Pick<TradesSlice, 'tab' | 'filters' | 'offset' | 'limit'>): TradeQuery {
  const f = slice.filters;
  return {
    statuses: f.statuses,
    activeOnly: slice.tab === 'active',
    from: f.utcRange ? f.utcRange.from : dateInputToIso(f.from, false),
    to: f.utcRange ? f.utcRange.to : dateInputToIso(f.to, true),
    externalId: idFilterPrefix(f.externalId),
    tradeId: idFilterPrefix(f.tradeId),
    partner: recipientPartner(f.recipient) || null,
    webhookFailed: f.webhookFailed,
    errorCode: f.errorCode,
    offset: slice.offset,
    limit: slice.limit,
  };
}

export function tradeQueryKey(slice: Pick<TradesSlice, 'tab' | 'filters' | 'offset' | 'limit'>): string {
  return JSON.stringify(toTradeQuery(slice));
}

/** byId reduced to the listed trades plus `keep` (the open detail), with `extra` records laid over. */
export function heldTrades(
  slice: Pick<TradesSlice, 'byId'>,
  ids: readonly string[],
  keep: string | null,
  extra: readonly Trade[] = [],
): Record<string, Trade> {
  const byId: Record<string, Trade> = {};
  for (const id of ids) {
    const trade = slice.byId[id];
    if (trade) byId[id] = trade;
  }
  if (keep !== null && slice.byId[keep]) byId[keep] = slice.byId[keep];
  for (const trade of extra) byId[trade.tradeId] = trade;
  return byId;
}

/** A page read; `since`: the batches applied while it was out, laid over it as over the list (older records left out). */
export function receiveTradePage(
  slice: TradesSlice,
  key: string,
  page: Page<Trade>,
  since: readonly EngineEventBatch[] = [],
): TradesSlice {
  if (key !== tradeQueryKey(slice)) return slice;
  const ids = page.rows.map((t) => t.tradeId);
  const byId = heldTrades(slice, [], slice.detail.id, page.rows);
  let next: TradesSlice = {
    ...slice,
    byId,
    stale: false,
    totalCapped: page.totalCapped === true,
    list: { ids, total: page.total, status: 'ready', error: null, key },
  };
  const read = new Map(page.rows.map((t) => [t.tradeId, t.updatedAt]));
  for (const batch of since) {
    const newer = batch.trades?.filter((t) => (read.get(t.tradeId) ?? '') <= t.updatedAt);
    next = applyTradesBatch(next, newer);
    if (batch.tradesInvalidated && !next.stale) next = { ...next, stale: true };
  }
  return next;
}

/** The open detail's record arrived: held beside the page, the previous detail's dropped. */
export function withDetailTrade(slice: TradesSlice, trade: Trade): TradesSlice {
  return { ...slice, byId: heldTrades(slice, slice.list.ids, null, [trade]) };
}

/**
 * Live trade records: update in place; flag the list stale when it may miss one. On the Active tab a trade whose
 * record says it finished leaves the rows at once: the list shows what the engine knows whether or not a reload
 * follows (one does, to fill the page).
 */
export function applyTradesBatch(slice: TradesSlice, trades: Trade[] | undefined): TradesSlice {
  if (!trades || trades.length === 0) return slice;
  const byId = { ...slice.byId };
  const onList = new Set(slice.list.ids);
  const finished = new Set<string>();
  let stale = slice.stale;
  let detail = slice.detail;
  for (const trade of trades) {
    // Only what is on screen is held; a trade the list does not show makes it stale (a reload fetches it).
    if (onList.has(trade.tradeId) || detail.id === trade.tradeId) byId[trade.tradeId] = trade;
    if (!onList.has(trade.tradeId)) stale = true;
    else if (slice.tab === 'active' && !isActiveStatus(trade.status)) {
      stale = true;
      finished.add(trade.tradeId);
    }
    if (detail.id === trade.tradeId && detail.data) detail = { ...detail, data: { ...detail.data, trade } };
  }
  if (finished.size === 0) return { ...slice, byId, stale, detail };
  const ids = slice.list.ids.filter((id) => !finished.has(id));
  const held = heldTrades({ byId }, ids, detail.id);
  return {
    ...slice,
    byId: held,
    stale,
    detail,
    list: { ...slice.list, ids, total: Math.max(0, slice.list.total - finished.size) },
  };
}
