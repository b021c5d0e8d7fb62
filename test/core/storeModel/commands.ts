/**
 * The commands of the store model test (fast-check model-based testing): each one runs on the store and
 * on the model, checks the write's own answer, then every reader (compare.ts). Items are named by numbers
 * (id, variant, seed, price) and made against the model's state when the command runs, so a re-listing or
 * a price-only copy is what it says whatever ran before.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { Item, TradeStatus, TransactionType } from '../../../src/shared/api';
import { TRADE_STATUSES_ACCEPTED, TRANSACTION_TYPES } from '../../../src/shared/api';
import { packPriceChanges } from '../../../src/main/core/catalog';
import { LocalStore, type ItemChangeGroup } from '../../../src/main/core/store';
import { checkAll, count, DEEP_PAGE_ROWS, type Real } from './compare';
import {
  CHARM_TERMS,
  EXCLUDE_TERMS,
  QUERY_PHASES,
  QUERY_RARITIES,
  SEARCH_TERMS,
  STICKER_TERMS,
  makeItem,
} from './items';
import { WEARS, type Wear } from '../../../src/shared/filters';
import { CATALOG_SORT_COLUMNS, catalogFiltersSchema } from '../../../src/shared/ipc/contract';
import type { CatalogModel, ModelQuery, SortColumn } from './model';
import { checkRecords, ledgerEntryOf, tradeOf, type RecordsQuery } from './records';
import { seededRandom } from '../../support/random';
import { StoreProcess } from './storeProcess';
import { applyItemRemovals, applyItemUpserts, applyPriceChanges } from '../../support/liveChanges';

export type Command = fc.AsyncCommand<CatalogModel, Real, false>;

/** An item named by numbers: `same` = the id's last version as it was, `price` = it at a new price, `fresh` = a new item. */
export interface ItemSpec {
  itemId: number;
  variant: 'same' | 'price' | 'fresh';
  seed: number;
  price: number;
}

export function itemOf(model: CatalogModel, spec: ItemSpec): Item {
  const last = model.lastSeen.get(spec.itemId);
  if (!last || spec.variant === 'fresh') return makeItem(spec.itemId, spec.seed, spec.price);
  return spec.variant === 'same' ? last : { ...last, price: spec.price };
}

export type GroupSpec =
  | { kind: 'upserts'; items: ItemSpec[] }
  | { kind: 'prices'; changes: { itemId: number; price: number }[] }
  | { kind: 'removals'; itemIds: number[] };

/** A live burst against the model, checking each group's answer as it goes; the ids it touched. */
function applyBurstToModel(
  model: CatalogModel,
  groups: GroupSpec[],
  built: ItemChangeGroup[],
  results: Awaited<ReturnType<Real['store']['applyItemChanges']>>,
  tick: number,
): number[] {
  const touched: number[] = [];
  groups.forEach((group, g) => {
    const result = results[g];
    if (group.kind === 'upserts') {
      const items = (built[g] as { items: Item[] }).items;
      checkUpserts(model, items, tick, result?.kind === 'upserts' ? result.result : null, `burst group ${g}: upserts`);
      touched.push(...items.map((item) => item.itemId));
    } else if (group.kind === 'prices') {
      const previous = group.changes.map(
        (change) => model.changePrice(change.itemId, change.price, tick) ?? Number.NaN,
      );
      expect(
        result?.kind === 'prices' ? Array.from(result.result.previous) : null,
        `burst group ${g}: prices before`,
      ).toEqual(previous);
      touched.push(...group.changes.map((change) => change.itemId));
    } else {
      const removed = group.itemIds.filter((itemId) => model.remove(itemId));
      expect(result?.kind === 'removals' ? result.result.removed : null, `burst group ${g}: removed`).toEqual(removed);
      touched.push(...group.itemIds);
    }
  });
  return touched;
}

type PriceMoveAnswer = { itemId: number; price: number; previous: number | null };

