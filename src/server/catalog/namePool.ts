/**
 * Which market hash names a catalog lists. A real market's listings crowd on a
 * limited set of names (so each name has a meaningful median), more names the
 * bigger the market: a catalog sized for N listings offers about N / 8 names,
 * chosen by popularity from every finish × StatTrak™/Souvenir × wear, plus a
 * few showcase names the demo always has (Doppler and Case Hardened knives,
 * fades). The choice is a pure function of (seed, market size).
 */
import {
  entryName,
  ITEM_KINDS,
  KIND_SHARES,
  pickCumulative,
  TABLE_BY_KIND,
  type Entry,
  type ItemKind,
} from './entries';
import { VARIANT_NORMAL, VARIANT_SOUVENIR, VARIANT_STATTRAK, type Variant } from './naming';
import { hashString, mix32, Rng } from './rng';

/** Share of StatTrak™ listings of a finish that has StatTrak™, and of Souvenir listings of a souvenir finish. */
export const STATTRAK_SHARE = 0.12;
export const SOUVENIR_SHARE = 0.1;

/** Average listings per offered name. */
const LISTINGS_PER_NAME = 8;
const MIN_NAMES: Readonly<Record<ItemKind, number>> = { weapon: 40, knife: 6, glove: 4, sticker: 8, charm: 6 };
/** Popular names are listed more often; the least popular offered names are lifted to about this many listings. */
const MIN_LISTINGS = 4;

/**
 * Always offered: names the demo's filters rely on (phases, blue gems, fades, Fire & Ice). Names tests list by
 * hand (Redlines, Karambit Dopplers) are left to popularity, so a small test catalog need not hold them.
 */
const SHOWCASE: readonly string[] = [
  'AK-47 | Case Hardened (Minimal Wear)',
  'AK-47 | Case Hardened (Field-Tested)',
  '★ Bayonet | Doppler (Factory New)',
  '★ M9 Bayonet | Gamma Doppler (Factory New)',
  '★ Karambit | Case Hardened (Field-Tested)',
  '★ Butterfly Knife | Fade (Factory New)',
  '★ Bayonet | Marble Fade (Factory New)',
];

export interface NameSlot {
  readonly entry: Entry;
  readonly variant: Variant;
  /** -1 when the name carries no wear. */
  readonly wearIndex: number;
  /** Share of the kind's listings this name would get on an unlimited market. */
  readonly weight: number;
}

export interface NamePool {
  readonly slots: Readonly<Record<ItemKind, readonly NameSlot[]>>;
  readonly cumulative: Readonly<Record<ItemKind, readonly number[]>>;
}

function variantShares(entry: Entry): [Variant, number][] {
  if (entry.statTrak)
    return [
      [VARIANT_NORMAL, 1 - STATTRAK_SHARE],
      [VARIANT_STATTRAK, STATTRAK_SHARE],
    ];
  if (entry.souvenir)
    return [
      [VARIANT_NORMAL, 1 - SOUVENIR_SHARE],
      [VARIANT_SOUVENIR, SOUVENIR_SHARE],
    ];
  return [[VARIANT_NORMAL, 1]];
}

/** Every name of a kind with its weight: finish weight × variant share × wear share. */
function universeOf(kind: ItemKind): NameSlot[] {
  const table = TABLE_BY_KIND[kind];
  const total = table.cumulative[table.cumulative.length - 1] ?? 1;
  const slots: NameSlot[] = [];
  table.entries.forEach((entry, i) => {
    const entryWeight = ((table.cumulative[i] ?? 0) - (table.cumulative[i - 1] ?? 0)) / total;
    const wearTotal = entry.wearCumulative[entry.wearCumulative.length - 1] ?? 1;
    for (const [variant, share] of variantShares(entry)) {
      if (!entry.hasWear) {
        slots.push({ entry, variant, wearIndex: -1, weight: entryWeight * share });
        continue;
      }
      entry.wears.forEach((wearIndex, w) => {
        const wearShare = ((entry.wearCumulative[w] ?? 0) - (entry.wearCumulative[w - 1] ?? 0)) / wearTotal;
        slots.push({ entry, variant, wearIndex, weight: entryWeight * share * wearShare });
      });
    }
  });
  return slots;
}

let universe: Readonly<Record<ItemKind, readonly NameSlot[]>> | null = null;
function universes(): Readonly<Record<ItemKind, readonly NameSlot[]>> {
  universe ??= Object.fromEntries(ITEM_KINDS.map((kind) => [kind, universeOf(kind)])) as Record<ItemKind, NameSlot[]>;
  return universe;
}

const showcase = new Set(SHOWCASE);
const nameOf = (slot: NameSlot) => entryName(slot.entry, slot.variant, slot.wearIndex);

/** `count` names drawn by weight without replacement (showcase names first), with their draw weights. */
function chooseNames(all: readonly NameSlot[], count: number, rng: Rng): NameSlot[] {
  const fixed = all.filter((slot) => showcase.has(nameOf(slot)));
  // Weighted sampling without replacement: the largest log(u) / weight win.
  const keyed = all
    .filter((slot) => !showcase.has(nameOf(slot)))
    .map((slot) => ({ slot, key: Math.log(1 - rng.next()) / slot.weight }))
    .sort((a, b) => b.key - a.key);
  return [...fixed, ...keyed.slice(0, Math.max(0, count - fixed.length)).map(({ slot }) => slot)];
}

function buildPool(seedWord: number, marketSize: number): NamePool {
  const slots = {} as Record<ItemKind, NameSlot[]>;
  const cumulative = {} as Record<ItemKind, number[]>;
  const all = universes();
  ITEM_KINDS.forEach((kind, k) => {
    const kindUniverse = all[kind];
    const wanted = Math.round((marketSize * (KIND_SHARES[k] ?? 0)) / LISTINGS_PER_NAME);
    const count = Math.min(kindUniverse.length, Math.max(MIN_NAMES[kind], wanted));
    const chosen = chooseNames(kindUniverse, count, new Rng(mix32(seedWord, hashString(kind))));
    // A name's share of the kind's listings is its weight, but at least MIN_LISTINGS of the kind's listings.
    const kindListings = Math.max(1, marketSize * (KIND_SHARES[k] ?? 0));
    const total = chosen.reduce((sum, slot) => sum + slot.weight, 0);
    const floor = (total * MIN_LISTINGS) / kindListings;
    let sum = 0;
    slots[kind] = chosen;
    cumulative[kind] = chosen.map((slot) => (sum += Math.max(floor, slot.weight)));
  });
  return { slots, cumulative };
}

let cached: { key: string; pool: NamePool } | null = null;

/** The names a catalog of `marketSize` listings offers for this seed word (the last pool is kept: callers ask for the same one). */
export function namePool(seedWord: number, marketSize: number): NamePool {
  const key = `${seedWord}:${marketSize}`;
  if (cached?.key !== key) cached = { key, pool: buildPool(seedWord, marketSize) };
  return cached.pool;
}

/** One offered name of the kind, drawn by its weight. */
export function pickName(pool: NamePool, kind: ItemKind, rng: Rng): NameSlot {
  const slots = pool.slots[kind];
  return slots[pickCumulative(pool.cumulative[kind], rng)] as NameSlot;
}
