/**
 * Every reader the app uses, asked of the store and of the model, compared: totals, catalog pages for the
 * command's queries, and item detail (price history included) and look-up by id. Time: each command is a
 * tick whose wall-clock window [lo, hi] no other command's overlaps, so a stored time names its command.
 */
import { expect } from 'vitest';
import type { BalanceTransaction, Item, Trade } from '../../../src/shared/api';
import type { CatalogInfo, CatalogRow, ItemDetail, LedgerRow, Page, TradeDetail } from '../../../src/shared/ipc';
import type { CatalogQuery, LedgerQuery, TradeQuery } from '../../../src/shared/ipc/contract';
import type {
  CatalogSyncResult,
  ItemChangeGroup,
  ItemChangeGroupResult,
  LedgerInsertResult,
  TradeUpsertResult,
} from '../../../src/main/core/store';
import type { CatalogModel, ModelPoint, ModelQuery } from './model';
import type { ListServer } from './listServer';
import { checkRecords } from './records';
import type { StoreBundles } from './storeProcess';

/** The store methods the commands use: LocalStore in this process, or StoreProcess (a child to kill). */
export interface StoreApi {
  applyItemChanges(groups: ItemChangeGroup[]): Promise<ItemChangeGroupResult[]>;
  syncCatalog(request: {
    url: string;
    headers: Record<string, string>;
    signal?: AbortSignal;
  }): Promise<CatalogSyncResult>;
  queryCatalog(query: CatalogQuery): Promise<Page<CatalogRow>>;
  getItem(itemId: number): Promise<ItemDetail | null>;
  findItemsByIds(itemIds: number[]): Promise<Item[]>;
  catalogInfo(): Promise<CatalogInfo>;
  upsertTrades(trades: Trade[], source: 'poll'): Promise<TradeUpsertResult>;
  insertLedger(entries: BalanceTransaction[]): Promise<LedgerInsertResult>;
  queryTrades(query: TradeQuery): Promise<Page<Trade>>;
  queryLedger(query: LedgerQuery): Promise<Page<LedgerRow>>;
  getTrade(tradeId: string): Promise<TradeDetail | null>;
  close(): Promise<void>;
}

export class Clock {
  readonly windows: { lo: number; hi: number }[] = [];

  /** Starts the next tick once the wall clock has left the last one. */
  async begin(): Promise<number> {
    const last = this.windows[this.windows.length - 1];
    while (last && Date.now() <= last.hi) await new Promise((resolve) => setTimeout(resolve, 1));
    const now = Date.now();
    this.windows.push({ lo: now, hi: Number.POSITIVE_INFINITY });
    return this.windows.length - 1;
  }

  end(tick: number): void {
    (this.windows[tick] as { hi: number }).hi = Date.now();
  }

  /** The windows around a time, for a failure's message. */
  near(iso: string): string {
    const at = Date.parse(iso);
    return this.windows
      .map((window, tick) => ({ tick, ...window }))
      .filter((window) => window.hi >= at - 50 && window.lo <= at + 50)
      .map((window) => `tick ${window.tick}: ${window.lo - at}..${window.hi - at} ms`)
      .join(', ');
  }

  /** The tick whose window holds this time, or -1. */
  tickOf(iso: string): number {
    const at = Date.parse(iso);
    let low = 0;
    let high = this.windows.length - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      const window = this.windows[mid] as { lo: number; hi: number };
      if (at < window.lo) high = mid - 1;
      else if (at > window.hi) low = mid + 1;
      else return mid;
    }
    return -1;
  }
}

export interface SizeProfile {
  /** Item ids 1..ids. */
  ids: number;
  /** Most items a live write or a sync's changes touch. */
  batch: number;
  /** Largest page a query asks for. */
  pageLimit: number;
  /** Items whose detail is checked after each command besides the ones it touched (all when >= ids). */
  detailSample: number;
}

export interface Real {
  store: StoreApi;
  file: string;
  bundles: StoreBundles;
  server: ListServer;
  clock: Clock;
  size: SizeProfile;
  /** What ran: counts by command and outcome, for the test's log. */
  stats: Map<string, number>;
  /** Wall time of each command, checks included (ms). */
  commandMs: number[];
}

export function count(real: Real, what: string): void {
  real.stats.set(what, (real.stats.get(what) ?? 0) + 1);
}