/**
 * Checks an upsert call's answer against the model, which it updates: the rows written (listed or changed)
 * and the prices new or moved, in order. The store may also report an item that did not change (one whose
 * price or listing changed live since it was last written whole: it rewrites such a row), never miss one.
 */
function checkUpserts(
  model: CatalogModel,
  items: Item[],
  tick: number,
  answer: { upserted: { itemId: number }[]; prices: PriceMoveAnswer[] } | null,
  label: string,
): void {
  /** Each item in order: whether the model says it was written (an unchanged one the store may report too). */
  const written: { itemId: number; must: boolean }[] = [];
  const prices: PriceMoveAnswer[] = [];
  for (const item of items) {
    const before = model.onSale.get(item.itemId)?.item.price ?? null;
    const outcome = model.upsert(item, tick);
    written.push({ itemId: item.itemId, must: outcome !== 'unchanged' });
    if (outcome === 'listed') prices.push({ itemId: item.itemId, price: item.price, previous: null });
    else if (outcome === 'changed' && before !== item.price)
      prices.push({ itemId: item.itemId, price: item.price, previous: before });
  }
  expect(answer, `${label}: answered`).not.toBeNull();
  expect(answer?.prices, `${label}: prices`).toEqual(prices);
  const reported = answer?.upserted.map((row) => row.itemId) ?? [];
  const expected = written.filter((w) => w.must).map((w) => w.itemId);
  expect(
    reportsWritten(written, reported),
    `${label}: rows written ${JSON.stringify(reported)}, must hold ${JSON.stringify(expected)} in order`,
  ).toBe(true);
}

/** Whether `reported` is the items in order with every must-write among them (an item may appear twice in one call). */
function reportsWritten(written: { itemId: number; must: boolean }[], reported: number[]): boolean {
  const memo = new Map<number, boolean>();
  const match = (i: number, j: number): boolean => {
    if (j === reported.length) return written.slice(i).every((w) => !w.must);
    if (i === written.length) return false;
    const key = i * (reported.length + 1) + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    const entry = written[i] as { itemId: number; must: boolean };
    const result = (entry.itemId === reported[j] && match(i + 1, j + 1)) || (!entry.must && match(i + 1, j));
    memo.set(key, result);
    return result;
  };
  return match(0, 0);
}

function buildGroups(model: CatalogModel, groups: GroupSpec[]): ItemChangeGroup[] {
  // Items are made in order: an upsert group after a removal in the same burst sees the model before both.
  return groups.map((group) =>
    group.kind === 'upserts'
      ? { kind: 'upserts', items: group.items.map((spec) => itemOf(model, spec)) }
      : group.kind === 'prices'
        ? { kind: 'prices', changes: packPriceChanges(group.changes) }
        : { kind: 'removals', itemIds: group.itemIds },
  );
}

abstract class Base implements Command {
  constructor(readonly queries: ModelQuery[]) {}
  check(): boolean {
    return true;
  }
  abstract toString(): string;
  /** The command itself; run() times it. */
  protected abstract execute(model: CatalogModel, real: Real): Promise<void>;
  async run(model: CatalogModel, real: Real): Promise<void> {
    const started = performance.now();
    await this.execute(model, real);
    real.commandMs.push(performance.now() - started);
  }
  protected async verify(model: CatalogModel, real: Real, touched: number[]): Promise<void> {
    await checkAll(real, model, this.queries, touched, touched[0] ?? this.queries.length);
  }
}

export class Upserts extends Base {
  constructor(
    readonly items: ItemSpec[],
    queries: ModelQuery[],
  ) {
    super(queries);
  }
  protected async execute(model: CatalogModel, real: Real): Promise<void> {
    const items = this.items.map((spec) => itemOf(model, spec));
    const tick = await real.clock.begin();
    const result = await applyItemUpserts(real.store, items);
    real.clock.end(tick);
    checkUpserts(model, items, tick, result, 'applyItemUpserts');
    expect(result.totals, 'applyItemUpserts totals').toEqual(model.totals);
    count(real, 'upserts');
    await this.verify(
      model,
      real,
      items.map((item) => item.itemId),
    );
  }
  toString(): string {
    return `upserts(${JSON.stringify(this.items)})`;
  }
}

