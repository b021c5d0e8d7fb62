import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BalanceTransaction, Item, Trade } from '../../src/shared/api';
import type { CatalogQuery } from '../../src/shared/ipc/contract';
import { at } from '../support/sandboxHttp';
import { CACHE_VERSION, LocalStore, SCHEMA_VERSION, StoreError } from '../../src/main/core/store';
import { packPriceChanges, priceChangeOutcome } from '../../src/main/core/catalog/priceChanges';
import { resolveWorkerEntry } from '../../src/main/core/store/localStore';
import { WorkerClient } from '../../src/main/core/store/workerClient';
import { applyItemRemovals, applyItemUpserts, applyPriceChanges } from '../support/liveChanges';

// ---- fixtures

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'store-test-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const open: LocalStore[] = [];
async function openStore(file = join(tempDir(), 'accounts', 'm1.sqlite')): Promise<LocalStore> {
  const store = await LocalStore.open({ file });
  open.push(store);
  return store;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((store) => store.close()));
});

function sha(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

let nextItemId = 5_000_000;
function makeItem(overrides: Partial<Item> = {}): Item {
  return {
    itemId: nextItemId++,
    assetId: String(90_000_000 + nextItemId),
    classId: '310776',
    instanceId: '302028390',
    paintIndex: 282,
    paintSeed: 661,
    rarityColor: '#eb4b4b',
    market_hash_name: 'AK-47 | Redline (Field-Tested)',
    img: 'https://img.example/ak.svg',
    phase: null,
    price: 1000,
    float: 0.25,
    stickers: [],
    keyChains: [],
    steamId: null,
    inspectInGame: null,
    tradeUrl: null,
    ...overrides,
  };
}

function sticker(name: string) {
  return { name, img: 'https://img.example/s.svg', slot: 0, wear: 0, wearPercent: '100%' };
}

const NOW = '2026-03-01T10:00:00.000Z';
function makeTrade(overrides: Partial<Trade> = {}): Trade {
  return {
    tradeId: 'T1',
    externalId: null,
    status: 'PENDING',
    price: 1000,
    itemId: 1,
    assetId: 'A1',
    offerId: null,
    tradeUrl: 'https://steamcommunity.com/tradeoffer/new/?partner=12345678&token=AbCd1234',
    market_hash_name: 'AK-47 | Redline (Field-Tested)',
    phase: null,
    float: 0.25,
    webhookStatus: null,
    failReason: null,
    errorCode: null,
    createdAt: NOW,
    updatedAt: NOW,
    completedAt: null,
    cancelledAt: null,
    endProtection: null,
    rollbackAt: null,
    stage: 1,
    ...overrides,
  };
}

function makeLedger(id: number, overrides: Partial<BalanceTransaction> = {}): BalanceTransaction {
  return {
    id,
    type: 'ADMIN TOP UP',
    amount: 1000,
    balanceBefore: (id - 1) * 1000,
    balanceAfter: id * 1000,
    tradeId: null,
    note: null,
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, id)).toISOString(),
    market_hash_name: null,
    phase: null,
    ...overrides,
  };
}

// ---- opening, migrations, refusals

describe('opening and migrations', () => {
  it('creates the file under accounts/, migrates it and reopens without migrating', async () => {
    const dir = tempDir();
    const file = join(dir, 'accounts', 'merchant-1.sqlite');
    const store = await LocalStore.open({ file });
    expect(store.migratedFrom).toBe(0);
    await store.close();
    const db = new Database(file, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
    const again = await openStore(file);
    expect(again.migratedFrom).toBeNull();
  });

  it('opens the last pre-release layout (schema 19): keeps the records, drops the old catalog tables for a new sync', async () => {
    const file = join(tempDir(), 'pre-release.sqlite');
    const store = await openStore(file);
    const recipient = await store.saveRecipient({
      label: 'Main',
      tradeUrl: 'https://steamcommunity.com/tradeoffer/new/?partner=1&token=abcd1234',
    });
    await store.upsertTrades([makeTrade({ tradeId: 't-pre' })], 'poll');
    await applyItemUpserts(store, [makeItem({ itemId: 1 })]);
    await store.close();
    // What a pre-release build left: its user_version, an old cache table, its own statistics.
    const db = new Database(file);
    db.exec(
      'CREATE TABLE item_prices_pending (itemId INTEGER PRIMARY KEY, price INTEGER); ANALYZE; DROP TABLE IF EXISTS saved_searches;',
    );
    db.pragma('user_version = 19');
    db.prepare("UPDATE meta SET value = '0' WHERE key = 'cache.version'").run();
    db.close();

    const reopened = await openStore(file);
    expect(reopened.migratedFrom).toBe(19);
    expect(await reopened.listRecipients()).toEqual([recipient]);
    expect((await reopened.getTrade('t-pre'))?.trade.tradeId).toBe('t-pre');
    expect(await reopened.catalogInfo()).toMatchObject({ totalItems: 0, lastUpdate: null });
    expect(await reopened.getItem(1)).toBeNull();
    await reopened.close();
    const check = new Database(file, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(
      check
        .prepare("SELECT name FROM sqlite_schema WHERE name IN ('item_prices_pending', 'sqlite_stat1')")
        .pluck()
        .all(),
    ).toEqual([]);
    check.close();
  });

  it('drops and re-creates the catalog cache when its layout version differs, keeping every record', async () => {
    const file = join(tempDir(), 'cache.sqlite');
    const store = await openStore(file);
    await applyItemUpserts(store, [makeItem({ itemId: 1 }), makeItem({ itemId: 2 })]);
    await store.insertLedger([makeLedger(1)]);
    await store.setMeta('trades_history_mark', '2026-01-01T00:00:00.000Z');
    expect((await store.catalogInfo()).totalItems).toBe(2);
    await store.close();
    const db = new Database(file);
    db.prepare("UPDATE meta SET value = ? WHERE key = 'cache.version'").run(String(CACHE_VERSION + 1));
    db.close();

    const reopened = await openStore(file);
    expect(reopened.migratedFrom).toBeNull();
    expect((await reopened.catalogInfo()).totalItems).toBe(0);
    expect((await reopened.queryCatalog({})).total).toBe(0);
    expect((await reopened.queryLedger({})).total).toBe(1);
    expect(await reopened.getMeta('trades_history_mark')).toBe('2026-01-01T00:00:00.000Z');
    // Writable again as a fresh cache.
    await applyItemUpserts(reopened, [makeItem({ itemId: 3 })]);
    expect((await reopened.queryCatalog({})).rows.map((row) => row.itemId)).toEqual([3]);
    await reopened.close();
  });

  it('refuses an early pre-release layout untouched, saying so', async () => {
    const file = join(tempDir(), 'early.sqlite');
    const db = new Database(file);
    db.exec('CREATE TABLE items (itemId INTEGER PRIMARY KEY)');
    db.pragma('user_version = 5');
    db.close();
    const before = sha(file);
    const error = await LocalStore.open({ file }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ code: 'version' });
    expect((error as Error).message).toContain(file);
    expect(sha(file)).toBe(before);
  });

  it('refuses a database created by a newer Merchant Desk and leaves it untouched', async () => {
    const file = join(tempDir(), 'newer.sqlite');
    const db = new Database(file);
    db.exec('CREATE TABLE future (x)');
    db.pragma(`user_version = ${SCHEMA_VERSION + 3}`);
    db.close();
    const before = sha(file);
    const error = await LocalStore.open({ file }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ code: 'version' });
    expect((error as Error).message).toContain(
      `created by a newer Merchant Desk (schema ${SCHEMA_VERSION + 3} > ${SCHEMA_VERSION})`,
    );
    expect((error as Error).message).toContain(file);
    expect(sha(file)).toBe(before);
  });

  it('reports a file that is not a database as corrupt, with its path, and keeps it', async () => {
    const file = join(tempDir(), 'garbage.sqlite');
    writeFileSync(file, Buffer.alloc(8192, 'this is not sqlite '));
    const before = sha(file);
    const error = await LocalStore.open({ file }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ code: 'corrupt' });
    expect((error as StoreError).file).toBe(file);
    expect((error as Error).message).toContain(file);
    expect(sha(file)).toBe(before);
  });

  it('reports a damaged database as corrupt', async () => {
    const dir = tempDir();
    const file = join(dir, 'damaged.sqlite');
    const store = await LocalStore.open({ file });
    await store.close();
    // Keep the 100-byte header, wreck the rest of page 1 (the schema).
    const bytes = readFileSync(file);
    bytes.fill(0xa5, 100, 4096);
    writeFileSync(file, bytes);
    const error = await LocalStore.open({ file }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ code: 'corrupt' });
    expect((error as Error).message).toMatch(/damaged|not a Merchant Desk database/);
  });

  it('reports a read-only database clearly', async (context) => {
    const dir = tempDir();
    const file = join(dir, 'ro.sqlite');
    const store = await LocalStore.open({ file });
    await store.close();
    chmodSync(file, 0o444);
    let immutable = false;
    if (process.getuid?.() === 0) {
      // root ignores permission bits; the immutable attribute binds root too.
      try {
        execFileSync('chattr', ['+i', file], { stdio: 'ignore' });
        immutable = true;
      } catch {
        context.skip();
      }
    }
    try {
      const error = await LocalStore.open({ file }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreError);
      expect(error).toMatchObject({ code: 'read_only' });
      expect((error as Error).message).toContain(file);
      expect((error as Error).message).toContain('cannot be written');
    } finally {
      if (immutable) execFileSync('chattr', ['-i', file]);
      chmodSync(file, 0o644);
    }
  });
});

