/**
 * The sandbox's deterministic on-sale catalog. Item `itemId` of a catalog is a
 * pure function of (seed, itemId, holder count, market size): every item draws from its own
 * stream seeded by `itemSeed(seed, itemId)`, so a catalog streams in constant
 * memory and any single item can be rebuilt on its own.
 */
import { accountIdOf, type Item, type KeyChain, type RarityColor, type Sticker } from '../../shared/api';
import {
  generateKeyChains,
  generateStickers,
  imageUrl,
  keyChainsValue,
  normalizeSticker,
  stickersValue,
  type StickerInput,
} from './attachments';
import { WEAR_BOUNDS } from './cs2Data';
import {
  classIdOf,
  entryByBase,
  entryClassId,
  entryName,
  KNIFE_TABLE,
  pickCumulative,
  pickEntry,
  pickKind,
  syntheticEntry,
  TABLE_BY_KIND,
  type Entry,
  type Phase,
} from './entries';
import { holderPool, inspectDigits, inspectLink, tradeUrlOf, type HolderPool } from './holders';
import { namePool, pickName, SOUVENIR_SHARE, STATTRAK_SHARE, type NamePool } from './namePool';
import { parseMarketHashName, VARIANT_NORMAL, VARIANT_SOUVENIR, VARIANT_STATTRAK, type Variant } from './naming';
import { drawPaintSeed } from './patterns';
import { DEAL_FACTOR, DEAL_SHARE, LISTING_FACTOR } from './pricing';
import { mix32, Rng, seed32 } from './rng';
import { skinValue } from './value';

export interface CatalogOptions {
  seed: number;
  count: number;
  /** Default 1_000_001. */
  firstItemId?: number;
  /** Item image URLs are `${imageBaseUrl}/${kind}/${slug}.svg`. */
  imageBaseUrl: string;
  /** Accounts holding the items; default max(20, count / 200). */
  holderCount?: number;
  /** Listings the market's names are sized for (about one name per 8); default count. */
  marketSize?: number;
}

export const DEFAULT_FIRST_ITEM_ID = 1_000_001;

/** An item given in part (admin upsert): stickers may omit wearPercent, which is derived. */
export type ItemInput = Partial<Omit<Item, 'stickers'>> & { stickers?: readonly StickerInput[] };

interface Context {
  seed: number;
  seedWord: number;
  count: number;
  firstItemId: number;
  imageBase: string;
  pool: HolderPool;
  names: NamePool;
  assetBase: number;
}
const ASSET_REUSE_SHARE = 1e-4;
const ASSET_ID_STRIDE = 40;
/** Instance id of items without stickers or keychains. */
const PLAIN_INSTANCE_ID = '188530139';
const FLOAT_STEPS = 1e9;

function resolve(options: CatalogOptions): Context {
  const { seed, count, imageBaseUrl } = options;
  const firstItemId = options.firstItemId ?? DEFAULT_FIRST_ITEM_ID;
  if (!Number.isSafeInteger(count) || count < 0)
    throw new RangeError(`count must be a non-negative integer, got ${count}`);
  if (!Number.isSafeInteger(firstItemId) || firstItemId < 1)
    throw new RangeError(`firstItemId must be a positive integer, got ${firstItemId}`);
  const holderCount = options.holderCount ?? Math.max(20, Math.floor(count / 200));
  const seedWord = seed32(seed);
  return {
    seed,
    seedWord,
    count,
    firstItemId,
    imageBase: imageBaseUrl.replace(/\/+$/, ''),
    pool: holderPool(seed, holderCount),
    names: namePool(seedWord, options.marketSize ?? count),
    // 11-digit asset ids: a per-seed base plus a disjoint block of ids per item.
    assetBase: 25_000_000_000 + (mix32(seedWord, 0xa55e7) % 1_000_000) * 1_000,
  };
}

/** The seed of item `itemId`'s own stream: `generateItem(new Rng(itemSeed(seed, id)), id, options)` rebuilds it. */
export function itemSeed(seed: number, itemId: number): number {
  return mix32(seed32(seed), seed32(itemId));
}

