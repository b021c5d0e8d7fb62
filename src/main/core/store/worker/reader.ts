/** The reader thread's service: catalog pages from its snapshot (../../catalog/snapshot.ts, catalogQuery.ts), records from recordsReader.ts. */
import type { Item, Trade } from '../../../../shared/api';
import type { CatalogInfo, CatalogRow, ItemDetail, NameMarket, Page, PricePoint } from '../../../../shared/ipc';
import {
  catalogFiltersSchema,
  catalogQuerySchema,
  type CatalogFiltersInput,
  type CatalogQuery as CatalogQueryInput,
} from '../../../../shared/ipc/contract';
import { toUtcIso } from '../../../../shared/time';
import { CATALOG_META } from '../schema';
import { CatalogQuery } from '../../catalog/catalogQuery';
import { catalogRowOf, itemOf } from '../../catalog/itemRows';
import { openConnection } from './open';
import { RecordsReader } from './recordsReader';
import { ledgerSpend, type SpendTotals } from './ledgerSpend';
import {
  type ChainRefusal,
  lookupTrades,
  type LookupKeys,
  type LookupRows,
  orderChainRefusals,
  orderChainTrades,
} from './orderLookup';
import { medianOf } from '../../catalog/markets';
import { CatalogSnapshot } from '../../catalog/snapshot';
import { failureRows, refusalList, type BuyRefusalRow, type FailureRows } from './failuresQuery';
import { exposureRows, type ExposureRows } from './exposureQuery';
import {
  partnerBlocks,
  recipientRows,
  type PartnerBlock,
  type RecipientRowsQuery,
  type RecipientTotalsRow,
} from './recipientsQuery';
import {
  lastDeliveredCreatedAtOf,
  newestFailed,
  replayCandidates,
  webhookHealthRows,
  type WebhookHealthRows,
} from './webhookHealthQuery';
import { ledgerExportChunk, tradeExportChunk } from './exportChunks';
import type { ExportChunk, ExportKey } from '../types';
import type { LedgerQuery, TradeQuery } from '../../../../shared/ipc/contract';

const DAY_MS = 24 * 3600_000;
/** Between queries the snapshot follows the writer this often (in steps), so a query rarely waits for a refresh. */
const REFRESH_EVERY_MS = 200;

/** An item's stored row: what a catalog row or an item is built from. */
type StoredRow = { listedAt: number; lastMove: number; price: number; json: string; removedAt: number | null };

/** The reads that use the catalog snapshot: while it is refreshed in steps, they wait for its end (storeWorker). */
export const SNAPSHOT_READS: ReadonlySet<string> = new Set<keyof ReaderService>([
  'queryCatalog',
  'getItem',
  'nameMarkets',
  'matchingItemIds',
  'catalogInfo',
]);

