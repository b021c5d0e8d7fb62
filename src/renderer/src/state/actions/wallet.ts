import { debounced } from '../../lib/debounce';
import { api, errorMessage, unwrap } from '../../lib/ipc';
import {
  type LedgerFilters,
  ledgerQueryKey,
  receiveLedgerPage,
  seriesQuery,
  TOP_UP_DAYS,
  TOP_UP_ROWS,
  TOP_UP_TYPES,
  toLedgerQuery,
} from '../slices/wallet';
import { readWithBatches } from '../batchesSince';
import { getState, update } from '../store';
import { startExport } from './exports';

export async function loadLedger(): Promise<void> {
  const slice = getState().wallet;
  const key = ledgerQueryKey(slice);
  update('wallet', (w) => ({ ...w, list: { ...w.list, status: 'loading', error: null } }));
  try {
    const page = await unwrap(api().wallet.ledger(toLedgerQuery(slice)));
    update('wallet', (w) => receiveLedgerPage(w, key, page));
  } catch (error) {
    update('wallet', (w) =>
      ledgerQueryKey(w) !== key ? w : { ...w, list: { ...w.list, status: 'error', error: errorMessage(error) } },
    );
  }
}

export async function loadSeries(): Promise<void> {
  const query = seriesQuery(getState().wallet);
  const key = JSON.stringify(query);
  update('wallet', (w) => ({ ...w, series: { ...w.series, status: 'loading', error: null, key } }));
  try {
    const points = await unwrap(api().wallet.balanceSeries(query));
    update('wallet', (w) =>
      w.series.key !== key ? w : { ...w, series: { points, status: 'ready', error: null, key } },
    );
  } catch (error) {
    update('wallet', (w) =>
      w.series.key !== key ? w : { ...w, series: { ...w.series, status: 'error', error: errorMessage(error) } },
    );
  }
}

/** The runway now and the recent top-ups beside it (the runway then follows the engine's events). */
export async function loadRunway(): Promise<void> {
  const from = new Date(Date.now() - TOP_UP_DAYS * 86_400_000).toISOString();
  try {
    const [{ answer: runway, since }, topUps] = await Promise.all([
      readWithBatches(() => unwrap(api().operations.runway({}))),
      unwrap(api().wallet.ledger({ types: [...TOP_UP_TYPES], from, limit: TOP_UP_ROWS })),
    ]);
    // A runway that came in a batch while this one was read may be newer: it stays.
    const pushed = since.some((batch) => batch.runway !== undefined);
    update('wallet', (w) => ({ ...w, runway: pushed ? w.runway : (runway ?? w.runway), topUps: topUps.rows }));
  } catch {
    // The panel keeps what it showed; the ledger's own load reports a failing engine.
  }
}

export function loadWallet(): void {
  void loadLedger();
  void loadSeries();
  void loadRunway();
}

export const scheduleWalletReload = debounced(loadWallet, 400);

export function setLedgerFilters(patch: Partial<LedgerFilters>): void {
  update('wallet', (w) => ({ ...w, filters: { ...w.filters, ...patch }, offset: 0 }));
  scheduleWalletReload();
}

export function setLedgerPage(offset: number, limit?: number): void {
  update('wallet', (w) => ({ ...w, offset: Math.max(0, offset), limit: limit ?? w.limit }));
  void loadLedger();
}

/** Starts the export of every row the filters match (the file is written in the engine). */
export function exportLedgerCsv(): Promise<void> {
  const slice = getState().wallet;
  return startExport(() => api().wallet.exportCsv({ ...toLedgerQuery(slice), offset: 0 }));
}