export class PriceChanges extends Base {
  constructor(
    readonly changes: { itemId: number; price: number }[],
    queries: ModelQuery[],
  ) {
    super(queries);
  }
  protected async execute(model: CatalogModel, real: Real): Promise<void> {
    const tick = await real.clock.begin();
    const result = await applyPriceChanges(real.store, this.changes);
    real.clock.end(tick);
    const moves: { itemId: number; price: number; previous: number }[] = [];
    const unknown: number[] = [];
    for (const { itemId, price } of this.changes) {
      const before = model.changePrice(itemId, price, tick);
      if (before === null) unknown.push(itemId);
      else if (before !== price) moves.push({ itemId, price, previous: before });
    }
    expect({ prices: result.prices, unknown: result.unknown }, 'applyPriceChanges answer').toEqual({
      prices: moves,
      unknown,
    });
    expect(result.totals, 'applyPriceChanges totals').toEqual(model.totals);
    count(real, 'prices');
    await this.verify(
      model,
      real,
      this.changes.map((change) => change.itemId),
    );
  }
  toString(): string {
    return `prices(${JSON.stringify(this.changes)})`;
  }
}

export class Removals extends Base {
  constructor(
    readonly itemIds: number[],
    queries: ModelQuery[],
  ) {
    super(queries);
  }
  protected async execute(model: CatalogModel, real: Real): Promise<void> {
    const tick = await real.clock.begin();
    const result = await applyItemRemovals(real.store, this.itemIds);
    real.clock.end(tick);
    expect(result.removed, 'applyItemRemovals removed').toEqual(this.itemIds.filter((itemId) => model.remove(itemId)));
    expect(result.totals, 'applyItemRemovals totals').toEqual(model.totals);
    count(real, 'removals');
    await this.verify(model, real, this.itemIds);
  }
  toString(): string {
    return `removals(${JSON.stringify(this.itemIds)})`;
  }
}

export class Burst extends Base {
  constructor(
    readonly groups: GroupSpec[],
    queries: ModelQuery[],
  ) {
    super(queries);
  }
  protected async execute(model: CatalogModel, real: Real): Promise<void> {
    const built = buildGroups(model, this.groups);
    const tick = await real.clock.begin();
    const results = await real.store.applyItemChanges(built);
    real.clock.end(tick);
    const touched = applyBurstToModel(model, this.groups, built, results, tick);
    count(real, 'burst');
    await this.verify(model, real, touched);
  }
  toString(): string {
    return `burst(${JSON.stringify(this.groups)})`;
  }
}

/** A catalog list made from the model's items on sale: some left out, some changed, some added. */
export interface SyncSpec {
  seed: number;
  /** Per mille of the items on sale: left out, at a new price, made anew. */
  dropped: number;
  repriced: number;
  remade: number;
  /** A run of ids added (on sale or not): `count` ids from `first` on (wrapping), each as `variant`. */
  added: { first: number; count: number; variant: ItemSpec['variant'] };
}

let syncCount = 0;

function addedIds(spec: SyncSpec, ids: number): number[] {
  return Array.from({ length: spec.added.count }, (_, i) => 1 + ((spec.added.first - 1 + i) % ids));
}