function assetIdOf(ctx: Context, itemId: number): string {
  return String(
    ctx.assetBase + itemId * ASSET_ID_STRIDE + (mix32(ctx.seedWord ^ 0x5a5a5a5a, seed32(itemId)) % ASSET_ID_STRIDE),
  );
}

/** Index into WEAR_NAMES of a float. */
export function wearIndexOf(float: number): number {
  const index = WEAR_BOUNDS.findIndex(([, hi]) => float < hi);
  return index < 0 ? WEAR_BOUNDS.length - 1 : index;
}

/** A float inside the wear and the finish's range, in 1e-9 steps (the wear alone when they do not meet). */
function floatFor(entry: Entry, wearIndex: number, rng: Rng): number {
  const [wearLo, wearHi] = WEAR_BOUNDS[wearIndex] ?? [0, 1];
  let lo = Math.max(wearLo, entry.minFloat);
  let hi = Math.min(wearHi, entry.maxFloat);
  if (hi - lo < 1e-6) [lo, hi] = [wearLo, wearHi];
  const steps = rng.int(Math.round(lo * FLOAT_STEPS), Math.round(hi * FLOAT_STEPS) - 1);
  return steps / FLOAT_STEPS;
}

interface Forced {
  entry?: Entry;
  variant?: Variant;
  wearIndex?: number;
  phase?: string;
  stickers?: Sticker[];
  keyChains?: KeyChain[];
}

const NOT_FORCED: Forced = {};

function pickVariant(entry: Entry, rng: Rng): Variant {
  if (entry.statTrak && rng.chance(STATTRAK_SHARE)) return VARIANT_STATTRAK;
  if (entry.souvenir && rng.chance(SOUVENIR_SHARE)) return VARIANT_SOUVENIR;
  return VARIANT_NORMAL;
}

function pickPhase(entry: Entry, rng: Rng, wanted: string | undefined): Phase | null {
  const { phases, phaseCumulative } = entry;
  if (!phases || !phaseCumulative) return null;
  const forced = wanted === undefined ? undefined : phases.find((phase) => phase.label === wanted);
  return forced ?? phases[pickCumulative(phaseCumulative, rng)] ?? null;
}

/** Entry, variant and wear: the forced ones, or one of the names the catalog offers. */
function pickListing(rng: Rng, ctx: Context, forced: Forced): { entry: Entry; variant: Variant; wearIndex: number } {
  if (!forced.entry) return pickName(ctx.names, pickKind(rng), rng);
  const entry = forced.entry;
  const variant = forced.variant ?? pickVariant(entry, rng);
  let wearIndex = -1;
  if (entry.hasWear) wearIndex = forced.wearIndex ?? entry.wears[pickCumulative(entry.wearCumulative, rng)] ?? 2;
  return { entry, variant, wearIndex };
}

