import type { Balance, TransactionType } from '../../../../shared/api';
import type { BalancePoint, BalanceRunway, ConnectionState, LedgerRow, Page } from '../../../../shared/ipc/models';
import type { LedgerQuery } from '../../../../shared/ipc/contract';
import { dateInputToIso } from '../../lib/format';
import { idFilterPrefix, type ListState } from './trades';

export interface LedgerFilters {
  types: TransactionType[];
  tradeId: string;
  from: string;
  to: string;
}

/**
 * Whether the balance on screen is kept current by the engine now (the feed is live, or REST polling is); else it is
 * the one cached when the server last gave it.
 */
export function balanceIsLive(state: ConnectionState | undefined): boolean {
  return state === 'connected' || state === 'polling';
}

export const EMPTY_LEDGER_FILTERS: LedgerFilters = { types: [], tradeId: '', from: '', to: '' };

export interface WalletSlice {
  balance: Balance | null;
  /** When the server gave the balance (the engine's time, never when this page received it); null: unknown. */
  balanceAt: string | null;
  filters: LedgerFilters;
  offset: number;
  limit: number;
  byId: Record<number, LedgerRow>;
  list: ListState<number>;
  series: { points: BalancePoint[]; status: 'idle' | 'loading' | 'ready' | 'error'; error: string | null; key: string };
  /** The ledger changed since we last read it. */
  stale: boolean;
  /** The balance runway as the engine last computed it; null until it has a balance. */
  runway: BalanceRunway | null;
  /** The latest top-ups and deposits of the last days (a few rows, newest first). */
  topUps: LedgerRow[];
}

/** Ledger types that bring money in from outside: shown beside the runway. */
export const TOP_UP_TYPES = ['ADMIN TOP UP', 'CRYPTO DEPOSIT'] as const satisfies readonly TransactionType[];
/** How far back "recent" top-ups go, and how many are shown. */
export const TOP_UP_DAYS = 7;
export const TOP_UP_ROWS = 3;

export const initialWallet: WalletSlice = {
  balance: null,
  balanceAt: null,
  filters: EMPTY_LEDGER_FILTERS,
  offset: 0,
  limit: 50,
  byId: {},
  list: { ids: [], total: 0, status: 'idle', error: null, key: '' },
  series: { points: [], status: 'idle', error: null, key: '' },
  stale: false,
  runway: null,
  topUps: [],
};

export function toLedgerQuery(slice: Pick<WalletSlice, 'filters' | 'offset' | 'limit'>): LedgerQuery {
  const f = slice.filters;
  return {
    types: f.types,
    tradeId: idFilterPrefix(f.tradeId),
    from: dateInputToIso(f.from, false),
    to: dateInputToIso(f.to, true),
    offset: slice.offset,
    limit: slice.limit,
  };
}

export function ledgerQueryKey(slice: Pick<WalletSlice, 'filters' | 'offset' | 'limit'>): string {
  return JSON.stringify(toLedgerQuery(slice));
}

/** The series follows the date range and type filters, not paging. */
export function seriesQuery(slice: Pick<WalletSlice, 'filters'>): LedgerQuery {
  return { ...toLedgerQuery({ filters: slice.filters, offset: 0, limit: 1000 }) };
}

export function receiveLedgerPage(slice: WalletSlice, key: string, page: Page<LedgerRow>): WalletSlice {
  if (key !== ledgerQueryKey(slice)) return slice;
  const byId: Record<number, LedgerRow> = {};
  const ids = page.rows.map((row) => {
    byId[row.id] = row;
    return row.id;
  });
  return { ...slice, byId, stale: false, list: { ids, total: page.total, status: 'ready', error: null, key } };
}