export function syncList(model: CatalogModel, spec: SyncSpec, ids: number): Item[] {
  const random = seededRandom(spec.seed);
  const byId = new Map<number, Item>();
  for (const [itemId, held] of [...model.onSale.entries()].sort((a, b) => a[0] - b[0])) {
    const roll = random() * 1000;
    if (roll < spec.dropped) continue;
    if (roll < spec.dropped + spec.repriced) byId.set(itemId, { ...held.item, price: 1 + Math.floor(random() * 5000) });
    else if (roll < spec.dropped + spec.repriced + spec.remade)
      byId.set(itemId, makeItem(itemId, spec.seed, held.item.price));
    else byId.set(itemId, held.item);
  }
  for (const itemId of addedIds(spec, ids))
    byId.set(
      itemId,
      itemOf(model, {
        itemId,
        variant: spec.added.variant,
        seed: spec.seed,
        price: 125 * (1 + ((itemId + spec.seed) % 40)),
      }),
    );
  return [...byId.values()];
}

export class Sync extends Base {
  constructor(
    readonly spec: SyncSpec,
    /** whole; cut mid-body (fails); aborted by the app mid-body (fails). */
    readonly delivery: 'whole' | 'cut' | 'abort',
    queries: ModelQuery[],
  ) {
    super(queries);
  }
  protected async execute(model: CatalogModel, real: Real): Promise<void> {
    const items = syncList(model, this.spec, real.size.ids);
    const lastUpdate = new Date(Date.UTC(2026, 10, 1) + ++syncCount * 60_000).toISOString();
    const { whenHeld } = real.server.serve(items, lastUpdate, this.delivery === 'abort' ? 'held' : this.delivery);
    const abort = new AbortController();
    const tick = await real.clock.begin();
    const sync = real.store.syncCatalog({ url: real.server.url, headers: {}, signal: abort.signal }).then(
      (result) => result,
      (error: unknown) => error as Error,
    );
    if (this.delivery === 'abort') {
      await whenHeld;
      abort.abort();
    }
    const outcome = await sync;
    real.clock.end(tick);
    if (this.delivery !== 'whole') {
      // A body cut short, or the app's cancel: the sync fails with its reason and the catalog is as it was.
      expect(outcome, `a ${this.delivery} sync fails`).toBeInstanceOf(Error);
      if (this.delivery === 'abort') expect((outcome as Error).name, 'an aborted sync says so').toBe('AbortError');
      count(real, `sync ${this.delivery}`);
    } else {
      if (outcome instanceof Error || !outcome.ok)
        throw new Error(`sync failed: ${outcome instanceof Error ? outcome.message : outcome.status}`);
      model.sync(items, lastUpdate, tick);
      expect(outcome.total, 'sync total').toBe(model.totals.totalItems);
      count(real, 'sync');
    }
    await this.verify(model, real, [
      ...items.map((item) => item.itemId).slice(0, real.size.batch),
      ...addedIds(this.spec, real.size.ids).slice(0, real.size.batch),
    ]);
  }
  toString(): string {
    return `sync(${JSON.stringify(this.spec)}, ${this.delivery})`;
  }
}

/** Trades and ledger entries stored (some already held: a copy changes nothing), then one page of each. */
export class Records extends Base {
  constructor(
    readonly trades: number[],
    readonly entries: number[],
    readonly query: RecordsQuery,
    queries: ModelQuery[],
  ) {
    super(queries);
  }
  protected async execute(model: CatalogModel, real: Real): Promise<void> {
    const trades = this.trades.map(tradeOf);
    const entries = this.entries.map(ledgerEntryOf);
    const [changed, inserted] = [await real.store.upsertTrades(trades, 'poll'), await real.store.insertLedger(entries)];
    const expected = model.records.add(trades, entries);
    expect(
      changed.changed.map((trade) => trade.tradeId),
      'upsertTrades changed',
    ).toEqual(expected.changed);
    expect(
      inserted.inserted.map((entry) => entry.id),
      'insertLedger inserted',
    ).toEqual(expected.inserted);
    count(real, 'records');
    await checkRecords(real.store, model.records, this.query, this.trades[0] ?? 0);
    await this.verify(model, real, []);
  }
  toString(): string {
    return `records(${JSON.stringify([this.trades, this.entries, this.query])})`;
  }
}