function buildItem(rng: Rng, itemId: number, ctx: Context, forced: Forced): Item {
  const { entry, variant, wearIndex } = pickListing(rng, ctx, forced);
  const phase = pickPhase(entry, rng, forced.phase);
  const float = wearIndex >= 0 && !rng.chance(0.01) ? floatFor(entry, wearIndex, rng) : null;

  const weapon = entry.kind === 'weapon';
  const stickers =
    forced.stickers ?? (weapon ? generateStickers(rng, ctx.imageBase, variant === VARIANT_SOUVENIR) : []);
  const keyChains = forced.keyChains ?? (weapon ? generateKeyChains(rng, ctx.imageBase) : []);

  const drawnSeed = entry.hasWear ? drawPaintSeed(entry.base, rng) : 0;
  const paintSeed = rng.chance(0.01) ? null : drawnSeed;
  const phaseMult = phase ? rng.float(phase.minMult, phase.maxMult) : 1;
  // Now and then a seller lists well under the market: a deal for whoever finds it.
  const [lo, hi] = rng.chance(DEAL_SHARE) ? DEAL_FACTOR : LISTING_FACTOR;
  const skin = skinValue(entry, variant, wearIndex, float, paintSeed, phaseMult) * rng.float(lo, hi);
  const price =
    Math.max(1, Math.round(skin)) +
    (stickers.length > 0 ? stickersValue(stickers) : 0) +
    (keyChains.length > 0 ? keyChainsValue(keyChains) : 0);

  const holder = ctx.pool.holders[rng.int(0, ctx.pool.holders.length - 1)];
  const reuseAsset = itemId > ctx.firstItemId && rng.chance(ASSET_REUSE_SHARE);
  const assetId = assetIdOf(ctx, reuseAsset ? rng.int(ctx.firstItemId, itemId - 1) : itemId);
  const paintIndex = rng.chance(0.01) ? null : (phase?.paintIndex ?? entry.paintIndex);
  const rarityColor: RarityColor | null = rng.chance(0.005) ? null : entry.color;
  const img = rng.chance(0.01) ? null : imageUrl(ctx.imageBase, entry.kind, phase ? phase.slug : entry.slug);
  const plain = stickers.length === 0 && keyChains.length === 0;
  const instanceId = plain ? PLAIN_INSTANCE_ID : String(rng.int(100_000_000, 3_999_999_999));
  const steamId = holder ? holder.steamId : null;

  return {
    itemId,
    assetId,
    classId: entryClassId(entry, variant, wearIndex),
    instanceId,
    paintIndex,
    paintSeed,
    rarityColor,
    market_hash_name: entryName(entry, variant, wearIndex),
    img,
    phase: phase ? phase.label : null,
    price,
    float,
    stickers,
    keyChains,
    steamId,
    inspectInGame: steamId === null ? null : inspectLink(steamId, assetId, inspectDigits(rng)),
    tradeUrl: holder ? holder.tradeUrl : null,
  };
}

/** One random item drawn from `rng`. */
export function generateItem(rng: Rng, itemId: number, options: CatalogOptions): Item {
  return buildItem(rng, itemId, resolve(options), NOT_FORCED);
}

/**
 * `count` items with consecutive ids from `firstItemId`; the same options give
 * byte-identical items. Streams: memory does not grow with count.
 */
export function* generateCatalog(options: CatalogOptions): Generator<Item, void, undefined> {
  const ctx = resolve(options);
  const rng = new Rng(0);
  for (let i = 0; i < ctx.count; i++) {
    const itemId = ctx.firstItemId + i;
    rng.reseed(itemSeed(ctx.seed, itemId));
    yield buildItem(rng, itemId, ctx, NOT_FORCED);
  }
}

/** Forced choices that make a generated item agree with the given fields. */
function forcedFor(partial: ItemInput, rng: Rng): Forced {
  const forced: Forced = {};
  if (partial.phase !== undefined && partial.phase !== null) forced.phase = partial.phase;
  if (partial.stickers) forced.stickers = partial.stickers.map(normalizeSticker);
  if (partial.keyChains) forced.keyChains = partial.keyChains.map((keyChain) => ({ ...keyChain }));

  if (partial.market_hash_name !== undefined) {
    const parsed = parseMarketHashName(partial.market_hash_name);
    forced.entry = entryByBase(parsed.base) ?? syntheticEntry(parsed.base, parsed.wearIndex >= 0);
    forced.variant = parsed.variant;
    if (parsed.wearIndex >= 0 && forced.entry.hasWear) forced.wearIndex = parsed.wearIndex;
    else if (typeof partial.float === 'number' && forced.entry.hasWear) forced.wearIndex = wearIndexOf(partial.float);
    return forced;
  }
  if (forced.phase !== undefined) {
    const wanted = forced.phase;
    const candidates = KNIFE_TABLE.entries.filter((entry) => entry.phases?.some((phase) => phase.label === wanted));
    if (candidates.length > 0) forced.entry = rng.pick(candidates);
  }
  if (typeof partial.float === 'number') {
    const float = partial.float;
    const wearIndex = wearIndexOf(float);
    forced.wearIndex = wearIndex;
    if (!forced.entry) {
      // A finish whose float range holds the given float (almost always found within a few draws).
      for (let attempt = 0; attempt < 100 && !forced.entry; attempt++) {
        const kind = pickKind(rng);
        if (kind === 'sticker' || kind === 'charm') continue;
        const entry = pickEntry(TABLE_BY_KIND[kind], rng);
        if (entry.hasWear && entry.wears.includes(wearIndex) && float >= entry.minFloat && float < entry.maxFloat)
          forced.entry = entry;
      }
      forced.entry ??= entryByBase('AK-47 | Case Hardened') ?? syntheticEntry('AK-47 | Case Hardened', true);
    } else if (!forced.entry.hasWear) {
      delete forced.wearIndex;
    }
  }
  return forced;
}

