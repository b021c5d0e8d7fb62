import { CATALOG_REBUILD_INTERVAL_MS, TRADE_ERROR_CODES } from '../../shared/api';
import type { TimerHandle } from '../clock';
import { SandboxClock } from '../clock';
import { generateCatalog } from '../catalog/generator';
import type { SqliteDatabase } from '../db/database';
import { MetaStore, openSandboxDatabase } from '../db/database';
import { Buying } from './buying';
import { Catalog } from './catalog';
import { SandboxEvents } from './events';
import { Ledger } from './ledger';
import { Merchants } from './merchants';
import type { TradeRow } from './trades';
import { Trades } from './trades';

/** failReason of a PENDING trade whose item was sold elsewhere before its offer went out. */
export const ITEMS_GONE_BEFORE_SEND = 'Items no longer valid: the item was sold elsewhere before the offer was sent';

export interface CoreOptions {
  dbFile: string;
  seed: number;
  items: number;
  imageBaseUrl: string;
  /** Seed later with `seedIfEmpty`, once the public URL (for item images) is known. */
  deferSeeding?: boolean;
  onTimerError?: (label: string, error: unknown) => void;
}

const CLOCK_OFFSET_KEY = 'clock_offset_ms';
const MAINTENANCE_KEY = 'maintenance';
const IMAGE_BASE_KEY = 'image_base_url';

/** The sandbox's state and rules, without HTTP: what routes, the feed, webhooks and the simulator share. */
export class SandboxCore {
  readonly db: SqliteDatabase;
  readonly meta: MetaStore;
  readonly clock: SandboxClock;
  readonly events = new SandboxEvents();
  readonly ledger: Ledger;
  readonly merchants: Merchants;
  readonly catalog: Catalog;
  readonly trades: Trades;
  readonly buying: Buying;
  /** Merchants whose history is being seeded (src/server/seeding): their API answers 503 meanwhile. */
  readonly seedingHistory = new Set<string>();
  private imageBaseUrl: string;
  private rebuildTimer: TimerHandle | null = null;

  constructor(readonly options: CoreOptions) {
    this.db = openSandboxDatabase(options.dbFile);
    this.meta = new MetaStore(this.db);
    this.clock = new SandboxClock(
      Number(this.meta.get(CLOCK_OFFSET_KEY) ?? 0),
      (offset) => this.meta.set(CLOCK_OFFSET_KEY, offset),
      options.onTimerError,
    );
    // Many listeners (one per feed connection) are expected.
    this.events.setMaxListeners(0);
    this.ledger = new Ledger(this.db, this.clock);
    this.merchants = new Merchants(this.db, this.clock, this.ledger);
    this.catalog = new Catalog(this.db, options.dbFile, this.meta, this.clock, this.events);
    this.trades = new Trades(this.db, this.clock, this.ledger, this.catalog, this.events);
    this.buying = new Buying(this.db, this.catalog, this.merchants, this.trades);
    this.imageBaseUrl = options.imageBaseUrl;
    if (!options.deferSeeding) this.seedIfEmpty(options.imageBaseUrl);
    this.trades.restoreTimers();
    // The on-sale list is rebuilt every 5 minutes of clock time; a manual rebuild restarts the interval.
    this.events.on('catalogRebuilt', () => this.scheduleRebuild());
    this.scheduleRebuild();
  }

  private scheduleRebuild(): void {
    this.rebuildTimer?.cancel();
    const due = Math.max(Date.parse(this.catalog.lastUpdate) + CATALOG_REBUILD_INTERVAL_MS, this.clock.now());
    this.rebuildTimer = this.clock.schedule(due, 'catalog rebuild', () => {
      this.catalog.rebuild();
    });
  }

  /**
   * The seller sold an item elsewhere (admin DELETE /admin/items/:id, or the simulator). On sale, it
   * simply leaves sale (item_removed). Held by a trade in flight, that trade ends, as the outcome
   * table says ("Items no longer valid"): a SENT offer becomes CANCELLED 505; a PENDING one, whose
   * offer was never sent, becomes FAILED 500 with the same reason. Either way the merchant is refunded
   * (BUY CANCELLED) and the item does not come back on sale. Null when the item is neither.
   */
  sellElsewhere(itemId: number): { removedFromSale: boolean; trade: TradeRow | null } | null {
    if (this.catalog.remove([itemId]).length > 0) return { removedFromSale: true, trade: null };
    const trade = this.trades.activeForItem(itemId);
    if (!trade) return null;
    const request =
      trade.status === 'SENT'
        ? { status: 'CANCELLED' as const, errorCode: TRADE_ERROR_CODES.itemsInvalid }
        : { status: 'FAILED' as const, errorCode: TRADE_ERROR_CODES.failed, failReason: ITEMS_GONE_BEFORE_SEND };
    return { removedFromSale: false, trade: this.trades.transition(trade.trade_id, request, { itemGone: true }) };
  }

  get maintenance(): boolean {
    return this.meta.get(MAINTENANCE_KEY) === '1';
  }

  set maintenance(on: boolean) {
    this.meta.set(MAINTENANCE_KEY, on ? '1' : '0');
  }

  /** Back to the seeded state: no merchants, trades or ledger; the generated catalog. Time keeps its offset. */
  reset(): void {
    this.trades.stopTimers();
    this.db.exec(`
      DELETE FROM webhook_deliveries; DELETE FROM partner_strikes; DELETE FROM partner_blocks;
      DELETE FROM ledger; DELETE FROM trades; DELETE FROM merchants; DELETE FROM items;
      DELETE FROM sqlite_sequence WHERE name IN ('ledger', 'trades', 'webhook_deliveries');
    `);
    this.catalog.invalidateAll();
    this.trades.history.clear();
    this.ledger.rewritten();
    this.maintenance = false;
    this.seedCatalog();
    // The seeded list has a new lastUpdate: the next rebuild is 5 minutes after it, not after the old one.
    this.scheduleRebuild();
  }

  close(): void {
    this.rebuildTimer?.cancel();
    this.trades.stopTimers();
    this.clock.stop();
    this.db.close();
  }

  /** Generates the catalog from the seed on first start (or after a reset). */
  seedIfEmpty(imageBaseUrl: string): void {
    this.imageBaseUrl = imageBaseUrl;
    const previous = this.meta.get(IMAGE_BASE_KEY);
    if (this.catalog.isEmpty()) this.seedCatalog();
    else if (previous && previous !== imageBaseUrl) {
      // Item images are served by the sandbox itself: follow it to its new port.
      this.db.prepare('UPDATE items SET json = replace(json, ?, ?)').run(`"${previous}/`, `"${imageBaseUrl}/`);
      this.catalog.invalidateAll();
    }
    this.meta.set(IMAGE_BASE_KEY, imageBaseUrl);
  }

  private seedCatalog(): void {
    this.catalog.load(
      generateCatalog({ seed: this.options.seed, count: this.options.items, imageBaseUrl: this.imageBaseUrl }),
    );
  }
}