/**
 * A sync whose download pauses halfway while a live burst is written; then the rest arrives and it
 * commits: new items are listed at its apply. Three ticks.
 */
export class SyncDuringFeed extends Base {
  constructor(
    readonly spec: SyncSpec,
    readonly groups: GroupSpec[],
    queries: ModelQuery[],
  ) {
    super(queries);
  }
  protected async execute(model: CatalogModel, real: Real): Promise<void> {
    const items = syncList(model, this.spec, real.size.ids);
    const lastUpdate = new Date(Date.UTC(2026, 10, 1) + ++syncCount * 60_000).toISOString();
    const { whenHeld } = real.server.serve(items, lastUpdate, 'paused');
    const started = await real.clock.begin();
    const sync = real.store.syncCatalog({ url: real.server.url, headers: {} }).then(
      (result) => result,
      (error: unknown) => error as Error,
    );
    let touched: number[];
    let applied: number;
    try {
      await whenHeld;
      real.clock.end(started);
      const built = buildGroups(model, this.groups);
      const fed = await real.clock.begin();
      const results = await real.store.applyItemChanges(built);
      real.clock.end(fed);
      touched = applyBurstToModel(model, this.groups, built, results, fed);
      applied = await real.clock.begin();
    } finally {
      // The rest of the list, in the apply's tick; and whatever failed above (no request left hanging).
      real.server.release();
    }
    const result = await sync;
    real.clock.end(applied);
    if (result instanceof Error) throw result;
    if (!result.ok) throw new Error(`sync failed: ${result.status}`);
    model.sync(items, lastUpdate, applied, new Set(touched));
    expect(result.total, 'sync total').toBe(model.totals.totalItems);
    expect(result.keptFromFeed, 'sync keptFromFeed').toBe(new Set(touched).size);
    count(real, 'sync during feed');
    await this.verify(model, real, [...touched, ...items.map((item) => item.itemId).slice(0, real.size.batch)]);
  }
  toString(): string {
    return `syncDuringFeed(${JSON.stringify(this.spec)}, ${JSON.stringify(this.groups)})`;
  }
}

export async function openStore(real: Real): Promise<void> {
  real.store = await LocalStore.open({ file: real.file, workerEntry: real.bundles.worker });
}

/** The store closed and opened again. */
export class Reopen extends Base {
  protected async execute(model: CatalogModel, real: Real): Promise<void> {
    await real.store.close();
    await openStore(real);
    count(real, 'reopen');
    await this.verify(model, real, []);
  }
  toString(): string {
    return 'reopen()';
  }
}

/**
 * The app process killed (SIGKILL) right after a live burst returned, or while a sync's list is half
 * downloaded; then the store opened again in this process. A returned burst is kept, the sync is not.
 */
export class Kill extends Base {
  constructor(
    readonly during: { burst: GroupSpec[] } | { sync: SyncSpec },
    queries: ModelQuery[],
  ) {
    super(queries);
  }
  protected async execute(model: CatalogModel, real: Real): Promise<void> {
    await real.store.close();
    const app = await StoreProcess.start(real.file, real.bundles);
    let touched: number[];
    if ('burst' in this.during) {
      const built = buildGroups(model, this.during.burst);
      const tick = await real.clock.begin();
      const results = await app.applyItemChanges(built);
      real.clock.end(tick);
      touched = applyBurstToModel(model, this.during.burst, built, results, tick);
      await app.kill();
      count(real, 'kill after burst');
    } else {
      const items = syncList(model, this.during.sync, real.size.ids);
      const { whenHeld } = real.server.serve(
        items,
        new Date(Date.UTC(2026, 10, 1) + ++syncCount * 60_000).toISOString(),
        'held',
      );
      const sync = app.syncCatalog({ url: real.server.url, headers: {} }).catch(() => null);
      await whenHeld;
      await app.kill();
      expect(await sync, 'a killed sync never answers').toBeNull();
      touched = items.map((item) => item.itemId).slice(0, real.size.batch);
      count(real, 'kill mid-sync');
    }
    await openStore(real);
    await this.verify(model, real, touched);
  }
  toString(): string {
    return `kill(${JSON.stringify(this.during)})`;
  }
}

