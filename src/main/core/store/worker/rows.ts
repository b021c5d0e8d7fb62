/**
 * Mapping between API objects and table rows, shared by the writer and the
 * reader threads. No SQLite access here.
 */
import type { BalanceTransaction, Item, Trade, TradeStatus } from '../../../../shared/api';
import { RARITY_COLORS } from '../../../../shared/api';
import type { AlertFiring, AppSettings, CatalogRow, Recipient } from '../../../../shared/ipc';

export const STATTRAK_MARK = 'StatTrak™';
export const SOUVENIR_PREFIX = 'Souvenir ';
/** Separator of the sticker / key chain name lists stored as text (names never hold a newline). */
export const NAME_LIST_SEPARATOR = '\n';

export function isoOf(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

// ---- Items

const RARITY_RANK = new Map<string, number>(RARITY_COLORS.map((color, index) => [color, index]));

export function rarityRankOf(color: string | null): number | null {
  if (color === null) return null;
  return RARITY_RANK.get(color.toLowerCase()) ?? null;
}

export function isStatTrak(name: string): boolean {
  return name.includes(STATTRAK_MARK);
}

export function isSouvenir(name: string): boolean {
  return name.startsWith(SOUVENIR_PREFIX);
}

/** The derived columns of an item row, in the order of ITEM_COLUMNS. */
export interface ItemColumns {
  itemId: number;
  assetId: string;
  name: string;
  phase: string | null;
  price: number;
  float: number | null;
  paintSeed: number | null;
  paintIndex: number | null;
  rarityColor: string | null;
  rarity_rank: number | null;
  img: string | null;
  statTrak: number;
  souvenir: number;
  stickerCount: number;
  stickerNames: string;
  keyChainNames: string;
  keyChainCount: number;
  /** hashJson(json): what a sync compares to find changed items without parsing them. */
  hash: number;
  /** The item's JSON text as stored in item_json (not in items). */
  json: string;
}

/** Columns of `items` that come from the item itself (not name_id, listed_at, updated_at, last_move). */
export const ITEM_COLUMNS = [
  'itemId',
  'assetId',
  'name',
  'phase',
  'price',
  'float',
  'paintSeed',
  'paintIndex',
  'rarityColor',
  'rarity_rank',
  'img',
  'statTrak',
  'souvenir',
  'stickerCount',
  'stickerNames',
  'keyChainNames',
  'keyChainCount',
  'hash',
] as const satisfies readonly (keyof ItemColumns)[];

/**
 * The values of ITEM_COLUMNS in order, for positional binding (better-sqlite3
 * binds positional parameters ~3× faster than named ones, which matters at 1M rows).
 */
export function itemValues(c: ItemColumns): [
  number, string, string, string | null, number, number | null, number | null, number | null, string | null,
  number | null, string | null, number, number, number, string, string, number, number,
] {
  return [
    c.itemId, c.assetId, c.name, c.phase, c.price, c.float, c.paintSeed, c.paintIndex, c.rarityColor,
    c.rarity_rank, c.img, c.statTrak, c.souvenir, c.stickerCount, c.stickerNames, c.keyChainNames, c.keyChainCount, c.hash,
  ];
}

/** Change-log entries (item_changes) kept for readers' catalog indexes: more than one refresh of theirs takes. */
export const CHANGE_LOG_KEEP = 250_000;

/**
 * A 53-bit hash of an item's JSON text (its UTF-8 bytes): a sync hashes each
 * item's bytes as they arrive and parses only those whose hash differs from the
 * stored one. Two 32-bit MurmurHash3 lanes with different constants run
 * over every byte (MurmurHash3's block, tail and final steps; the length seeds
 * them), and 32 + 21 of their bits are kept: two texts of one item
 * collide with negligible odds. In plain JavaScript it costs half of a native
 * SHA-1 call (~0.7 µs vs ~1.4 µs per 560-byte item: the call's overhead, not the
 * digest, was the cost). Not a defence against a hostile server, which is the
 * source of the data anyway.
 */
export function hashJson(json: string | Uint8Array): number {
  const bytes = typeof json === 'string' ? Buffer.from(json, 'utf8') : json;
  return hashBytes(bytes, 0, bytes.length);
}

/** The view hashBytes reads words through: kept while the same buffer comes back (a sync's chunk holds ~450 items). */
let wordsOf: Uint8Array | null = null;
let words: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));

