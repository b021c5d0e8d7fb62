import { debounced } from '../../lib/debounce';
import { api, errorMessage, unwrap } from '../../lib/ipc';
import {
  EMPTY_TRADE_FILTERS,
  receiveTradePage,
  recipientPartner,
  type TradeFilters,
  tradeQueryKey,
  type TradesTab,
  toTradeQuery,
  withDetailTrade,
} from '../slices/trades';
import { readWithBatches } from '../batchesSince';
import { getState, update } from '../store';
import { startExport } from './exports';

/** What the recipient field says when its text names no recipient (the list is not asked meanwhile). */
export const RECIPIENT_FILTER_ERROR = 'Recipient: type the partner number or paste the trade URL';

export async function loadTrades(): Promise<void> {
  const slice = getState().trades;
  const key = tradeQueryKey(slice);
  if (recipientPartner(slice.filters.recipient) === null) {
    update('trades', (t) => ({ ...t, list: { ...t.list, status: 'error', error: RECIPIENT_FILTER_ERROR } }));
    return;
  }
  update('trades', (t) => ({ ...t, list: { ...t.list, status: 'loading', error: null } }));
  try {
    const { answer: page, since } = await readWithBatches(() => unwrap(api().trades.query(toTradeQuery(slice))));
    update('trades', (t) => receiveTradePage(t, key, page, since));
  } catch (error) {
    update('trades', (t) =>
      tradeQueryKey(t) !== key ? t : { ...t, list: { ...t.list, status: 'error', error: errorMessage(error) } },
    );
  }
}

export const scheduleTradesReload = debounced(() => void loadTrades(), 250);

export function setTradesTab(tab: TradesTab): void {
  update('trades', (t) => (t.tab === tab ? t : { ...t, tab, offset: 0 }));
  void loadTrades();
}

export function setTradeFilters(patch: Partial<TradeFilters>): void {
  update('trades', (t) => ({ ...t, filters: { ...t.filters, ...patch }, offset: 0 }));
  scheduleTradesReload();
}

export function resetTradeFilters(filters: TradeFilters): void {
  update('trades', (t) => ({ ...t, filters, offset: 0 }));
  void loadTrades();
}

/** One order's attempts together ("buy the next one" chains ORDER, ORDER#2…): its order id as the filter, on History. */
export function showOrderChain(root: string): void {
  update('trades', (t) => ({ ...t, tab: 'history', filters: { ...EMPTY_TRADE_FILTERS, externalId: root }, offset: 0 }));
  void loadTrades();
}

export function setTradesPage(offset: number, limit?: number): void {
  update('trades', (t) => ({ ...t, offset: Math.max(0, offset), limit: limit ?? t.limit }));
  void loadTrades();
}

export function selectTrade(tradeId: string | null): void {
  update('trades', (t) =>
    t.detail.id === tradeId
      ? t
      : { ...t, detail: { id: tradeId, status: tradeId ? 'loading' : 'idle', data: null, error: null } },
  );
  if (tradeId) void loadTradeDetail(tradeId);
}

export async function loadTradeDetail(tradeId: string): Promise<void> {
  try {
    const data = await unwrap(api().trades.get({ tradeId }));
    update('trades', (t) => {
      if (t.detail.id !== tradeId) return t;
      const held = data ? withDetailTrade(t, data.trade) : t;
      return { ...held, detail: { id: tradeId, status: data ? 'ready' : 'missing', data, error: null } };
    });
  } catch (error) {
    update('trades', (t) =>
      t.detail.id !== tradeId ? t : { ...t, detail: { ...t.detail, status: 'error', error: errorMessage(error) } },
    );
  }
}

export const scheduleTradeDetailReload = debounced(() => {
  const id = getState().trades.detail.id;
  if (id) void loadTradeDetail(id);
}, 300);

/** Starts the export of every row the filters match (the file is written in the engine). */
export function exportTradesCsv(): Promise<void> {
  const slice = getState().trades;
  return startExport(() => api().trades.exportCsv({ ...toTradeQuery(slice), offset: 0 }));
}

/** Sets Trades on the trades behind a failures board cell (its status and outcome code over exact UTC bounds); the caller navigates. */
export function openTradesFiltered(filters: Pick<TradeFilters, 'statuses' | 'errorCode' | 'utcRange'>): void {
  update('trades', (t) => ({
    ...t,
    tab: 'history',
    filters: { ...EMPTY_TRADE_FILTERS, ...filters },
    offset: 0,
    detail: { id: null, status: 'idle', data: null, error: null },
  }));
  void loadTrades();
}