// ---- arbitraries

/**
 * At most one upsert group a burst: the writer takes the time once a group, so items listed by two groups
 * of one call may hold two times the model cannot tell apart (and sort by listing time between them).
 */
function oneListingGroup(groups: GroupSpec[]): GroupSpec[] {
  const first = groups.findIndex((group) => group.kind === 'upserts');
  return groups.filter((group, g) => group.kind !== 'upserts' || g === first);
}

const SORTS: SortColumn[] = [...CATALOG_SORT_COLUMNS];
const sometimes = <T>(none: T, arb: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary: fc.constant(none) }, arb);
/** Sorted, apart ranges within 0..max (as parseNumberList gives them). */
const rangesArb = (max: number) =>
  fc.uniqueArray(fc.integer({ min: 0, max }), { minLength: 1, maxLength: 6 }).map((bounds) => {
    const sorted = [...bounds].sort((a, b) => a - b);
    const ranges: [number, number][] = [];
    for (let i = 0; i < sorted.length; i += 2)
      ranges.push([sorted[i] as number, sorted[i + 1] ?? (sorted[i] as number)]);
    return ranges.filter((range, i) => i === 0 || range[0] > (ranges[i - 1] as [number, number])[1]);
  });

/** Every filter off. */
const NO_FILTERS = catalogFiltersSchema.parse({});

/** Prices from a short ladder: ties are common, as are the bounds of a price filter. */
const priceArb = fc.integer({ min: 1, max: 40 }).map((step) => step * 125);

export function queryArb(real: { ids: number; pageLimit: number }): fc.Arbitrary<ModelQuery> {
  const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { freq: 3, nil: null });
  const direction = fc.constantFrom('asc' as const, 'desc' as const);
  const limit = fc.integer({ min: 1, max: real.pageLimit });
  const full = fc.record({
    search: fc.oneof({ weight: 3, arbitrary: fc.constant('') }, fc.constantFrom(...SEARCH_TERMS)),
    priceMin: maybe(priceArb),
    priceMax: maybe(priceArb),
    rarityColors: fc.oneof(
      { weight: 3, arbitrary: fc.constant<string[]>([]) },
      fc.subarray(QUERY_RARITIES, { minLength: 1, maxLength: 3 }),
    ),
    floatMin: maybe(fc.integer({ min: 0, max: 10 }).map((tenth) => tenth / 10)),
    floatMax: maybe(fc.integer({ min: 0, max: 10 }).map((tenth) => tenth / 10)),
    phase: maybe(fc.constantFrom(...QUERY_PHASES)),
    statTrak: maybe(fc.boolean()),
    souvenir: maybe(fc.boolean()),
    hasStickers: maybe(fc.boolean()),
    stickerName: fc.oneof({ weight: 4, arbitrary: fc.constant('') }, fc.constantFrom(...STICKER_TERMS)),
    seeds: sometimes<[number, number][]>([], fc.oneof(rangesArb(999), fc.constant<[number, number][]>([[661, 667]]))),
    wears: sometimes<Wear[]>([], fc.subarray([...WEARS], { minLength: 1, maxLength: 3 })),
    hasCharm: maybe(fc.boolean()),
    charmName: sometimes('', fc.constantFrom(...CHARM_TERMS)),
    charmPatterns: sometimes<[number, number][]>([], rangesArb(40)),
    stickerCountMin: maybe(fc.integer({ min: 1, max: 3 })),
    sameStickerMin: maybe(fc.integer({ min: 2, max: 3 })),
    stickerNames: sometimes<string[]>([], fc.subarray(STICKER_TERMS, { minLength: 1, maxLength: 2 })),
    excludeWords: sometimes('', fc.constantFrom(...EXCLUDE_TERMS)),
    discountMin: maybe(fc.integer({ min: -50, max: 60 })),
    floatRankMax: maybe(fc.integer({ min: 1, max: 4 })),
    // Names hold one to a few listings here: small bounds split them, and each bound meets some group at its edge.
    listingsMin: maybe(fc.integer({ min: 1, max: 4 })),
    sort: fc.constantFrom(...SORTS),
    direction,
    offset: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, fc.integer({ min: 0, max: Math.max(1, real.ids) })),
    limit,
  });
  // With many filters set at once a query mostly matches nothing: the market filters (read from the standings
  // the model recomputes) also come alone, so that each meets its names' groups at its bound.
  const marketOnly = full.map((q): ModelQuery => ({
    ...NO_FILTERS,
    discountMin: q.discountMin,
    floatRankMax: q.floatRankMax,
    listingsMin: q.listingsMin,
    sort: q.sort,
    direction: q.direction,
    offset: q.offset,
    limit: q.limit,
  }));
  if (real.ids <= DEEP_PAGE_ROWS) return fc.oneof({ weight: 3, arbitrary: full }, { weight: 1, arbitrary: marketOnly });
  // Past the first 2,000 rows a page is cut from the whole sorted match list: few filters, an offset near the end.
  const deep = fc
    .record({ sort: fc.constantFrom(...SORTS), direction, offset: fc.integer({ min: 1500, max: real.ids }), limit })
    .map((q): ModelQuery => ({ ...NO_FILTERS, ...q }));
  return fc.oneof({ weight: 3, arbitrary: full }, { weight: 1, arbitrary: marketOnly }, { weight: 2, arbitrary: deep });
}