/** hashJson of bytes [start, end) of `bytes`, without a copy. */
export function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  if (bytes !== wordsOf) {
    wordsOf = bytes;
    words = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  const view = words;
  let h1 = 0x9747b28c ^ (end - start);
  let h2 = 0x85ebca6b ^ (end - start);
  let i = start;
  for (const last = end - 4; i <= last; i += 4) {
    // One little-endian load per word, at any alignment (four byte loads cost ~1.4× as much).
    const word = view.getInt32(i, true);
    let k1 = Math.imul(word, 0xcc9e2d51);
    k1 = Math.imul((k1 << 15) | (k1 >>> 17), 0x1b873593);
    h1 ^= k1;
    h1 = (Math.imul((h1 << 13) | (h1 >>> 19), 5) + 0xe6546b64) | 0;
    let k2 = Math.imul(word, 0x85ebca77);
    k2 = Math.imul((k2 << 13) | (k2 >>> 19), 0xc2b2ae3d);
    h2 ^= k2;
    h2 = (Math.imul((h2 << 17) | (h2 >>> 15), 5) + 0x561ccd1b) | 0;
  }
  let tail = 0;
  for (let j = end - 1; j >= i; j--) tail = (tail << 8) | (bytes[j] as number);
  const t1 = Math.imul(tail, 0xcc9e2d51);
  h1 ^= Math.imul((t1 << 15) | (t1 >>> 17), 0x1b873593);
  const t2 = Math.imul(tail, 0x85ebca77);
  h2 ^= Math.imul((t2 << 13) | (t2 >>> 19), 0xc2b2ae3d);
  return (finalMix(h1) >>> 0) * 0x200000 + (finalMix(h2) >>> 11);
}

/** MurmurHash3's finalizer: every input bit affects every output bit. */
function finalMix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

function joinNames(list: readonly { name: string }[]): string {
  if (list.length === 0) return '';
  if (list.length === 1) return (list[0] as { name: string }).name;
  return list.map((entry) => entry.name).join(NAME_LIST_SEPARATOR);
}

/** The row of an item whose JSON text (as received or stored) and its hash are known. */
export function itemRow(item: Item, json: string, hash: number): ItemColumns {
  return {
    itemId: item.itemId,
    assetId: item.assetId,
    name: item.market_hash_name,
    phase: item.phase,
    price: item.price,
    float: item.float,
    paintSeed: item.paintSeed,
    paintIndex: item.paintIndex,
    rarityColor: item.rarityColor,
    rarity_rank: rarityRankOf(item.rarityColor),
    img: item.img,
    statTrak: isStatTrak(item.market_hash_name) ? 1 : 0,
    souvenir: isSouvenir(item.market_hash_name) ? 1 : 0,
    stickerCount: item.stickers.length,
    stickerNames: joinNames(item.stickers),
    keyChainNames: joinNames(item.keyChains),
    keyChainCount: item.keyChains.length,
    hash,
    json,
  };
}

/**
 * The row of an item that arrived as an object (a feed frame, after its schema
 * check): stored as JSON.stringify of it, which is the server's own text when the
 * server writes keys in the spec's order (so the next sync sees it unchanged).
 */
export function itemColumns(item: Item): ItemColumns {
  const json = JSON.stringify(item);
  return itemRow(item, json, hashJson(json));
}

const PRICE_KEY = '"price":';

/**
 * Where the number of the one `"price":` key of an item's JSON text is, [start, end); null when the key is
 * missing or there twice, or no number follows it (digits, with a fraction or exponent if the server writes
 * one, as in `67.0`). A `"price":` inside a string value cannot match: a quote there is escaped.
 */