export class ReaderService extends RecordsReader {
  private readonly snapshot: CatalogSnapshot;
  private readonly query: CatalogQuery;
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  /** A refresh of the snapshot runs in steps; the catalog reads waiting for its end. */
  private stepping = false;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly file: string) {
    const { db } = openConnection(file, true);
    super(db);
    this.snapshot = new CatalogSnapshot(db);
    this.query = new CatalogQuery(this.snapshot);
    const refresh = () => void this.snapshotCaughtUp();
    // At once, after the thread said it is ready: the first screen asks for a page while the app starts.
    setImmediate(() => {
      if (this.closed) return;
      this.snapshot.load(this.snapshotFile);
      refresh();
    });
    this.timer = setInterval(refresh, REFRESH_EVERY_MS);
    this.timer.unref();
  }

  /**
   * Brings the snapshot one step (SCAN_CHUNK rows) nearer the file; true when it is there. Else the rest goes in
   * steps with the thread's messages between them, and the catalog reads that came meanwhile wait for the last step
   * (`whenCaughtUp`): a first sync's 20,000 items patched in one go held every read of the thread 300–800 ms.
   */
  snapshotCaughtUp(): boolean {
    if (!this.stepping) this.step();
    return !this.stepping;
  }

  /** Runs `read` once the refresh in steps has ended (at once when none runs). */
  whenCaughtUp(read: () => void): void {
    if (this.stepping) this.waiting.push(read);
    else read();
  }

  private step(): void {
    try {
      this.stepping = !this.closed && !this.snapshot.refreshStep();
    } catch {
      // Busy or closing: the reads waiting refresh themselves (and report a lasting fault).
      this.stepping = false;
    }
    if (this.stepping) {
      setImmediate(() => this.step());
      return;
    }
    for (const read of this.waiting.splice(0)) read();
  }

  /** Where the snapshot is saved between runs (a cache: deleting it only costs the next start a full read). */
  private get snapshotFile(): string {
    return `${this.file}.snapshot`;
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    // The catalog reads waiting for a refresh in steps are answered before the thread says it closed.
    this.stepping = false;
    for (const read of this.waiting.splice(0)) read();
    try {
      this.snapshot.refresh();
      this.snapshot.save(this.snapshotFile);
    } catch {
      // Best effort: the next start reads every row instead.
    }
    this.db.close();
  }

  /** Cents bought and refunded since each start (the balance runway's spend rate); `dayFrom` ≤ `hourFrom`. */
  ledgerSpend(hourFrom: string, dayFrom: string): Record<'lastHour' | 'lastDay', SpendTotals> {
    return ledgerSpend(this.prepare, hourFrom, dayFrom);
  }

  /** The trades of an order's chain (the order id and its `#n` attempts), oldest first. */
  orderChainTrades(root: string): Trade[] {
    return orderChainTrades(this.prepare, root);
  }

  /** The refused buys by name of an order's chain, the latest of each order id. */
  orderChainRefusals(root: string): ChainRefusal[] {
    return orderChainRefusals(this.prepare, root);
  }

  /** The newest `limit` trades matching any asked key (order look-up). */
  lookupTrades(keys: LookupKeys, limit: number): LookupRows {
    return this.readOnce(() => lookupTrades(this.prepare, keys, limit));
  }

  /** A page of the catalog; the snapshot and the rows read in one read transaction (one committed state). */
  queryCatalog(query: CatalogQueryInput = {}): Page<CatalogRow> {
    const q = catalogQuerySchema.parse(query);
    return this.fresh(() => {
      const { slots, total } = this.query.run(q);
      const ids = Array.from(slots, (slot) => this.snapshot.itemId[slot] as number);
      const rows = this.rowsOf(ids);
      const shown = Array.from(slots, (slot, i) => {
        const row = rows.get(ids[i] as number) as StoredRow;
        const market = this.snapshot.markets.standing(slot);
        if (q.seeds.length > 0) market.seedRank = this.snapshot.markets.seedRank(slot, this.snapshot);
        return catalogRowOf(itemOf(row.json, row.price), row.listedAt, row.lastMove, market);
      });
      return { rows: shown, total, offset: q.offset, limit: q.limit };
    });
  }

  /**
   * An item on sale or off sale (kept a week), with its price history: on sale, from its listing on (the
   * moves of an earlier listing are not its price now); off sale, its moves of every listing. One point
   * an instant: the last price at it.
   */
  getItem(itemId: number): ItemDetail | null {
    return this.readOnce((): ItemDetail | null => {
      const row = this.rowsOf([itemId]).get(itemId);
      if (!row) return null;
      const onSale = row.removedAt === null;
      // One point an instant, the last written at it (SQLite takes a bare column from the row of max()).
      const points = this.prepare<[number, number, number], [at: number, price: number, rowid: number]>(
        'SELECT at, price, max(rowid) FROM price_history WHERE itemId = ? AND CASE WHEN ? THEN at >= ? ELSE listing = 0 END GROUP BY at ORDER BY at',
      )
        .raw()
        .all(itemId, onSale ? 1 : 0, row.listedAt);
      const priceHistory: PricePoint[] = points.map(([at, price]) => ({ at: toUtcIso(at), price }));
      return { item: itemOf(row.json, row.price), priceHistory, onSale, market: onSale ? this.marketOf(itemId) : null };
    });
  }

  /**
   * An item's market standing with what lies behind it: of its name's listings, how many left sale in the
   * last 24 h, and the median of the prices they were seen at (listed or moved to) in the last 7 days.
   */
  private marketOf(itemId: number): ItemDetail['market'] {
    this.snapshot.refresh();
    const slot = this.snapshot.slotOf(itemId);
    if (slot < 0) return null;
    const now = Date.now();
    const group = this.snapshot.markets.groupSlots(slot);
    const leftSale24h = group.filter((member) => (this.snapshot.removedAt[member] as number) >= now - DAY_MS).length;
    const observed = this.prepare<[string, number], number>(
      'SELECT price FROM price_history WHERE itemId IN (SELECT value FROM json_each(?)) AND at >= ? ORDER BY price',
    )
      .pluck()
      .all(JSON.stringify(group.map((member) => this.snapshot.itemId[member])), now - 7 * DAY_MS) as number[];
    const seedRank = this.snapshot.markets.seedRank(slot, this.snapshot);
    return {
      ...this.snapshot.markets.standing(slot),
      seedRank,
      leftSale24h,
      median7d: medianOf(observed),
      observed7d: observed.length,
    };
  }

  /** The markets of these items' names (by name and phase) now, once a name: what a live change of them moved. */
  nameMarkets(itemIds: number[]): NameMarket[] {
    return this.fresh(() => {
      const s = this.snapshot;
      const slots = new Map(
        itemIds
          .map((itemId) => s.slotOf(itemId))
          .filter((slot) => slot >= 0)
          .map((slot) => [s.markets.group[slot], slot]),
      );
      return [...slots.values()].map((slot) => {
        const member = s.markets.groupSlots(slot).find((other) => s.onSale[other] === 1);
        const { reference, listings, plainListings } =
          member === undefined ? { reference: null, listings: 0, plainListings: 0 } : s.markets.standing(member);
        return {
          name: s.written[s.nameId[slot] as number] as string,
          phase: s.phases[s.phase[slot] as number] ?? null,
          reference,
          listings,
          plainListings,
        };
      });
    });
  }

  /** Which of these items on sale the filters match now (the catalog's own narrowings, market standing included). */
  matchingItemIds(filters: CatalogFiltersInput, itemIds: number[]): number[] {
    const parsed = catalogFiltersSchema.parse(filters);
    return this.fresh(() => this.query.matchingIds(parsed, itemIds));
  }

  /** Items on sale, and those off sale still kept (the items of our active trades), in id order. */
  findItemsByIds(itemIds: number[]): Item[] {
    const rows = this.rowsOf(itemIds);
    return [...rows].sort(([a], [b]) => a - b).map(([, row]) => itemOf(row.json, row.price));
  }

  /** The stored rows of these items, on sale or not, by id. */
  private rowsOf(itemIds: readonly number[]): Map<number, StoredRow> {
    const rows = this.prepare<[string], StoredRow & { itemId: number }>(
      'SELECT i.itemId, i.listed_at AS listedAt, i.last_move AS lastMove, i.price, j.json, i.removed_at AS removedAt FROM items i JOIN item_json j ON j.itemId = i.itemId WHERE i.itemId IN (SELECT value FROM json_each(?))',
    ).all(JSON.stringify(itemIds));
    return new Map(rows.map((row) => [row.itemId, row]));
  }

  /** Operations → Failures (failuresQuery.ts). */
  failureRows(range: { fromDay: string; toDay: string; hoursDay: string }): FailureRows {
    return this.readOnce(() => failureRows(this.prepare, range));
  }

  buyRefusals(query: { from: string; to: string; code: string | null; limit: number }): BuyRefusalRow[] {
    return refusalList(this.prepare, query);
  }

  /** Operations → Webhook health (webhookHealthQuery.ts). */
  webhookHealthRows(options: { hoursFrom: string; daysFrom: string; listLimit: number }): WebhookHealthRows {
    return this.readOnce(() => webhookHealthRows(this.prepare, options));
  }

  /** Operations → Recipients (recipientsQuery.ts). */
  recipientRows(query: RecipientRowsQuery): { total: number; rows: RecipientTotalsRow[] } {
    return this.readOnce(() => recipientRows(this.prepare, query));
  }

  /** Operations → Reversals (exposureQuery.ts). */
  exposureRows(options: {
    now: string;
    reversedOffset: number;
    reversedLimit: number;
    reversersLimit: number;
  }): ExposureRows {
    return this.readOnce(() => exposureRows(this.prepare, options));
  }

  partnerBlocks(now: string): PartnerBlock[] {
    return partnerBlocks(this.prepare, now);
  }

  webhookLastDeliveredCreatedAt(): string | null {
    return lastDeliveredCreatedAtOf(this.prepare);
  }

  webhookNewestFailed(limit: number): { tradeId: string; createdAt: string }[] {
    return newestFailed(this.prepare, limit);
  }

  webhookReplayCandidates(
    choice: { from: string; to: string; limit: number } | { tradeIds: readonly string[] },
  ): ReturnType<typeof replayCandidates> {
    return replayCandidates(this.prepare, choice);
  }

  catalogInfo(): CatalogInfo {
    return this.fresh(() => ({
      totalItems: this.snapshot.onSaleCount,
      totalValue: this.snapshot.onSaleValue,
      lastUpdate: (this.getMeta(CATALOG_META.lastUpdate) as string | null) ?? null,
      syncedAt: (this.getMeta(CATALOG_META.syncedAt) as string | null) ?? null,
    }));
  }

  /** A CSV export's next chunk of trades after `after` (exportChunks.ts). */
  exportTradesChunk(query: TradeQuery, after: ExportKey | null, limit: number): ExportChunk {
    return tradeExportChunk(this.prepare, query, after, limit);
  }

  /** A CSV export's next chunk of ledger entries after `after`. */
  exportLedgerChunk(query: LedgerQuery, after: ExportKey | null, limit: number): ExportChunk {
    return ledgerExportChunk(this.prepare, query, after, limit);
  }

  /** `read` in one read transaction with the snapshot brought up to it (one committed state). */
  private fresh<T>(read: () => T): T {
    return this.readOnce(() => {
      this.snapshot.refresh();
      return read();
    });
  }
}