/** A stored history as the ticks it names, one point per tick (the last), in stored order. */
function historyTicks(real: Real, points: { at: string; price: number }[], label: string): ModelPoint[] {
  const ticks: ModelPoint[] = [];
  for (let i = 0; i < points.length; i++) {
    const point = points[i] as { at: string; price: number };
    if (i > 0)
      expect(Date.parse(point.at), `${label}: history sorted by time`).toBeGreaterThanOrEqual(
        Date.parse((points[i - 1] as { at: string }).at),
      );
    const tick = real.clock.tickOf(point.at);
    expect(
      tick,
      `${label}: point ${point.at} is in no command's window (${real.clock.near(point.at)})`,
    ).toBeGreaterThanOrEqual(0);
    const last = ticks[ticks.length - 1];
    if (last && last.tick === tick) last.price = point.price;
    else ticks.push({ tick, price: point.price });
  }
  return ticks;
}

export async function checkDetails(real: Real, model: CatalogModel, itemIds: number[]): Promise<void> {
  const ids = [...new Set(itemIds)];
  const details = await Promise.all(ids.map((itemId) => real.store.getItem(itemId)));
  ids.forEach((itemId, i) => {
    const detail = details[i] ?? null;
    const expected = model.detail(itemId);
    const label = `item ${itemId}`;
    if (expected === null) {
      expect(detail, `${label}: never held, no detail`).toBeNull();
      return;
    }
    expect(detail, `${label}: detail`).not.toBeNull();
    expect(detail?.onSale, `${label}: on sale`).toBe(expected.onSale);
    expect(detail?.item, `${label}: item`).toEqual(expected.item);
    expect(historyTicks(real, detail?.priceHistory ?? [], label), `${label}: price history (tick, price)`).toEqual(
      expected.history,
    );
    expect(detail?.market ?? null, `${label}: market, its last 24 h and 7 days`).toEqual(expected.market);
  });
  const found = await real.store.findItemsByIds(ids);
  expect(found, 'findItemsByIds').toEqual(model.lookUp(ids));
}

/** Pages ending past this many rows are deep: cut from the whole sorted match list (catalogQuery's HEAP_MAX). */
export const DEEP_PAGE_ROWS = 2000;

/** A page of the catalog; its total. */
export async function checkPage(real: Real, model: CatalogModel, query: ModelQuery): Promise<number> {
  const page = await real.store.queryCatalog(query);
  const expected = model.page(query);
  const label = `query ${JSON.stringify(query)}`;
  expect(
    page.rows.map((row) => row.itemId),
    `${label}: rows`,
  ).toEqual(expected.rows.map((row) => row.itemId));
  expect(page.total, `${label}: total`).toBe(expected.total);
  page.rows.forEach((row, i) => {
    const { listedTick, ...fields } = expected.rows[i] as (typeof expected.rows)[number];
    const { listedAt, ...shown } = row;
    expect(shown, `${label}: row ${row.itemId}`).toEqual(fields);
    expect(real.clock.tickOf(listedAt), `${label}: row ${row.itemId} listed at ${listedAt}`).toBe(listedTick);
  });
  return expected.total;
}

export async function checkTotals(
  real: Real,
  model: CatalogModel,
  totals?: { totalItems: number; totalValue: number },
): Promise<void> {
  const expected = model.totals;
  if (totals) expect(totals, "the write's totals").toEqual(expected);
  const info = await real.store.catalogInfo();
  expect({ totalItems: info.totalItems, totalValue: info.totalValue }, 'catalogInfo totals').toEqual(expected);
  expect(info.lastUpdate, 'catalogInfo lastUpdate').toBe(model.lastUpdate);
}

/** Every trade and ledger entry held, in order: kept through every write, reopen and kill. */
const ALL_RECORDS = {
  idPrefix: '',
  externalPrefix: '',
  statuses: [],
  activeOnly: false,
  webhookFailed: false,
  types: [],
  fromHour: null,
  toHour: null,
  offset: 0,
  limit: 1000,
};

/** Everything after a command: totals, its queries, the detail of the items it touched plus a sample, trades and ledger. */
export async function checkAll(
  real: Real,
  model: CatalogModel,
  queries: ModelQuery[],
  touched: number[],
  sampleSeed: number,
): Promise<void> {
  await checkTotals(real, model);
  for (const query of queries) {
    const total = await checkPage(real, model, query);
    if (query.offset + query.limit <= DEEP_PAGE_ROWS || total <= DEEP_PAGE_ROWS) continue;
    // A deep page, then the next one: the sorted match list is kept between them.
    count(real, 'deep pages');
    await checkPage(real, model, { ...query, offset: query.offset + query.limit });
  }
  const { ids, detailSample } = real.size;
  const sample =
    detailSample >= ids
      ? Array.from({ length: ids }, (_, i) => i + 1)
      : Array.from({ length: detailSample }, (_, i) => 1 + ((sampleSeed + i * 7919) % ids));
  await checkDetails(real, model, [...touched, ...sample]);
  await checkRecords(real.store, model.records, ALL_RECORDS, sampleSeed);
}