export function priceSpan(json: string): [number, number] | null {
  const at = json.indexOf(PRICE_KEY);
  if (at <= 0 || json.indexOf(PRICE_KEY, at + PRICE_KEY.length) >= 0) return null;
  const start = at + PRICE_KEY.length;
  let end = start;
  const isDigit = (c: number) => c >= 48 && c <= 57;
  while (isDigit(json.charCodeAt(end))) end++;
  if (end === start) return null;
  if (json.charCodeAt(end) === 46 /* . */) while (isDigit(json.charCodeAt(++end)));
  if ((json.charCodeAt(end) | 32) === 101 /* e or E */) {
    end++;
    if (json.charCodeAt(end) === 43 || json.charCodeAt(end) === 45) end++;
    while (isDigit(json.charCodeAt(end))) end++;
  }
  const next = json.charCodeAt(end);
  return next === 44 || next === 125 ? [start, end] : null;
}

/**
 * An item's JSON text (`json`, JSON.stringify of it) at another price: the digits of its one `"price":` key
 * swapped, else stringified anew; the same text either way (a spread keeps the key's place). A re-listing
 * at a new price is compared with the stored item this way: half the cost of a second stringify.
 */
export function jsonAtPrice(item: Item, json: string, price: number): string {
  const span = priceSpan(json);
  if (span && json.slice(span[0], span[1]) === String(item.price)) return `${json.slice(0, span[0])}${price}${json.slice(span[1])}`;
  return JSON.stringify({ ...item, price });
}

/**
 * Whether two texts of an item differ at most in the number of their one price: a sync keeps the stored
 * text of such an item and rewrites only its row's price. Byte for byte otherwise (another formatting of
 * the same item counts as changed, which only costs a full rewrite).
 */
export function differOnlyInPrice(a: string, b: string): boolean {
  const x = priceSpan(a);
  const y = priceSpan(b);
  return x !== null && y !== null && x[0] === y[0] && a.slice(0, x[0]) === b.slice(0, y[0]) && a.slice(x[1]) === b.slice(y[1]);
}

/**
 * The catalog as readers see it: `items` with the live changes of `item_prices`
 * and `item_prices_pending` laid over (migrations 006, 013, 016, 017): a live price,
 * move and listing time, and the items removed live left out (`removed_at`:
 * their rows wait for the writer's fold). A pending row (written since the last
 * fold) wins over an override: a price change carries only price and move, a
 * re-listing (`listed_at` set) or a removal (`removed_at` set) also replaces the
 * override's listing state. An overridden item's hash reads 0: its stored JSON no
 * longer has its price, so the next sync reads it again. Dropped and recreated
 * around a bulk sync's table swap.
 */
export const CREATE_ITEMS_LIVE_VIEW = `
  CREATE VIEW items_live AS
  SELECT i.itemId AS itemId, i.assetId AS assetId, i.name_id AS name_id, i.name AS name, i.phase AS phase,
         coalesce(p.price, o.price, i.price) AS price, i.float AS float, i.paintSeed AS paintSeed, i.paintIndex AS paintIndex,
         i.rarityColor AS rarityColor, i.rarity_rank AS rarity_rank, i.img AS img, i.statTrak AS statTrak,
         i.souvenir AS souvenir, i.stickerCount AS stickerCount, i.stickerNames AS stickerNames,
         i.keyChainNames AS keyChainNames, i.keyChainCount AS keyChainCount, coalesce(p.listed_at, o.listed_at, i.listed_at) AS listed_at,
         coalesce(p.updated_at, o.updated_at, i.updated_at) AS updated_at, coalesce(p.last_move, o.last_move, i.last_move) AS last_move,
         CASE WHEN o.itemId IS NULL AND p.itemId IS NULL THEN i.hash ELSE 0 END AS hash
  FROM items i LEFT JOIN item_prices o ON o.itemId = i.itemId LEFT JOIN item_prices_pending p ON p.itemId = i.itemId
  WHERE p.removed_at IS NULL AND (o.removed_at IS NULL OR p.listed_at IS NOT NULL);
`;