// ---- catalog

describe('catalog', () => {
  const names = [
    'AK-47 | Redline (Field-Tested)',
    'StatTrak™ AK-47 | Redline (Minimal Wear)',
    'AWP | Dragon Lore (Factory New)',
    'Souvenir AWP | Dragon Lore (Field-Tested)',
    '★ Karambit | Doppler (Factory New)',
    'Glock-18 | Fade (Factory New)',
    'M4A1-S | Printstream (Field-Tested)',
    'Sticker | 100% "Quoted" _under_',
  ];
  const colors = ['#b0c3d9', '#5e98d9', '#4b69ff', '#8847ff', '#d32ce6', '#eb4b4b', '#e4ae39'];
  const phases = [null, null, null, 'Phase 2', 'Ruby'];
  const stickerNames = ['Crown (Foil)', 'Titan (Holo) | Katowice 2014', 'iBUYPOWER | Katowice 2014', 'Howling Dawn'];
  let store: LocalStore;
  let items: Item[];

  beforeAll(async () => {
    items = [];
    for (let i = 0; i < 400; i++) {
      const name = names[i % names.length] as string;
      items.push(
        makeItem({
          market_hash_name: name,
          price: 100 + ((i * 7919) % 5000),
          float: i % 11 === 0 ? null : ((i * 37) % 1000) / 1000,
          paintSeed: i % 13 === 0 ? null : (i * 17) % 1000,
          rarityColor: i % 17 === 0 ? null : (colors[i % colors.length] as Item['rarityColor']),
          phase: phases[i % phases.length] as string | null,
          stickers: Array.from({ length: i % 4 }, (_, k) =>
            sticker(stickerNames[(i + k) % stickerNames.length] as string),
          ),
          keyChains: i % 9 === 0 ? [{ name: 'Charm | Lil Ava', img: 'x', slot: 0 }] : [],
        }),
      );
    }
    store = await LocalStore.open({ file: join(tempDir(), 'catalog.sqlite') });
    await applyItemUpserts(store, items);
  });
  afterAll(async () => {
    await store.close();
  });

  function lower(a: string, b: string): number {
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const rarityRank = (color: string | null) => (color === null ? null : colors.indexOf(color));
  const sortValue: Record<string, (item: Item) => number | string | null> = {
    price: (i) => i.price,
    name: (i) => i.market_hash_name,
    float: (i) => i.float,
    // A seed means nothing without wear (stickers, charms, vanilla knives): the grid shows none, so it sorts as empty.
    paintSeed: (i) => (i.float === null ? null : i.paintSeed),
    phase: (i) => i.phase,
    stickers: (i) => i.stickers.length,
    keychains: (i) => i.keyChains.length,
    listedAt: () => 0,
    rarity: (i) => rarityRank(i.rarityColor),
  };
  /** The column's order, then itemId, both in the direction asked; empty values last in both directions. */
  function expectedOrder(list: Item[], sort: string, direction: 'asc' | 'desc'): number[] {
    const value = sortValue[sort] as (item: Item) => number | string | null;
    const sign = direction === 'asc' ? 1 : -1;
    const sorted = [...list].sort((a, b) => {
      const va = value(a);
      const vb = value(b);
      if (va !== vb) {
        if (va === null) return 1;
        if (vb === null) return -1;
        return sign * (typeof va === 'string' ? lower(va, vb as string) : (va as number) - (vb as number));
      }
      return sign * (a.itemId - b.itemId);
    });
    return sorted.map((item) => item.itemId);
  }

  async function ids(query: CatalogQuery): Promise<number[]> {
    const page = await store.queryCatalog({ limit: 1000, ...query });
    return page.rows.map((row) => row.itemId);
  }
  const idsOf = (list: Item[]) => list.map((item) => item.itemId).sort((a, b) => a - b);
  const sortedIds = async (query: CatalogQuery) => (await ids(query)).sort((a, b) => a - b);

  {
    describe('queries', () => {
      it('finds substrings of names, ASCII case ignored', async () => {
        expect(await sortedIds({ search: 'edlin' })).toEqual(
          idsOf(items.filter((i) => i.market_hash_name.includes('Redline'))),
        );
        expect(await sortedIds({ search: 'DRAGON lore' })).toEqual(
          idsOf(items.filter((i) => i.market_hash_name.includes('Dragon Lore'))),
        );
        // Every term must match, in any order.
        expect(await sortedIds({ search: 'lore souvenir' })).toEqual(
          idsOf(items.filter((i) => i.market_hash_name.startsWith('Souvenir AWP'))),
        );
        expect(await ids({ search: 'no such skin' })).toEqual([]);
        const page = await store.queryCatalog({ search: 'karambit' });
        expect(page.total).toBe(items.filter((i) => i.market_hash_name.includes('Karambit')).length);
      });

      it('handles 1–2 character terms and special characters', async () => {
        expect(await sortedIds({ search: 'AK' })).toEqual(
          idsOf(items.filter((i) => i.market_hash_name.includes('AK'))),
        );
        expect(await sortedIds({ search: '18' })).toEqual(
          idsOf(items.filter((i) => i.market_hash_name.includes('18'))),
        );
        expect(await sortedIds({ search: '★' })).toEqual(idsOf(items.filter((i) => i.market_hash_name.includes('★'))));
        expect(await sortedIds({ search: '_' })).toEqual(idsOf(items.filter((i) => i.market_hash_name.includes('_'))));
        expect(await sortedIds({ search: '%' })).toEqual(idsOf(items.filter((i) => i.market_hash_name.includes('%'))));
        expect(await sortedIds({ search: '"Quoted"' })).toEqual(
          idsOf(items.filter((i) => i.market_hash_name.includes('"Quoted"'))),
        );
        expect(await sortedIds({ search: 'stattrak™ ak' })).toEqual(
          idsOf(items.filter((i) => i.market_hash_name.startsWith('StatTrak™ AK'))),
        );
      });

      it('applies each filter', async () => {
        expect(await sortedIds({ priceMin: 1000, priceMax: 2000 })).toEqual(
          idsOf(items.filter((i) => i.price >= 1000 && i.price <= 2000)),
        );
        expect(await sortedIds({ rarityColors: ['#eb4b4b', '#e4ae39'] })).toEqual(
          idsOf(items.filter((i) => i.rarityColor === '#eb4b4b' || i.rarityColor === '#e4ae39')),
        );
        expect(await ids({ rarityColors: ['#000000'] })).toEqual([]);
        expect(await sortedIds({ floatMin: 0.1, floatMax: 0.3 })).toEqual(
          idsOf(items.filter((i) => i.float !== null && i.float >= 0.1 && i.float <= 0.3)),
        );
        expect(await sortedIds({ phase: 'Ruby' })).toEqual(idsOf(items.filter((i) => i.phase === 'Ruby')));
        expect(await sortedIds({ statTrak: true })).toEqual(
          idsOf(items.filter((i) => i.market_hash_name.includes('StatTrak™'))),
        );
        expect(await sortedIds({ statTrak: false })).toEqual(
          idsOf(items.filter((i) => !i.market_hash_name.includes('StatTrak™'))),
        );
        expect(await sortedIds({ souvenir: true })).toEqual(
          idsOf(items.filter((i) => i.market_hash_name.startsWith('Souvenir '))),
        );
        expect(await sortedIds({ hasStickers: true })).toEqual(idsOf(items.filter((i) => i.stickers.length > 0)));
        expect(await sortedIds({ hasStickers: false })).toEqual(idsOf(items.filter((i) => i.stickers.length === 0)));
        expect(await sortedIds({ stickerName: 'katowice' })).toEqual(
          idsOf(items.filter((i) => i.stickers.some((s) => s.name.toLowerCase().includes('katowice')))),
        );
        expect(await sortedIds({ search: 'awp', priceMax: 3000, hasStickers: true, floatMax: 0.5 })).toEqual(
          idsOf(
            items.filter(
              (i) =>
                i.market_hash_name.includes('AWP') &&
                i.price <= 3000 &&
                i.stickers.length > 0 &&
                i.float !== null &&
                i.float <= 0.5,
            ),
          ),
        );
      });

      it('sorts by every column in both directions, ties by itemId', async () => {
        for (const sort of [
          'price',
          'name',
          'float',
          'paintSeed',
          'phase',
          'stickers',
          'keychains',
          'listedAt',
          'rarity',
        ] as const) {
          for (const direction of ['asc', 'desc'] as const) {
            expect(await ids({ sort, direction }), `${sort} ${direction}`).toEqual(
              expectedOrder(items, sort, direction),
            );
            const filtered = items.filter((i) => i.market_hash_name.includes('AWP'));
            expect(await ids({ sort, direction, search: 'awp' }), `awp ${sort} ${direction}`).toEqual(
              expectedOrder(filtered, sort, direction),
            );
          }
        }
      });

      it('pages with offset and limit and reports the total', async () => {
        const all = expectedOrder(items, 'price', 'desc');
        const first = await store.queryCatalog({ sort: 'price', direction: 'desc', limit: 50 });
        expect(first.total).toBe(items.length);
        expect(first.rows.map((r) => r.itemId)).toEqual(all.slice(0, 50));
        const third = await store.queryCatalog({ sort: 'price', direction: 'desc', offset: 100, limit: 50 });
        expect(third).toMatchObject({ offset: 100, limit: 50, total: items.length });
        expect(third.rows.map((r) => r.itemId)).toEqual(all.slice(100, 150));
        const past = await store.queryCatalog({ offset: 10_000 });
        expect(past.rows).toEqual([]);
        expect(past.total).toBe(items.length);
        const awp = items.filter((i) => i.market_hash_name.includes('AWP'));
        const paged = await store.queryCatalog({ search: 'awp', statTrak: false, offset: 10, limit: 7 });
        expect(paged.total).toBe(awp.length);
        expect(paged.rows.map((r) => r.itemId)).toEqual(expectedOrder(awp, 'price', 'asc').slice(10, 17));
      });

      it('returns flat catalog rows', async () => {
        const item = items.find((i) => i.stickers.length === 3 && i.keyChains.length > 0) as Item;
        const [row] = (
          await store.queryCatalog({ search: item.market_hash_name, priceMin: item.price, priceMax: item.price })
        ).rows.filter((r) => r.itemId === item.itemId);
        // Its reference is the median of its name's plain listings (none: no reference).
        const plain = items.filter(
          (i) =>
            i.market_hash_name === item.market_hash_name &&
            i.phase === item.phase &&
            i.stickers.length === 0 &&
            i.keyChains.length === 0,
        );
        const priced =
          plain.length === 0
            ? { reference: null, discount: null }
            : { reference: expect.any(Number), discount: expect.any(Number) };
        expect(row).toEqual({
          itemId: item.itemId,
          assetId: item.assetId,
          market_hash_name: item.market_hash_name,
          phase: item.phase,
          price: item.price,
          float: item.float,
          paintSeed: item.paintSeed,
          rarityColor: item.rarityColor,
          img: item.img,
          stickerCount: 3,
          stickerNames: item.stickers.map((s) => s.name),
          keyChainNames: ['Charm | Lil Ava'],
          statTrak: item.market_hash_name.includes('StatTrak™'),
          souvenir: item.market_hash_name.startsWith('Souvenir '),
          listedAt: expect.stringMatching(/Z$/),
          lastMove: null,
          market: {
            ...priced,
            listings: expect.any(Number),
            plainListings: plain.length,
            floatRank: expect.any(Number),
          },
        });
      });
    });
  }

  it('reads items back whole, by id and in detail', async () => {
    const sample = [items[3], items[77], items[200]] as Item[];
    expect(await store.findItemsByIds([...sample.map((i) => i.itemId), 1])).toEqual(
      [...sample].sort((a, b) => a.itemId - b.itemId),
    );
    const one = at(sample, 0);
    const detail = await store.getItem(one.itemId);
    expect(detail?.item).toEqual(one);
    expect(detail?.onSale).toBe(true);
    expect(detail?.priceHistory).toEqual([{ at: expect.any(String), price: one.price }]);
    expect(await store.getItem(1)).toBeNull();
  });
});

describe('catalog changes', () => {
  it('records price points and moves, from price changes and upserts', async () => {
    const store = await openStore();
    const item = makeItem({ price: 1000 });
    const first = await applyItemUpserts(store, [item]);
    expect(first.prices).toEqual([{ itemId: item.itemId, price: 1000, previous: null }]);
    expect(first.upserted).toHaveLength(1);
    expect((await applyItemUpserts(store, [item])).upserted).toEqual([]); // unchanged

    const up = await applyPriceChanges(store, [
      { itemId: item.itemId, price: 1200 },
      { itemId: 1, price: 5 },
    ]);
    expect(up.prices).toEqual([{ itemId: item.itemId, price: 1200, previous: 1000 }]);
    expect(up.unknown).toEqual([1]);
    // The row and every read carry the new price (the stored JSON keeps the one it arrived with).
    expect((await store.queryCatalog({ search: 'redline' })).rows[0]).toMatchObject({
      itemId: item.itemId,
      price: 1200,
      lastMove: 'up',
    });
    expect((await store.getItem(item.itemId))?.item.price).toBe(1200);
    expect((await store.findItemsByIds([item.itemId]))[0]?.price).toBe(1200);
    expect((await applyPriceChanges(store, [{ itemId: item.itemId, price: 1200 }])).prices).toEqual([]);

    const down = await applyItemUpserts(store, [{ ...item, price: 900, float: 0.3 }]);
    expect(down.prices).toEqual([{ itemId: item.itemId, price: 900, previous: 1200 }]);
    expect(down.upserted[0]).toMatchObject({ price: 900, float: 0.3, lastMove: 'down' });
    // A change that is not a price keeps the last move.
    const renamed = await applyItemUpserts(store, [{ ...item, price: 900, float: 0.3, paintSeed: 1 }]);
    expect(renamed.prices).toEqual([]);
    expect(renamed.upserted[0]).toMatchObject({ paintSeed: 1, lastMove: 'down' });

    const detail = await store.getItem(item.itemId);
    expect(detail?.item).toMatchObject({ price: 900, float: 0.3, paintSeed: 1 });
    expect(detail?.priceHistory.map((p) => p.price)).toEqual([1000, 1200, 900]);
    const [row] = (await store.queryCatalog({ search: 'redline' })).rows;
    expect(row).toMatchObject({ price: 900, lastMove: 'down' });
  });

  it('removes items, keeps them readable as sold, and keeps totals', async () => {
    const store = await openStore();
    const a = makeItem({ price: 100 });
    const b = makeItem({ price: 250, market_hash_name: 'Glock-18 | Fade (Factory New)' });
    expect((await applyItemUpserts(store, [a, b])).totals).toEqual({ totalItems: 2, totalValue: 350 });
    expect(await store.catalogInfo()).toMatchObject({
      totalItems: 2,
      totalValue: 350,
      lastUpdate: null,
      syncedAt: null,
    });
    // Repriced by the feed, then sold: it is remembered at the price it left at.
    expect((await applyPriceChanges(store, [{ itemId: a.itemId, price: 120 }])).totals).toEqual({
      totalItems: 2,
      totalValue: 370,
    });
    expect(await applyItemRemovals(store, [a.itemId, 424242])).toEqual({
      removed: [a.itemId],
      totals: { totalItems: 1, totalValue: 250 },
    });
    expect(await store.catalogInfo()).toMatchObject({ totalItems: 1, totalValue: 250 });
    const sold = await store.getItem(a.itemId);
    expect(sold).toMatchObject({ item: { ...a, price: 120 }, onSale: false });
    expect(await store.findItemsByIds([a.itemId])).toEqual([{ ...a, price: 120 }]);
    expect((await store.queryCatalog({})).rows.map((r) => r.itemId)).toEqual([b.itemId]);
    expect(await store.queryCatalog({ search: 'redline' })).toMatchObject({ rows: [], total: 0 });
    // Back on sale.
    await applyItemUpserts(store, [a]);
    expect((await store.getItem(a.itemId))?.onSale).toBe(true);
    expect((await store.queryCatalog({ search: 'redline' })).total).toBe(1);
  });

  it('applies a burst of changes of every kind in feed order, as one transaction', async () => {
    const store = await openStore();
    const a = makeItem({ price: 100 });
    const b = makeItem({ price: 200, market_hash_name: 'Glock-18 | Fade (Factory New)' });
    await applyItemUpserts(store, [a, b]);
    const first = packPriceChanges([
      { itemId: a.itemId, price: 110 },
      { itemId: 777_777, price: 5 },
      { itemId: b.itemId, price: 200 },
    ]);
    const last = packPriceChanges([
      { itemId: a.itemId, price: 140 },
      { itemId: b.itemId, price: 190 },
    ]);
    const results = await store.applyItemChanges([
      { kind: 'prices', changes: first },
      { kind: 'removals', itemIds: [a.itemId] },
      { kind: 'upserts', items: [{ ...a, price: 130 }] },
      { kind: 'prices', changes: last },
    ]);
    expect(results.map((entry) => entry.kind)).toEqual(['prices', 'removals', 'upserts', 'prices']);
    // Each change's price before it, in order: NaN for an item not held, its own price for no move.
    const outcome = (i: number, packed: Float64Array) => {
      const entry = results[i] as Extract<(typeof results)[number], { kind: 'prices' }>;
      return { ...priceChangeOutcome(packed, entry.result.previous), totals: entry.result.totals };
    };
    expect([...(results[0] as Extract<(typeof results)[number], { kind: 'prices' }>).result.previous]).toEqual([
      100,
      Number.NaN,
      200,
    ]);
    expect(outcome(0, first)).toMatchObject({
      prices: [{ itemId: a.itemId, price: 110, previous: 100 }],
      unknown: [777_777],
    });
    expect(results[1]).toMatchObject({ result: { removed: [a.itemId], totals: { totalItems: 1, totalValue: 200 } } });
    expect(results[2]).toMatchObject({
      result: { upserted: [{ itemId: a.itemId, price: 130 }], totals: { totalItems: 2, totalValue: 330 } },
    });
    expect(outcome(3, last)).toMatchObject({
      prices: [
        { itemId: a.itemId, price: 140 },
        { itemId: b.itemId, price: 190 },
      ],
      unknown: [],
      totals: { totalValue: 330 },
    });
    expect((await store.getItem(a.itemId))?.item.price).toBe(140);
    expect((await store.getItem(a.itemId))?.onSale).toBe(true);
    expect((await store.queryCatalog({ sort: 'price' })).rows.map((row) => [row.itemId, row.price])).toEqual([
      [a.itemId, 140],
      [b.itemId, 190],
    ]);

    // A group that fails takes the whole burst back: nothing of it is half applied.
    const broken = { ...makeItem(), assetId: null } as unknown as Item;
    await expect(
      store.applyItemChanges([
        { kind: 'prices', changes: packPriceChanges([{ itemId: b.itemId, price: 1 }]) },
        { kind: 'upserts', items: [broken] },
      ]),
    ).rejects.toThrow();
    expect((await store.getItem(b.itemId))?.item.price).toBe(190);
    expect(await store.catalogInfo()).toMatchObject({ totalItems: 2, totalValue: 330 });
    // ...and the writer's running totals went back with it.
    expect((await applyPriceChanges(store, [{ itemId: b.itemId, price: 200 }])).totals).toEqual({
      totalItems: 2,
      totalValue: 340,
    });
    expect(await store.catalogInfo()).toMatchObject({ totalItems: 2, totalValue: 340 });
  });
});

// ---- trades

describe('trades', () => {
  it('stores trades monotonically, once per status on the timeline', async () => {
    const store = await openStore();
    const pending = makeTrade({ tradeId: 'T1', status: 'PENDING' });
    expect(await store.upsertTrades([pending], 'buy')).toEqual({
      changed: [pending],
      newStatuses: [{ tradeId: 'T1', status: 'PENDING' }],
      newlyFailed: [],
    });
    // A duplicate changes nothing.
    expect(await store.upsertTrades([pending], 'poll')).toEqual({ changed: [], newStatuses: [], newlyFailed: [] });

    const sent = makeTrade({ tradeId: 'T1', status: 'SENT', offerId: 'O1', updatedAt: '2026-03-01T10:01:00.000Z' });
    const completed = makeTrade({
      tradeId: 'T1',
      status: 'COMPLETED',
      offerId: 'O1',
      updatedAt: '2026-03-01T10:05:00.000Z',
      completedAt: '2026-03-01T10:05:00.000Z',
    });
    // Out of order: COMPLETED first, the late SENT is ignored.
    expect((await store.upsertTrades([completed], 'poll')).newStatuses).toEqual([
      { tradeId: 'T1', status: 'COMPLETED' },
    ]);
    expect(await store.upsertTrades([sent], 'feed')).toEqual({ changed: [], newStatuses: [], newlyFailed: [] });
    expect((await store.getTrade('T1'))?.trade.status).toBe('COMPLETED');

    // Same status, new details (webhookStatus): updated, no new timeline entry.
    const withWebhook = { ...completed, webhookStatus: 'sent' as const };
    expect(await store.upsertTrades([withWebhook], 'poll')).toEqual({
      changed: [withWebhook],
      newStatuses: [],
      newlyFailed: [],
    });

    // COMPLETED → REVERSED is allowed; nothing moves a REVERSED trade.
    const reversed = makeTrade({
      ...completed,
      status: 'REVERSED',
      errorCode: 512,
      failReason: 'Buyer reversed trade on Platform',
      rollbackAt: '2026-03-04T00:00:00.000Z',
      updatedAt: '2026-03-04T00:00:00.000Z',
    });
    expect((await store.upsertTrades([reversed], 'poll')).newStatuses).toEqual([{ tradeId: 'T1', status: 'REVERSED' }]);
    expect((await store.upsertTrades([completed, pending], 'poll')).changed).toEqual([]);

    const detail = await store.getTrade('T1');
    expect(detail?.trade).toEqual(reversed);
    expect(detail?.timeline).toEqual([
      { status: 'PENDING', at: NOW, errorCode: null, failReason: null, source: 'buy' },
      { status: 'COMPLETED', at: '2026-03-01T10:05:00.000Z', errorCode: null, failReason: null, source: 'poll' },
      {
        status: 'REVERSED',
        at: '2026-03-04T00:00:00.000Z',
        errorCode: 512,
        failReason: 'Buyer reversed trade on Platform',
        source: 'poll',
      },
    ]);
  });

  it('names the trades a write made failed, not a failure held already and written again', async () => {
    const store = await openStore();
    const failedNew = makeTrade({ tradeId: 'T1', status: 'SENT', webhookStatus: 'failed' });
    const pending = makeTrade({ tradeId: 'T2', status: 'SENT', webhookStatus: null });
    expect((await store.upsertTrades([failedNew, pending], 'poll')).newlyFailed).toEqual(['T1']);

    // A later status over the old failure (the new delivery not settled yet), by read and by frame: no new failure.
    const completed = { ...failedNew, status: 'COMPLETED' as const, updatedAt: '2026-03-01T10:05:00.000Z' };
    expect(await store.upsertTrades([completed], 'poll')).toMatchObject({ changed: [completed], newlyFailed: [] });
    const frame = { externalId: null, offerId: null, failReason: null, errorCode: null };
    const reversed = await store.applyTradeUpdate({ ...frame, tradeId: 'T1', status: 'REVERSED' }, 'feed');
    expect(reversed).toMatchObject({ changed: true, trade: { status: 'REVERSED', webhookStatus: 'failed' } });

    // Delivered, then failed again; and a trade held with no delivery yet that fails.
    const sent = { ...completed, webhookStatus: 'sent' as const };
    expect((await store.upsertTrades([sent], 'poll')).newlyFailed).toEqual([]);
    const again = { ...sent, webhookStatus: 'failed' as const };
    const failedLater = { ...pending, webhookStatus: 'failed' as const };
    expect((await store.upsertTrades([again, failedLater], 'poll')).newlyFailed).toEqual(['T2']);
  });

  it('never moves a final status, except COMPLETED to REVERSED', async () => {
    const store = await openStore();
    await store.upsertTrades(
      [
        makeTrade({ tradeId: 'C', status: 'CANCELLED', errorCode: 504, failReason: 'Trade declined by user' }),
        makeTrade({ tradeId: 'F', status: 'FAILED', errorCode: 500 }),
        makeTrade({ tradeId: 'E', status: 'EXPIRED', errorCode: 503 }),
        makeTrade({ tradeId: 'R', status: 'REJECTED' }),
      ],
      'backfill',
    );
    const attempts = ['C', 'F', 'E', 'R'].flatMap((tradeId) =>
      (['PENDING', 'SENT', 'COMPLETED', 'REVERSED', 'CREATING'] as const).map((status) =>
        makeTrade({ tradeId, status }),
      ),
    );
    expect(await store.upsertTrades(attempts, 'poll')).toEqual({ changed: [], newStatuses: [], newlyFailed: [] });
    for (const [tradeId, status] of [
      ['C', 'CANCELLED'],
      ['F', 'FAILED'],
      ['E', 'EXPIRED'],
      ['R', 'REJECTED'],
    ] as const) {
      expect((await store.getTrade(tradeId))?.trade.status).toBe(status);
      expect(
        await store.applyTradeUpdate(
          { tradeId, status: 'SENT', externalId: null, offerId: null, failReason: null, errorCode: null },
          'feed',
        ),
      ).toMatchObject({
        unknown: false,
        changed: false,
        newStatus: null,
      });
    }
  });

  it('applies feed updates and reports unknown trades', async () => {
    const store = await openStore();
    const update = {
      tradeId: 'T9',
      status: 'SENT' as const,
      externalId: null,
      offerId: 'O9',
      failReason: null,
      errorCode: null,
    };
    expect(await store.applyTradeUpdate(update, 'feed')).toEqual({ unknown: true, tradeId: 'T9' });
    await store.upsertTrades([makeTrade({ tradeId: 'T9', externalId: 'order-9' })], 'buy');
    const sent = await store.applyTradeUpdate(update, 'feed');
    expect(sent).toMatchObject({
      unknown: false,
      changed: true,
      newStatus: 'SENT',
      trade: { status: 'SENT', offerId: 'O9', externalId: 'order-9' },
    });
    // The same frame again (webhook and feed both deliver): no change, no second notification.
    expect(await store.applyTradeUpdate(update, 'feed')).toMatchObject({ changed: false, newStatus: null });
    const done = await store.applyTradeUpdate({ ...update, status: 'COMPLETED' }, 'feed');
    expect(done).toMatchObject({
      newStatus: 'COMPLETED',
      trade: { status: 'COMPLETED', completedAt: expect.stringMatching(/Z$/) },
    });
    // A late SENT after COMPLETED is ignored.
    expect(await store.applyTradeUpdate(update, 'feed')).toMatchObject({
      changed: false,
      newStatus: null,
      trade: { status: 'COMPLETED' },
    });
    const cancelled = await store.applyTradeUpdate(
      {
        tradeId: 'T9',
        status: 'REVERSED',
        externalId: null,
        offerId: null,
        failReason: 'Seller reversed trade on Platform',
        errorCode: 512,
      },
      'feed',
    );
    expect(cancelled).toMatchObject({
      newStatus: 'REVERSED',
      trade: { status: 'REVERSED', errorCode: 512, offerId: 'O9', rollbackAt: expect.any(String) },
    });
    expect((await store.getTrade('T9'))?.timeline.map((entry) => [entry.status, entry.source])).toEqual([
      ['PENDING', 'buy'],
      ['SENT', 'feed'],
      ['COMPLETED', 'feed'],
      ['REVERSED', 'feed'],
    ]);
  });

  it('queries trades by status, activity, time, ids and webhook state, newest first', async () => {
    const store = await openStore();
    const trades = Array.from({ length: 30 }, (_, i) =>
      makeTrade({
        tradeId: `T${String(i).padStart(2, '0')}`,
        externalId: i % 5 === 0 ? `order-${i}` : null,
        status: (['PENDING', 'SENT', 'COMPLETED', 'CANCELLED', 'FAILED'] as const)[i % 5],
        webhookStatus: i % 3 === 0 ? 'failed' : 'sent',
        createdAt: new Date(Date.UTC(2026, 1, 1, 0, i)).toISOString(),
      }),
    );
    await store.upsertTrades(trades, 'backfill');
    const newestFirst = [...trades].reverse();
    const all = await store.queryTrades({ limit: 10 });
    expect(all.total).toBe(30);
    expect(all.rows.map((t) => t.tradeId)).toEqual(newestFirst.slice(0, 10).map((t) => t.tradeId));
    expect((await store.queryTrades({ offset: 25 })).rows.map((t) => t.tradeId)).toEqual(
      newestFirst.slice(25).map((t) => t.tradeId),
    );
    expect((await store.queryTrades({ statuses: ['COMPLETED', 'FAILED'] })).total).toBe(12);
    const active = await store.queryTrades({ activeOnly: true });
    expect(active.rows.every((t) => t.status === 'PENDING' || t.status === 'SENT')).toBe(true);
    expect(active.total).toBe(12);
    expect((await store.activeTrades()).map((t) => t.tradeId)).toEqual(active.rows.map((t) => t.tradeId));
    expect(
      (await store.queryTrades({ from: '2026-02-01T00:10:00.000Z', to: '2026-02-01T00:12:00.000Z' })).rows.map(
        (t) => t.tradeId,
      ),
    ).toEqual(['T12', 'T11', 'T10']);
    expect((await store.queryTrades({ externalId: 'order-10' })).rows.map((t) => t.tradeId)).toEqual(['T10']);
    expect((await store.queryTrades({ tradeId: 'T07' })).rows.map((t) => t.tradeId)).toEqual(['T07']);
    expect((await store.queryTrades({ webhookFailed: true })).total).toBe(10);
    expect((await store.findTradeByExternalId('order-25'))?.tradeId).toBe('T25');
    expect(await store.findTradeByExternalId('nope')).toBeNull();
    expect(await store.getTrade('nope')).toBeNull();
  });
});

// ---- ledger

describe('ledger', () => {
  it('inserts idempotently by id and queries, newest first', async () => {
    const store = await openStore();
    const entries = Array.from({ length: 20 }, (_, i) =>
      makeLedger(
        i + 1,
        i % 4 === 0
          ? {
              type: 'BUY COMPLETED',
              amount: -500,
              tradeId: `T${i}`,
              market_hash_name: 'AK-47 | Redline (Field-Tested)',
            }
          : {},
      ),
    );
    expect((await store.insertLedger(entries.slice(0, 15))).inserted).toHaveLength(15);
    expect((await store.insertLedger(entries)).inserted.map((e) => e.id)).toEqual([16, 17, 18, 19, 20]);
    expect((await store.insertLedger(entries)).inserted).toEqual([]);

    const page = await store.queryLedger({ limit: 5 });
    expect(page.total).toBe(20);
    expect(page.rows.map((row) => row.id)).toEqual([20, 19, 18, 17, 16]);
    expect(page.rows[0]).toEqual(entries[19]);
    expect((await store.queryLedger({ types: ['BUY COMPLETED'] })).rows.map((row) => row.id)).toEqual([
      17, 13, 9, 5, 1,
    ]);
    expect((await store.queryLedger({ tradeId: 'T8' })).rows.map((row) => row.id)).toEqual([9]);
    expect(
      (await store.queryLedger({ from: at(entries, 2).createdAt, to: at(entries, 4).createdAt })).rows.map(
        (row) => row.id,
      ),
    ).toEqual([5, 4, 3]);
    expect(await store.latestLedgerCreatedAt()).toBe(at(entries, 19).createdAt);

    const series = await store.balanceSeries({});
    expect(series).toHaveLength(20);
    expect(series[0]).toEqual({ at: at(entries, 0).createdAt, balance: at(entries, 0).balanceAfter });
    expect(series[19]).toEqual({ at: at(entries, 19).createdAt, balance: at(entries, 19).balanceAfter });
  });

  it('starts empty', async () => {
    const store = await openStore();
    expect(await store.latestLedgerCreatedAt()).toBeNull();
    expect(await store.balanceSeries({})).toEqual([]);
  });
});

// ---- recipients, alerts, meta

describe('recipients, alert rules, firings, meta', () => {
  it('saves, renames and deletes recipients', async () => {
    const store = await openStore();
    const tradeUrl = 'https://steamcommunity.com/tradeoffer/new/?partner=12345678&token=AbCd1234';
    const bob = await store.saveRecipient({ label: 'Bob', tradeUrl });
    const alice = await store.saveRecipient({ label: 'alice', tradeUrl });
    expect(bob).toEqual({ id: expect.any(String), label: 'Bob', tradeUrl, createdAt: expect.stringMatching(/Z$/) });
    expect((await store.listRecipients()).map((r) => r.label)).toEqual(['alice', 'Bob']);
    const renamed = await store.saveRecipient({ id: bob.id, label: 'Robert', tradeUrl });
    expect(renamed).toEqual({ ...bob, label: 'Robert' });
    expect(await store.getRecipient(bob.id)).toEqual(renamed);
    expect(await store.deleteRecipient(alice.id)).toEqual({ deleted: true });
    expect(await store.deleteRecipient(alice.id)).toEqual({ deleted: false });
    expect(await store.listRecipients()).toEqual([renamed]);
  });

  it('saves alert rules, keeps spend on update, dedupes firings', async () => {
    const store = await openStore();
    const rule = await store.saveAlertRule({ name: 'Cheap redlines', namePattern: 'redline', maxPrice: 2000 });
    expect(rule).toMatchObject({
      name: 'Cheap redlines',
      enabled: true,
      // An older caller's name pattern is folded into the catalog's filters.
      filters: { search: 'redline', phase: null, stickerNames: [], seeds: [] },
      maxPrice: 2000,
      autoBuy: { enabled: false, recipientId: null, spendCap: 0, dailyCap: 0, spent: 0 },
    });
    const boughtA = {
      externalId: 'auto-a',
      ruleId: rule.id,
      itemId: 6,
      price: 1500,
      at: '2026-01-01T00:00:00.000Z',
      state: 'bought',
      tradeId: 'T0',
      error: null,
    } as const;
    expect(await store.settleAutoBuy(boughtA)).toEqual({ counted: true, earlier: null, firing: null });
    const updated = await store.saveAlertRule({
      id: rule.id,
      name: 'Redlines',
      namePattern: 'redline',
      autoBuy: { enabled: true, recipientId: 'r1', spendCap: 10_000, dailyCap: 5000 },
    });
    expect(updated).toMatchObject({
      id: rule.id,
      name: 'Redlines',
      createdAt: rule.createdAt,
      autoBuy: { enabled: true, spent: 1500 },
    });
    expect(await store.setAlertRuleEnabled(rule.id, false)).toMatchObject({ enabled: false });
    expect(await store.listAlertRules()).toEqual([{ ...updated, enabled: false }]);

    const firing = {
      ruleId: rule.id,
      ruleName: 'Redlines',
      itemId: 7,
      market_hash_name: 'AK-47 | Redline (Field-Tested)',
      price: 1500,
    };
    const first = await store.recordFiring(firing);
    if (!first) throw new Error('first firing not recorded');
    expect(first).toMatchObject({ ...firing, acknowledged: false, autoBuy: null, firedAt: expect.any(String) });
    expect(await store.recordFiring(firing)).toBeNull(); // same rule, item and price
    const cheaper = await store.recordFiring({ ...firing, price: 1400 });
    if (!cheaper) throw new Error('cheaper firing not recorded');
    expect(await store.unacknowledgedFiringCount()).toBe(2);
    expect(await store.acknowledgeFiring(first.id)).toMatchObject({ acknowledged: true });
    expect((await store.listFirings({ unacknowledgedOnly: true })).map((f) => f.id)).toEqual([cheaper.id]);
    expect(await store.setFiringAutoBuy(cheaper.id, { tradeId: null, error: 'refused' })).toMatchObject({
      autoBuy: { tradeId: null, error: 'refused' },
    });
    expect(await store.autoBuyDay('2000-01-01T00:00:00.000Z')).toEqual([{ ruleId: rule.id, spent: 1500, skipped: 0 }]);
    expect(await store.acknowledgeFiring(cheaper.id)).toMatchObject({ acknowledged: true });
    expect(await store.unacknowledgedFiringCount()).toBe(0);
    expect(await store.deleteFiringsForRule(rule.id)).toEqual({ deleted: 2 });
    expect(await store.recordFiring(firing)).not.toBeNull(); // re-armed
    expect(await store.deleteAlertRule(rule.id)).toEqual({ deleted: true });
    expect(await store.listAlertRules()).toEqual([]);
    expect(await store.listFirings({})).toHaveLength(1); // history outlives the rule
  });

  it("keeps each auto-buy's outcome with its rule's spend and its firing, once per order id; a journaled buy whose outcome was not stored is in flight at the next open", async () => {
    const file = join(tempDir(), 'accounts', 'm1.sqlite');
    const journal = `${file}.auto-buys`;
    const lines = () =>
      readFileSync(journal, 'utf8')
        .split('\n')
        .filter((line) => line !== '');
    const store = await openStore(file);
    const rule = await store.saveAlertRule({ name: 'Knives', namePattern: 'knife', maxPrice: 5000 });
    const at = '2026-03-01T10:00:00.000Z';
    const later = '2026-03-01T11:00:00.000Z';
    const buy = (externalId: string, itemId: number, when = at) => ({
      externalId,
      ruleId: rule.id,
      itemId,
      price: 1000,
      at: when,
    });
    const states = async (s: LocalStore) => (await s.unresolvedAutoBuys()).map((r) => [r.externalId, r.state]);
    const firing = await store.recordFiring({
      ruleId: rule.id,
      ruleName: rule.name,
      itemId: 1,
      market_hash_name: 'Knife 1',
      price: 1000,
    });
    // Journaled before their requests leave; nothing in the table yet.
    for (const [id, itemId] of [
      ['auto-1', 1],
      ['auto-2', 2],
      ['auto-3', 3],
    ] as const)
      store.journalAutoBuy(buy(id, itemId));
    expect(lines()).toHaveLength(3);
    expect(await states(store)).toEqual([]);

    expect(await store.settleAutoBuy({ ...buy('auto-1', 1), state: 'bought', tradeId: 'T1', error: null })).toEqual({
      counted: true,
      earlier: null,
      firing: expect.objectContaining({
        id: firing?.id,
        autoBuy: { tradeId: 'T1', error: null, skipped: null, dryRun: false },
      }) as unknown,
    });
    // Bought is final: a later attempt at the same order id is not counted again.
    expect(
      await store.settleAutoBuy({ ...buy('auto-1', 1, later), state: 'bought', tradeId: 'T1', error: null }),
    ).toEqual({
      counted: false,
      earlier: expect.objectContaining({ state: 'bought', tradeId: 'T1', at }) as unknown,
      firing: null,
    });
    await store.settleAutoBuy({ ...buy('auto-2', 2), state: 'unknown', tradeId: null, error: 'no answer' });
    expect(await states(store)).toEqual([['auto-2', 'unknown']]);
    expect(lines()).toHaveLength(3); // auto-3's outcome is not stored yet

    // The app stops with auto-3's request out; a line the stop cut short was never a sent buy.
    await store.close();
    appendFileSync(journal, '{"externalId":"auto-cut","ruleId":"');
    const reopened = await openStore(file);
    expect(await states(reopened)).toEqual([
      ['auto-2', 'unknown'],
      ['auto-3', 'in_flight'],
    ]);
    expect(lines()).toEqual([]); // replayed into the table
    // Looked up: one was bought, the other not.
    await reopened.settleAutoBuy({ ...buy('auto-2', 2), state: 'bought', tradeId: 'T2', error: null });
    await reopened.settleAutoBuy({ ...buy('auto-3', 3), state: 'not_bought', tradeId: null, error: 'no trade' });
    expect(await states(reopened)).toEqual([]);
    expect((await reopened.listAlertRules())[0]?.autoBuy.spent).toBe(2000);
    expect(await reopened.autoBuyDay('2026-03-01T00:00:00.000Z')).toEqual([
      { ruleId: rule.id, spent: 2000, skipped: 0 },
    ]);
    expect(await reopened.autoBuyDay('2026-03-02T00:00:00.000Z')).toEqual([]);

    // New attempts (a re-armed rule) whose outcomes were not stored: the not bought order id is in flight again,
    // the bought one stays bought.
    reopened.journalAutoBuy(buy('auto-3', 3, later));
    reopened.journalAutoBuy(buy('auto-1', 1, later));
    await reopened.close();
    const third = await openStore(file);
    expect(await states(third)).toEqual([['auto-3', 'in_flight']]);
    // Every journaled buy's outcome stored: the journal is emptied.
    third.journalAutoBuy(buy('auto-4', 4));
    third.journalAutoBuy(buy('auto-5', 5));
    await third.settleAutoBuy({ ...buy('auto-4', 4), state: 'not_bought', tradeId: null, error: 'item_unavailable' });
    expect(lines()).toHaveLength(2);
    await third.settleAutoBuy({ ...buy('auto-5', 5), state: 'not_bought', tradeId: null, error: 'item_unavailable' });
    expect(lines()).toEqual([]);
  });

  it("an account file from before auto-buy records keeps the day's spend its firings recorded", async () => {
    const file = join(tempDir(), 'v21.sqlite');
    const store = await LocalStore.open({ file });
    const rule = await store.saveAlertRule({ name: 'Knives', namePattern: 'knife', maxPrice: 5000 });
    const firing = await store.recordFiring({
      ruleId: rule.id,
      ruleName: rule.name,
      itemId: 42,
      market_hash_name: 'Knife',
      price: 1200,
      firedAt: '2026-03-01T10:00:00.000Z',
    });
    await store.setFiringAutoBuy(firing?.id as string, { tradeId: 'T42', error: null });
    await store.recordFiring({
      ruleId: rule.id,
      ruleName: rule.name,
      itemId: 43,
      market_hash_name: 'Knife',
      price: 900,
      firedAt: '2026-03-01T10:00:01.000Z',
    });
    await store.close();
    // What a schema-21 build left: no auto_buys table.
    const db = new Database(file);
    db.exec('DROP TABLE auto_buys');
    db.pragma('user_version = 21');
    db.close();
    const reopened = await LocalStore.open({ file });
    try {
      expect(reopened.migratedFrom).toBe(21);
      expect(await reopened.autoBuyDay('2026-03-01T00:00:00.000Z')).toEqual([
        { ruleId: rule.id, spent: 1200, skipped: 0 },
      ]);
      expect(await reopened.unresolvedAutoBuys()).toEqual([]);
      // Its order id is the one auto-buy makes: a later attempt at it is not counted again.
      const again = {
        externalId: `auto-${rule.id.slice(0, 12)}-42-1200`,
        ruleId: rule.id,
        itemId: 42,
        price: 1200,
        at: '2026-03-01T11:00:00.000Z',
      };
      expect(await reopened.settleAutoBuy({ ...again, state: 'bought', tradeId: 'T42', error: null })).toMatchObject({
        counted: false,
        earlier: { state: 'bought', tradeId: 'T42' },
      });
    } finally {
      await reopened.close();
    }
  });

  it('keeps meta across reopening', async () => {
    const file = join(tempDir(), 'meta.sqlite');
    const store = await LocalStore.open({ file });
    await store.setMeta('feed.cursor', { seq: 42 });
    expect(await store.getMeta('feed.cursor')).toEqual({ seq: 42 });
    expect(await store.getMeta('missing')).toBeNull();
    await store.close();
    const again = await openStore(file);
    expect(await again.getMeta('feed.cursor')).toEqual({ seq: 42 });
  });

  it("checks each call's input in the worker: bad input is refused with a clear error and nothing is stored", async () => {
    const store = await openStore();
    await expect(store.queryCatalog({ sort: 'colour' } as unknown as CatalogQuery)).rejects.toThrow(
      /queryCatalog: .*sort/s,
    );
    await expect(store.queryTrades({ limit: -1 })).rejects.toThrow(/queryTrades: .*limit/s);
    await expect(store.saveRecipient({ label: '', tradeUrl: 'x' })).rejects.toThrow(/saveRecipient: .*label/s);
    await expect(store.saveSearch({ name: 'x'.repeat(500), query: {} })).rejects.toThrow(/saveSearch: .*name/s);
    expect(await store.listRecipients()).toEqual([]);
    expect((await store.listSearches()).searches).toEqual([]);
  });

  it('serves the listed calls only, each on its own thread', async () => {
    const file = join(tempDir(), 'guard.sqlite');
    await (await openStore(file)).close();
    const { client } = await WorkerClient.start({ entry: resolveWorkerEntry(), init: { role: 'reader', file } });
    try {
      // The service's own members (its connection, its statement cache) are not calls.
      await expect(client.call('prepare', ['DELETE FROM meta'])).rejects.toThrow(/unknown reader method prepare/);
      await expect(client.call('close', [])).rejects.toThrow(/unknown reader method close/);
      // A writer's call is not served by a reader.
      await expect(client.call('setMeta', ['k', 1])).rejects.toThrow(/unknown reader method setMeta/);
      expect(await client.call('getMeta', ['k'])).toBeNull();
    } finally {
      await client.close();
    }
  });

  it('rejects calls after close', async () => {
    const store = await LocalStore.open({ file: join(tempDir(), 'closed.sqlite') });
    await store.close();
    await expect(store.catalogInfo()).rejects.toThrow(/closed/);
  });
});
