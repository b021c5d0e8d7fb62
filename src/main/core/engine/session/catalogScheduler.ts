import { CATALOG_REBUILD_INTERVAL_MS } from '../../../../shared/api';
import type { CatalogInfo } from '../../../../shared/ipc';
import type { CatalogTotals } from '../../store/types';
import { Throttler } from '../../async';
import type { SessionContext } from './sessionContext';

/** How often catalog freshness is checked against lastUpdate + 5 min. */
const FRESHNESS_CHECK_MS = 30_000;
/** Grace after the server's next expected rebuild before we fetch. */
const FRESHNESS_GRACE_MS = 20_000;
/** A stale cached catalog is refreshed this long after the session started (see syncIfStale). */
const START_SYNC_DELAY_MS = 3000;
/** Two catalog syncs never start closer than this (the limit is 10 a minute). */
const MIN_CATALOG_SYNC_GAP_MS = 10_000;
/**
 * The base URL the cached catalog was last synced from: its picture URLs point there. A cache synced from
 * another address (the demo restarted on another port, the account moved) is synced again at once.
 */
const CATALOG_BASE_URL_META = 'catalog_base_url';

/**
 * The cached catalog's summary and its freshness: a sync once the server's list is due to have been rebuilt (about
 * every 5 minutes), on demand, never two at once and never closer than the minimum gap.
 */
export class CatalogScheduler {
  catalog: CatalogInfo = { totalItems: 0, totalValue: 0, lastUpdate: null, syncedAt: null };
  private readonly syncs = new Throttler();
  private fromElsewhere = false;
  private startedAt = 0;
  private startSyncScheduled = false;
  private lastSyncAt = Number.NEGATIVE_INFINITY;
  /** Live writes' totals taken: one taken while the summary is read after a sync is newer than that read. */
  private totalsTaken = 0;
  /** Settles when the session's first catalog sync ends (or the session stops). */
  private firstSyncEnded!: () => void;
  readonly firstSync = new Promise<void>((resolve) => (this.firstSyncEnded = resolve));

  constructor(
    private readonly ctx: SessionContext,
    private readonly onSynced: () => void,
  ) {}

  get busy(): boolean {
    return this.syncs.busy;
  }

  /** What the cache holds, before anything goes over the network. */
  async load(): Promise<void> {
    this.startedAt = this.ctx.timers.clock.now();
    this.catalog = await this.ctx.store.catalogInfo();
    this.fromElsewhere =
      this.catalog.totalItems > 0 && (await this.ctx.store.getMeta(CATALOG_BASE_URL_META)) !== this.ctx.account.baseUrl;
  }

  /** Checks freshness now and every FRESHNESS_CHECK_MS. */
  startSchedule(): void {
    this.ctx.timers.every(FRESHNESS_CHECK_MS, () => void this.syncIfStale());
    void this.syncIfStale();
  }

  stop(): Promise<void> {
    this.firstSyncEnded();
    return this.syncs.busy ? this.syncs.join(() => Promise.resolve()) : Promise.resolve();
  }

  /** Live writes moved the catalog's count or value: the summary follows. */
  applyTotals(totals: CatalogTotals): void {
    this.totalsTaken++;
    if (totals.totalItems === this.catalog.totalItems && totals.totalValue === this.catalog.totalValue) return;
    this.catalog = { ...this.catalog, ...totals };
    this.ctx.events.push({ catalog: this.catalog });
  }

  due(): boolean {
    const built = this.catalog.lastUpdate ? Date.parse(this.catalog.lastUpdate) : 0;
    return (
      this.fromElsewhere || this.ctx.timers.clock.now() >= built + CATALOG_REBUILD_INTERVAL_MS + FRESHNESS_GRACE_MS
    );
  }

  /** The start-up's catch-up waits for a sync under way or due. */
  async settled(): Promise<void> {
    if (this.syncs.busy || this.due()) await this.firstSync;
  }

  /** The server rebuilds its list about every 5 minutes; fetch once ours is older than that. */
  async syncIfStale(): Promise<void> {
    if (this.syncs.busy || !this.due()) return;
    // A cache that holds a catalog is shown first: its refresh waits until the start-up's first screens are up
    // (on 2 cores a 500k-item sync would otherwise slow the first paint by half a second). An empty cache syncs at once.
    const wait = this.catalog.totalItems > 0 ? this.startedAt + START_SYNC_DELAY_MS - this.ctx.timers.clock.now() : 0;
    if (wait > 0) {
      if (!this.startSyncScheduled) {
        this.startSyncScheduled = true;
        this.ctx.timers.later(wait, () => void this.syncIfStale());
      }
      return;
    }
    await this.sync('stale');
  }

  /** Single flight: a request while a sync runs becomes one more sync after it, however many arrive. */
  sync(reason: string): Promise<void> {
    if (!this.ctx.api) return Promise.resolve();
    return this.syncs.queue(async () => {
      const wait = this.lastSyncAt + MIN_CATALOG_SYNC_GAP_MS - this.ctx.timers.clock.now();
      if (wait > 0) await this.ctx.timers.sleep(wait);
      if (!this.ctx.isStopped()) await this.runSync(reason);
    });
  }

  private async runSync(reason: string): Promise<void> {
    const { api, store, progress, signal, hooks } = this.ctx;
    if (!api) return;
    progress.set('catalog-sync', { done: 0, total: null, phase: 'waiting for the rate limit' });
    try {
      const request = await api.client.prepareCatalogRequest(signal);
      this.lastSyncAt = this.ctx.timers.clock.now();
      progress.set('catalog-sync', { done: 0, total: null, phase: 'receiving' });
      const result = await store.syncCatalog({ ...request, signal }, (step) => {
        progress.set('catalog-sync', {
          done: step.phase === 'receiving' ? step.received : step.applied,
          total: step.total,
          phase: step.phase,
        });
      });
      // Settles the download's rate slot (timed from this answer); a refusal also sets the backoff.
      api.client.reportCatalogResponse(result.ok ? 200 : result.status, result.ok ? {} : result.headers);
      if (!result.ok) throw api.client.catalogError(result.status, result.headers, result.bodyText);
      const taken = this.totalsTaken;
      const info = await store.catalogInfo();
      const { totalItems, totalValue } = taken === this.totalsTaken ? info : this.catalog;
      this.catalog = { ...info, totalItems, totalValue };
      await store.setMeta(CATALOG_BASE_URL_META, this.ctx.account.baseUrl);
      this.fromElsewhere = false;
      hooks.log(
        `catalog sync (${reason}): +${result.added} ~${result.updated} -${result.removed} = ${result.total} items in ${result.ms} ms`,
      );
      if (result.skipped > 0) {
        const items = result.skipped === 1 ? '1 item' : `${result.skipped} items`;
        hooks.log(
          `catalog sync (${reason}): ${items} left out, not in the API's item shape (the first: ${result.firstSkipReason ?? 'no reason given'})`,
        );
      }
      this.ctx.events.push({
        catalog: this.catalog,
        items: { upserted: [], removed: [], prices: [], invalidated: true },
      });
      this.onSynced();
    } catch (error) {
      this.ctx.report(`catalog sync (${reason})`, error);
    } finally {
      progress.clear('catalog-sync');
      this.firstSyncEnded();
    }
  }
}