/**
 * Items removed live whose rows wait for the writer's fold (writer.foldRemovals), with the price they left
 * at: a pending removal, or a folded one no pending re-listing undid (migration 017).
 */
export const CREATE_LIVE_REMOVALS_VIEW = `
  CREATE VIEW live_removals AS
  SELECT itemId, price, removed_at FROM item_prices_pending WHERE removed_at IS NOT NULL
  UNION ALL
  SELECT o.itemId AS itemId, o.price AS price, o.removed_at AS removed_at
  FROM item_prices o LEFT JOIN item_prices_pending p ON p.itemId = o.itemId
  WHERE o.removed_at IS NOT NULL AND p.removed_at IS NULL AND p.listed_at IS NULL;
`;

/** The columns a catalog row is read from. */
export const CATALOG_ROW_SELECT =
  'itemId, assetId, name, phase, price, float, paintSeed, rarityColor, img, stickerCount, stickerNames, keyChainNames, statTrak, souvenir, listed_at, last_move';

export interface CatalogRowRecord {
  itemId: number;
  assetId: string;
  name: string;
  phase: string | null;
  price: number;
  float: number | null;
  paintSeed: number | null;
  rarityColor: string | null;
  img: string | null;
  stickerCount: number;
  stickerNames: string;
  keyChainNames: string;
  statTrak: number;
  souvenir: number;
  listed_at: number;
  last_move: number;
}

function splitNames(text: string): string[] {
  return text === '' ? [] : text.split(NAME_LIST_SEPARATOR);
}

export function moveOf(lastMove: number): CatalogRow['lastMove'] {
  return lastMove > 0 ? 'up' : lastMove < 0 ? 'down' : null;
}

/** The columns of CATALOG_ROW_SELECT in order, as a statement in raw mode returns them. */
export type CatalogRowValues = [
  itemId: number,
  assetId: string,
  name: string,
  phase: string | null,
  price: number,
  float: number | null,
  paintSeed: number | null,
  rarityColor: string | null,
  img: string | null,
  stickerCount: number,
  stickerNames: string,
  keyChainNames: string,
  statTrak: number,
  souvenir: number,
  listed_at: number,
  last_move: number,
];

/**
 * A catalog row from its columns read as an array: better-sqlite3 builds a row object through
 * V8's API at ~2× the cost of an array, most of reading a page of 200 rows (measured 1.27 → 0.70 ms).
 */
export function catalogRowOf(v: CatalogRowValues): CatalogRow {
  const [itemId, assetId, name, phase, price, float, paintSeed, rarityColor, img, stickerCount, stickerNames, keyChainNames, statTrak, souvenir, listedAt, lastMove] = v;
  return catalogRow({ itemId, assetId, name, phase, price, float, paintSeed, rarityColor, img, stickerCount, stickerNames, keyChainNames, statTrak, souvenir }, listedAt, lastMove);
}

/** A catalog row built straight from an item's columns (no read back), as the writer returns them. */
export function catalogRowFromColumns(c: ItemColumns, listedAt: number, lastMove: number): CatalogRow {
  return catalogRow(c, listedAt, lastMove);
}

/**
 * One object from the row's columns and its listing time and move: a spread copy to add those two
 * (as catalogRowFromColumns once made) cost ~3× the time, a re-listing's largest step.
 */
function catalogRow(c: Omit<CatalogRowRecord, 'listed_at' | 'last_move'>, listedAt: number, lastMove: number): CatalogRow {
  return {
    itemId: c.itemId,
    assetId: c.assetId,
    market_hash_name: c.name,
    phase: c.phase,
    price: c.price,
    float: c.float,
    paintSeed: c.paintSeed,
    rarityColor: c.rarityColor,
    img: c.img,
    stickerCount: c.stickerCount,
    stickerNames: splitNames(c.stickerNames),
    keyChainNames: splitNames(c.keyChainNames),
    statTrak: c.statTrak === 1,
    souvenir: c.souvenir === 1,
    listedAt: isoOf(listedAt),
    lastMove: moveOf(lastMove),
  };
}

