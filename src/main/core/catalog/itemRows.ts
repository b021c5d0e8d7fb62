/** An item's row in `items`, its hash, and the catalog row the UI shows, built from the stored item. No SQLite here. */
import type { Item } from '../../../shared/api';
import { RARITY_COLORS } from '../../../shared/api';
import type { CatalogRow, MarketStanding } from '../../../shared/ipc';
import { toUtcIso } from '../../../shared/time';

export const STATTRAK_MARK = 'StatTrak™';
export const SOUVENIR_PREFIX = 'Souvenir ';
/** Separator of the sticker names stored as text (names never hold a newline). */
export const NAME_LIST_SEPARATOR = '\n';

const RARITY_RANK = new Map<string, number>(RARITY_COLORS.map((color, index) => [color, index]));

export function rarityRankOf(color: string | null): number | null {
  return color === null ? null : (RARITY_RANK.get(color.toLowerCase()) ?? null);
}

/**
 * A 53-bit hash of an item's JSON text (UTF-8 bytes): a sync parses only the items whose hash differs from the stored one.
 * Two MurmurHash3 lanes (the length seeds them), 32 + 21 of their bits kept. Plain JS: a third of the cost of Node's one-shot
 * crypto.hash (sha1 or md5) on a ~770-byte item, 0.43 against 1.5 µs. Not a defence against a hostile server, the data's source anyway.
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

/** The columns of `items` an item sets, in ITEM_COLUMNS order (positional binding is ~3× faster than named). */
export const ITEM_COLUMNS = [
  'itemId',
  'name',
  'price',
  'float',
  'paintSeed',
  'phase',
  'rarity',
  'statTrak',
  'souvenir',
  'stickerCount',
  'keyChainCount',
  'stickerNames',
  'keyChainNames',
  'keyChainPatterns',
  'hash',
] as const;

/** The values of ITEM_COLUMNS for an item whose JSON text's hash is known (name lists joined by newlines, charm patterns by commas). */
export function itemValues(item: Item, hash: number): (string | number | null)[] {
  const name = item.market_hash_name;
  return [
    item.itemId,
    name,
    item.price,
    item.float,
    item.paintSeed,
    item.phase,
    rarityRankOf(item.rarityColor),
    name.includes(STATTRAK_MARK) ? 1 : 0,
    name.startsWith(SOUVENIR_PREFIX) ? 1 : 0,
    item.stickers.length,
    item.keyChains.length,
    item.stickers.map((sticker) => sticker.name).join(NAME_LIST_SEPARATOR),
    item.keyChains.map((charm) => charm.name).join(NAME_LIST_SEPARATOR),
    item.keyChains.flatMap((charm) => (typeof charm.pattern === 'number' ? [charm.pattern] : [])).join(','),
    hash,
  ];
}

/** An item's text without its price, whose one home is the row: the list's text cut at `"price":<digits>,`, or written anew. */
export function storedJson(json: string, item: Item): string {
  const cut = json.replace(/"price":\d+,/, '');
  if (cut.length < json.length && !cut.includes('"price"')) return cut;
  const { price: _price, ...rest } = item;
  return JSON.stringify(rest);
}

export function itemOf(json: string, price: number): Item {
  // Set on the parsed object rather than spread into a copy (a page parses 200 of them); price comes last either way.
  const item = JSON.parse(json) as Item;
  item.price = price;
  return item;
}

/** What the catalog shows of an item, with its listing time, last move and market standing (null: not computed here). */
export function catalogRowOf(
  item: Item,
  listedAt: number,
  lastMove: number,
  market: MarketStanding | null = null,
): CatalogRow {
  const name = item.market_hash_name;
  return {
    itemId: item.itemId,
    assetId: item.assetId,
    market_hash_name: name,
    phase: item.phase,
    price: item.price,
    float: item.float,
    paintSeed: item.paintSeed,
    rarityColor: item.rarityColor,
    img: item.img,
    stickerCount: item.stickers.length,
    stickerNames: item.stickers.map((sticker) => sticker.name),
    keyChainNames: item.keyChains.map((charm) => charm.name),
    statTrak: name.includes(STATTRAK_MARK),
    souvenir: name.startsWith(SOUVENIR_PREFIX),
    listedAt: toUtcIso(listedAt),
    lastMove: lastMove > 0 ? 'up' : lastMove < 0 ? 'down' : null,
    market,
  };
}

const nullableNumber = (value: unknown): boolean => value === null || typeof value === 'number';
const nullableString = (value: unknown): boolean => value === null || typeof value === 'string';

function namedList(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (const entry of value as unknown[]) {
    if (typeof entry !== 'object' || entry === null || typeof (entry as { name?: unknown }).name !== 'string')
      return false;
  }
  return true;
}

/** The hand check every parsed item gets: the fields the cache stores and indexes. Returns what is wrong, or null. */
export function quickItemCheck(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not an object';
  const o = value as Record<string, unknown>;
  if (typeof o['itemId'] !== 'number' || !Number.isSafeInteger(o['itemId']) || o['itemId'] <= 0)
    return 'itemId is not a positive integer';
  if (typeof o['price'] !== 'number' || !Number.isSafeInteger(o['price'])) return 'price is not an integer';
  if (typeof o['assetId'] !== 'string') return 'assetId is not a string';
  if (typeof o['market_hash_name'] !== 'string') return 'market_hash_name is not a string';
  if (typeof o['classId'] !== 'string' || typeof o['instanceId'] !== 'string')
    return 'classId/instanceId are not strings';
  if (!nullableNumber(o['float']) || !nullableNumber(o['paintSeed']) || !nullableNumber(o['paintIndex']))
    return 'float/paintSeed/paintIndex are not numbers';
  if (!nullableString(o['phase']) || !nullableString(o['img']) || !nullableString(o['rarityColor']))
    return 'phase/img/rarityColor are not strings';
  if (!namedList(o['stickers']) || !namedList(o['keyChains']))
    return 'stickers/keyChains are not lists of named entries';
  return null;
}