/** Pages just past the first DEEP_PAGE_ROWS of the whole catalog, by each sort: the deep path, whatever the draw. */
export function deepQueries(limit: number): ModelQuery[] {
  return SORTS.map((sort): ModelQuery => ({ ...NO_FILTERS, sort, direction: 'desc', offset: DEEP_PAGE_ROWS, limit }));
}

export function commandArb(size: { ids: number; batch: number; pageLimit: number }): fc.Arbitrary<Command> {
  const id = fc.integer({ min: 1, max: size.ids });
  const queries = fc.array(queryArb(size), { minLength: 1, maxLength: 3 });
  const itemSpec = fc.record({
    itemId: id,
    variant: fc.constantFrom('same' as const, 'price' as const, 'fresh' as const),
    seed: fc.integer({ min: 0, max: 1_000_000 }),
    price: priceArb,
  });
  const batch = { minLength: 1, maxLength: size.batch };
  const group: fc.Arbitrary<GroupSpec> = fc.oneof(
    fc.record({ kind: fc.constant('upserts' as const), items: fc.array(itemSpec, batch) }),
    fc.record({
      kind: fc.constant('prices' as const),
      changes: fc.array(fc.record({ itemId: id, price: priceArb }), batch),
    }),
    fc.record({ kind: fc.constant('removals' as const), itemIds: fc.array(id, batch) }),
  );
  const syncSpec: fc.Arbitrary<SyncSpec> = fc.record({
    seed: fc.integer({ min: 0, max: 1_000_000 }),
    dropped: fc.integer({ min: 0, max: 300 }),
    repriced: fc.integer({ min: 0, max: 300 }),
    remade: fc.integer({ min: 0, max: 200 }),
    added: fc.record({
      first: id,
      count: fc.integer({ min: 0, max: Math.min(size.ids, 4 * size.batch) }),
      variant: itemSpec.map((spec) => spec.variant),
    }),
  });
  const recordsQuery: fc.Arbitrary<RecordsQuery> = fc.record({
    idPrefix: fc.constantFrom('', '', 'tr', 'TR-', 'Tr_', 'tr_%', 'tR-1', 'x', '%', '_'),
    externalPrefix: fc.constantFrom('', '', 'ext_', 'EXT_1', 'Ext%', 'e'),
    statuses: fc.oneof(
      { weight: 3, arbitrary: fc.constant<TradeStatus[]>([]) },
      fc.subarray([...TRADE_STATUSES_ACCEPTED], { minLength: 1, maxLength: 3 }),
    ),
    activeOnly: fc.boolean(),
    webhookFailed: fc.boolean(),
    types: fc.oneof(
      { weight: 3, arbitrary: fc.constant<TransactionType[]>([]) },
      fc.subarray([...TRANSACTION_TYPES], { minLength: 1, maxLength: 3 }),
    ),
    fromHour: fc.option(fc.integer({ min: 0, max: 16 }), { nil: null }),
    toHour: fc.option(fc.integer({ min: 0, max: 16 }), { nil: null }),
    offset: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 30 })),
    limit: fc.integer({ min: 1, max: 50 }),
  });
  const recordIds = fc.array(fc.integer({ min: 1, max: 60 }), { maxLength: 10 });
  // Weighted: live writes most, syncs often, reopens and kills (a process start each, ~1-3 s) now and then.
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc.tuple(fc.array(itemSpec, batch), queries).map(([items, q]): Command => new Upserts(items, q)),
    },
    {
      weight: 4,
      arbitrary: fc
        .tuple(fc.array(fc.record({ itemId: id, price: priceArb }), batch), queries)
        .map(([changes, q]): Command => new PriceChanges(changes, q)),
    },
    { weight: 3, arbitrary: fc.tuple(fc.array(id, batch), queries).map(([ids, q]): Command => new Removals(ids, q)) },
    {
      weight: 5,
      arbitrary: fc
        .tuple(fc.array(group, { minLength: 1, maxLength: 4 }).map(oneListingGroup), queries)
        .map(([groups, q]): Command => new Burst(groups, q)),
    },
    {
      weight: 4,
      arbitrary: fc
        .tuple(
          syncSpec,
          fc.constantFrom<'whole' | 'cut' | 'abort'>('whole', 'whole', 'whole', 'whole', 'cut', 'abort'),
          queries,
        )
        .map(([spec, delivery, q]): Command => new Sync(spec, delivery, q)),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(syncSpec, fc.array(group, { minLength: 1, maxLength: 3 }).map(oneListingGroup), queries)
        .map(([spec, groups, q]): Command => new SyncDuringFeed(spec, groups, q)),
    },
    { weight: 1, arbitrary: queries.map((q): Command => new Reopen(q)) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(recordIds, recordIds, recordsQuery, queries)
        .map(([trades, entries, rq, q]): Command => new Records(trades, entries, rq, q)),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.oneof(
            fc.array(group, { minLength: 1, maxLength: 3 }).map((burst) => ({ burst: oneListingGroup(burst) })),
            syncSpec.map((sync) => ({ sync })),
          ),
          queries,
        )
        .map(([during, q]): Command => new Kill(during, q)),
    },
  );
}

/**
 * A run fast-check tries first (an example): items written, then each way the app stops and starts again (a kill
 * after a burst, a reopen, a kill mid-sync), so every test run meets them whatever the random runs draw.
 */
export function restartExample(ids: number): Command[] {
  const spec = (itemId: number): ItemSpec => ({
    itemId: 1 + ((itemId - 1) % ids),
    variant: 'fresh',
    seed: 7,
    price: 1000,
  });
  const sync: SyncSpec = {
    seed: 7,
    dropped: 200,
    repriced: 200,
    remade: 100,
    added: { first: 1, count: 8, variant: 'fresh' },
  };
  return [
    new Upserts([1, 2, 3, 4].map(spec), []),
    new Kill(
      {
        burst: [
          { kind: 'prices', changes: [{ itemId: 2, price: 2000 }] },
          { kind: 'removals', itemIds: [3] },
        ],
      },
      [],
    ),
    new Reopen([]),
    new Kill({ sync }, []),
  ];
}