// ---- Trades

/** Monotonic order of statuses: a stored trade only moves to a higher rank. */
export const STATUS_RANK: Record<TradeStatus, number> = {
  PENDING: 0,
  CREATING: 0,
  SENT: 1,
  COMPLETED: 2,
  CANCELLED: 2,
  FAILED: 2,
  EXPIRED: 2,
  REJECTED: 2,
  REVERSED: 3,
};

/**
 * Whether a trade stored with `from` may move to `to`: active statuses move
 * up the rank; COMPLETED only to REVERSED; other finals never move.
 */
export function canAdvance(from: TradeStatus, to: TradeStatus): boolean {
  if (from === to) return false;
  if (from === 'COMPLETED') return to === 'REVERSED';
  if (STATUS_RANK[from] >= 2) return false;
  return STATUS_RANK[to] > STATUS_RANK[from];
}

/** The time a status was reached, as far as the trade tells. */
export function statusTimeOf(trade: Trade): string {
  switch (trade.status) {
    case 'PENDING':
    case 'CREATING':
      return trade.createdAt;
    case 'COMPLETED':
      return trade.completedAt ?? trade.updatedAt;
    case 'CANCELLED':
      return trade.cancelledAt ?? trade.updatedAt;
    case 'REVERSED':
      return trade.rollbackAt ?? trade.updatedAt;
    default:
      return trade.updatedAt;
  }
}

export const TRADE_FIELDS = [
  'tradeId',
  'externalId',
  'status',
  'price',
  'itemId',
  'assetId',
  'offerId',
  'tradeUrl',
  'market_hash_name',
  'phase',
  'float',
  'webhookStatus',
  'failReason',
  'errorCode',
  'createdAt',
  'updatedAt',
  'completedAt',
  'cancelledAt',
  'endProtection',
  'rollbackAt',
  'stage',
] as const satisfies readonly (keyof Trade)[];

export const TRADE_SELECT = TRADE_FIELDS.join(', ');

/** A row read with TRADE_SELECT is already a Trade (same names, same types). */
export function tradeOf(row: Record<string, unknown>): Trade {
  const trade = {} as Record<string, unknown>;
  for (const field of TRADE_FIELDS) trade[field] = row[field] ?? null;
  return trade as unknown as Trade;
}

export function sameTrade(a: Trade, b: Trade): boolean {
  return TRADE_FIELDS.every((field) => a[field] === b[field]);
}

// ---- Ledger

export const LEDGER_SELECT = 'id, type, amount, balanceBefore, balanceAfter, tradeId, note, createdAt, market_hash_name, phase';

export function ledgerOf(row: Record<string, unknown>): BalanceTransaction {
  return {
    id: row['id'] as number,
    type: row['type'] as BalanceTransaction['type'],
    amount: row['amount'] as number,
    balanceBefore: row['balanceBefore'] as number,
    balanceAfter: row['balanceAfter'] as number,
    tradeId: (row['tradeId'] as string | null) ?? null,
    note: (row['note'] as string | null) ?? null,
    createdAt: row['createdAt'] as string,
    market_hash_name: (row['market_hash_name'] as string | null) ?? null,
    phase: (row['phase'] as string | null) ?? null,
  };
}

// ---- Recipients, firings, settings

export function recipientOf(row: Record<string, unknown>): Recipient {
  return { id: row['id'] as string, label: row['label'] as string, tradeUrl: row['tradeUrl'] as string, createdAt: row['createdAt'] as string };
}

export const FIRING_SELECT =
  'id, ruleId, ruleName, itemId, market_hash_name, price, firedAt, acknowledged, autoBuyTradeId, autoBuyError, autoBuyDone, autoBuySkipped, autoBuyDryRun';