/**
 * Fills every missing field of a partial item (admin upsert). Given fields
 * are kept as given; the rest is generated to agree with them: a given
 * market_hash_name fixes finish, StatTrak™/Souvenir and wear (so float, paint
 * index, rarity, image and price follow); a given phase or float picks a
 * matching finish; a given steamId or assetId is used in the inspect link and
 * trade URL. Sticker wearPercent is always derived from wear. Without an
 * itemId, one after the catalog's id range is drawn from `rng` (callers that
 * need a free id should pass one).
 */
export function completeItem(partial: ItemInput, rng: Rng, options: CatalogOptions): Item {
  const ctx = resolve(options);
  const itemId = partial.itemId ?? ctx.firstItemId + ctx.count + rng.int(0, 999_999_999);
  const forced = forcedFor(partial, rng);
  const generated = buildItem(rng, itemId, ctx, forced);
  const known = forced.entry === undefined || entryByBase(forced.entry.base) === forced.entry;

  const market_hash_name = partial.market_hash_name ?? generated.market_hash_name;
  const assetId = partial.assetId ?? generated.assetId;
  const steamId = partial.steamId !== undefined ? partial.steamId : generated.steamId;
  let tradeUrl = generated.tradeUrl;
  let inspectInGame = generated.inspectInGame;
  if (steamId !== generated.steamId || assetId !== generated.assetId) {
    if (steamId === null) {
      tradeUrl = null;
      inspectInGame = null;
    } else {
      const accountId = accountIdOf(steamId);
      tradeUrl =
        ctx.pool.bySteamId.get(steamId)?.tradeUrl ?? (accountId === null ? null : tradeUrlOf(accountId, ctx.seedWord));
      inspectInGame = inspectLink(steamId, assetId, inspectDigits(rng));
    }
  }

  return {
    itemId,
    assetId,
    classId: partial.classId ?? classIdOf(market_hash_name),
    instanceId: partial.instanceId ?? generated.instanceId,
    paintIndex: partial.paintIndex !== undefined ? partial.paintIndex : known ? generated.paintIndex : null,
    paintSeed: partial.paintSeed !== undefined ? partial.paintSeed : generated.paintSeed,
    rarityColor: partial.rarityColor !== undefined ? partial.rarityColor : known ? generated.rarityColor : null,
    market_hash_name,
    img: partial.img !== undefined ? partial.img : generated.img,
    phase: partial.phase !== undefined ? partial.phase : generated.phase,
    price: partial.price ?? generated.price,
    float: partial.float !== undefined ? partial.float : generated.float,
    stickers: generated.stickers,
    keyChains: generated.keyChains,
    steamId,
    inspectInGame: partial.inspectInGame !== undefined ? partial.inspectInGame : inspectInGame,
    tradeUrl: partial.tradeUrl !== undefined ? partial.tradeUrl : tradeUrl,
  };
}

/** The platform account holding the item (its steam id), or null when hidden. */
export function holderOf(item: Pick<Item, 'steamId'>): string | null {
  return item.steamId;
}

export interface CatalogTotals {
  totalItems: number;
  /** Sum of prices, USD cents. */
  totalValue: number;
}

export function catalogTotals(items: Iterable<Pick<Item, 'price'>>): CatalogTotals {
  let totalItems = 0;
  let totalValue = 0;
  for (const item of items) {
    totalItems++;
    totalValue += item.price;
  }
  return { totalItems, totalValue };
}