export function firingOf(row: Record<string, unknown>): AlertFiring {
  return {
    id: row['id'] as string,
    ruleId: row['ruleId'] as string,
    ruleName: row['ruleName'] as string,
    itemId: row['itemId'] as number,
    market_hash_name: row['market_hash_name'] as string,
    price: row['price'] as number,
    firedAt: row['firedAt'] as string,
    acknowledged: row['acknowledged'] === 1,
    autoBuy:
      row['autoBuyDone'] === 1
        ? {
            tradeId: (row['autoBuyTradeId'] as string | null) ?? null,
            error: (row['autoBuyError'] as string | null) ?? null,
            skipped: (row['autoBuySkipped'] as string | null) ?? null,
            dryRun: row['autoBuyDryRun'] === 1,
          }
        : null,
  };
}

export const DEFAULT_SETTINGS: AppSettings = {
  theme: 'dark',
  notifyStatuses: ['COMPLETED', 'CANCELLED', 'FAILED', 'EXPIRED', 'REVERSED', 'REJECTED'],
  notifyAlerts: true,
  alertsPaused: false,
  demoSandbox: false,
  closeToTray: false,
};

export function settingsOf(rows: { key: string; value: string }[]): AppSettings {
  const settings: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  for (const row of rows) {
    if (row.key in DEFAULT_SETTINGS) settings[row.key] = JSON.parse(row.value) as unknown;
  }
  return settings as unknown as AppSettings;
}

// ---- Meta keys

export const META = {
  lastUpdate: 'catalog.lastUpdate',
  syncedAt: 'catalog.syncedAt',
  serverTotalItems: 'catalog.serverTotalItems',
  serverTotalValue: 'catalog.serverTotalValue',
  count: 'catalog.count',
  value: 'catalog.value',
  /** The price history is pruned from this item id on, in run `pruneRun` (priceHistory.ts prune). */
  pruneFrom: 'priceHistory.pruneFrom',
  pruneRun: 'priceHistory.pruneRun',
  /** A merge of price-move runs under way (priceHistory.ts RunMerge), or null. */
  movesMerge: 'priceHistory.merge',
  /** Live price moves in item_changes up to this seq are in price_moves (writer.foldPriceMoves). */
  movesFolded: 'moves.folded',
} as const;

/**
 * Unfolded live price moves that make the writer fold them into price_moves (a new run, priceHistory.ts). A fold
 * costs ~1.2 µs a move inside a writer call: at 100k moves it held live events up 100–150 ms every ~2 s at
 * 50,000 events/s, and each such wait left a backlog that took the busy cores a second or more to drain; 20k
 * moves is ~25 ms. The runs it makes more of are merged (priceHistory.ts).
 */
export const FOLD_MOVES_AT = 20_000;
/**
 * Pending live prices (migration 016) past FOLD_PRICES_AT rows are folded into item_prices an itemId range at a
 * time (from where the last one ended, round the table), checked once per FOLD_PRICES_SLICE pending rows written (price changes, removals, re-listings):
 * the fold's work spread over the calls instead of a spike of every row at once. Each check folds down to a slice
 * below the cap. The cap weighs a commit's two costs: a burst of random changes touches nearly every page of the
 * pending table (more with a larger cap), and a fold's id range touches its share of item_prices' pages (a larger
 * share with a smaller cap). 25k rows: ~200 pages; writer-alone --wal-pages, 2,500 events a call: 0.20 WAL pages
 * an event against 0.33 at 100k rows with the fold that let the table grow.
 */
export const FOLD_PRICES_AT = 25_000;
export const FOLD_PRICES_SLICE = 5_000;
/** The most rows one check folds (a backlog drains a few slices per check). */
export const FOLD_PRICES_MAX_SLICE = 4 * FOLD_PRICES_SLICE;
/** Items removed live (marked, rows kept) past this many are folded into sold_items a slice at a time. */
export const FOLD_REMOVALS_AT = 100_000;
export const FOLD_REMOVALS_SLICE = 10_000;
