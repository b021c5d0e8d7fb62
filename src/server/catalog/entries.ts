/**
 * The reference tables flattened into one list of catalog entries (one per
 * weapon finish, knife finish, glove finish, sticker, charm, slab), with pick
 * weights, valid wears, price profiles and name caches. Built once at load.
 */
import type { RarityColor } from '../../shared/api';
import {
  CHARMS,
  GLOVE_FLOAT_RANGE,
  GLOVES,
  KNIFE_FINISHES,
  KNIVES,
  NIGHT_STRIPE_PAINT_INDEX,
  PHASES_BY_FINISH,
  SLAB_STICKERS,
  SOUVENIR_CHARMS,
  STICKERS,
  WEAPONS,
  WEAR_BOUNDS,
  type Grade,
  type PhaseRow,
  type SmallItemRow,
} from './cs2Data';
import { marketHashName, slugify, STAR, type Variant } from './naming';
import { anchored, gloveProfile, knifeProfile, smallItemProfile, weaponProfile, type PriceProfile } from './pricing';
import { hashString, type Rng } from './rng';

export type ItemKind = 'weapon' | 'knife' | 'glove' | 'sticker' | 'charm';
export const ITEM_KINDS: readonly ItemKind[] = ['weapon', 'knife', 'glove', 'sticker', 'charm'];

export const GRADE_COLORS: Readonly<Record<Grade, RarityColor>> = {
  C: '#b0c3d9',
  I: '#5e98d9',
  M: '#4b69ff',
  R: '#8847ff',
  L: '#d32ce6',
  V: '#eb4b4b',
  X: '#eb4b4b',
};
/** Knives and gloves (★). */
export const STAR_COLOR: RarityColor = '#e4ae39';

export interface Phase {
  readonly label: string;
  readonly paintIndex: number;
  readonly slug: string;
  readonly minMult: number;
  readonly maxMult: number;
}

export interface Entry {
  readonly kind: ItemKind;
  /** Market hash name without StatTrak™/Souvenir and wear. */
  readonly base: string;
  readonly slug: string;
  readonly color: RarityColor;
  readonly paintIndex: number;
  /** False for vanilla knives, stickers and charms: no wear in the name, float null. */
  readonly hasWear: boolean;
  readonly minFloat: number;
  readonly maxFloat: number;
  /** Wear indices that intersect the float range, and their cumulative pick weights. */
  readonly wears: readonly number[];
  readonly wearCumulative: readonly number[];
  readonly statTrak: boolean;
  readonly souvenir: boolean;
  readonly phases: readonly Phase[] | null;
  readonly phaseCumulative: readonly number[] | null;
  readonly price: PriceProfile;
  /** Table price of stickers and charms (what they add when applied). */
  readonly unitPrice: number;
  /** Market hash names and class ids by variant * 5 + wear (wear 0 when there is none), filled lazily. */
  readonly names: (string | undefined)[];
  readonly classIds: (string | undefined)[];
}

/** Relative frequency of each wear on the market: FN, MW, FT, WW, BS. */
const WEAR_PICK_WEIGHTS = [12, 22, 40, 10, 16];
/** Relative frequency of weapon finishes by grade. */
const GRADE_PICK_WEIGHTS: Readonly<Record<Grade, number>> = { C: 22, I: 18, M: 26, R: 16, L: 9, V: 4, X: 0.4 };

function cumulative(weights: readonly number[]): number[] {
  let sum = 0;
  return weights.map((w) => (sum += w));
}

/** Index picked from cumulative weights (binary search). */
export function pickCumulative(cum: readonly number[], rng: Rng): number {
  const total = cum[cum.length - 1] ?? 0;
  const target = rng.next() * total;
  let lo = 0;
  let hi = cum.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((cum[mid] ?? 0) > target) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

interface EntryInput {
  kind: ItemKind;
  base: string;
  color: RarityColor;
  paintIndex: number;
  float: readonly [number, number] | null;
  statTrak: boolean;
  souvenir: boolean;
  phases: readonly PhaseRow[] | null;
  price: PriceProfile;
  unitPrice?: number;
}

function makeEntry(input: EntryInput): Entry {
  const slug = slugify(input.base);
  const wears: number[] = [];
  const weights: number[] = [];
  const [minFloat, maxFloat] = input.float ?? [0, 0];
  if (input.float) {
    WEAR_BOUNDS.forEach(([lo, hi], index) => {
      // Needs room for at least one 1e-9 step inside both ranges.
      if (Math.min(hi, maxFloat) - Math.max(lo, minFloat) >= 1e-6) {
        wears.push(index);
        weights.push(WEAR_PICK_WEIGHTS[index] ?? 1);
      }
    });
  }
  const phases =
    input.phases?.map(([label, paintIndex, , minMult, maxMult]) => ({
      label,
      paintIndex,
      slug: `${slug}-${slugify(label)}`,
      minMult,
      maxMult,
    })) ?? null;
  return {
    kind: input.kind,
    base: input.base,
    slug,
    color: input.color,
    paintIndex: input.paintIndex,
    hasWear: input.float !== null,
    minFloat,
    maxFloat,
    wears,
    wearCumulative: cumulative(weights),
    statTrak: input.statTrak,
    souvenir: input.souvenir,
    phases,
    phaseCumulative: input.phases ? cumulative(input.phases.map((row) => row[2])) : null,
    price: input.price,
    unitPrice: input.unitPrice ?? input.price.base,
    names: new Array<string | undefined>(15).fill(undefined),
    classIds: new Array<string | undefined>(15).fill(undefined),
  };
}

export interface KindTable {
  entries: Entry[];
  cumulative: number[];
}

function table(pairs: readonly (readonly [Entry, number])[]): KindTable {
  return { entries: pairs.map(([entry]) => entry), cumulative: cumulative(pairs.map(([, weight]) => weight)) };
}

function buildWeapons(): KindTable {
  const pairs: [Entry, number][] = [];
  for (const weapon of WEAPONS) {
    for (const [finish, grade, paintIndex, source, minFloat = 0, maxFloat = 1] of weapon.skins) {
      const base = `${weapon.name} | ${finish}`;
      const entry = makeEntry({
        kind: 'weapon',
        base,
        color: GRADE_COLORS[grade],
        paintIndex,
        float: [minFloat, maxFloat],
        statTrak: source === 'c',
        souvenir: source === 's',
        phases: null,
        price: anchored(base, weaponProfile(base, grade)),
      });
      pairs.push([entry, weapon.weight * GRADE_PICK_WEIGHTS[grade]]);
    }
  }
  return table(pairs);
}

function buildKnives(): KindTable {
  const pairs: [Entry, number][] = [];
  for (const knife of KNIVES) {
    for (const finish of KNIFE_FINISHES) {
      const [finishName, paintIndex, set, , weight, minFloat, maxFloat] = finish;
      if (!knife.sets.includes(set)) continue;
      const night = finishName === 'Night' && knife.newer;
      const shownName = night ? 'Night Stripe' : finishName;
      const base = shownName === null ? `${STAR}${knife.name}` : `${STAR}${knife.name} | ${shownName}`;
      const entry = makeEntry({
        kind: 'knife',
        base,
        color: STAR_COLOR,
        paintIndex: night ? NIGHT_STRIPE_PAINT_INDEX : paintIndex,
        float: finishName === null ? null : [minFloat, maxFloat],
        statTrak: true,
        souvenir: false,
        phases: finishName === null ? null : (PHASES_BY_FINISH[finishName] ?? null),
        price: anchored(base, knifeProfile(base, knife, finish)),
      });
      pairs.push([entry, knife.weight * weight]);
    }
  }
  return table(pairs);
}

function buildGloves(): KindTable {
  const pairs: [Entry, number][] = [];
  for (const glove of GLOVES) {
    for (const [finish, paintIndex, mult] of glove.finishes) {
      const base = `${STAR}${glove.name} | ${finish}`;
      const entry = makeEntry({
        kind: 'glove',
        base,
        color: STAR_COLOR,
        paintIndex,
        float: GLOVE_FLOAT_RANGE,
        statTrak: false,
        souvenir: false,
        phases: null,
        price: anchored(base, gloveProfile(base, glove.base, mult)),
      });
      // Expensive finishes are rarer.
      pairs.push([entry, 1 / Math.sqrt(mult)]);
    }
  }
  return table(pairs);
}

function smallEntry(kind: ItemKind, [name, grade, price]: SmallItemRow): Entry {
  return makeEntry({
    kind,
    base: name,
    color: GRADE_COLORS[grade],
    paintIndex: 0,
    float: null,
    statTrak: false,
    souvenir: false,
    phases: null,
    price: smallItemProfile(price),
    unitPrice: price,
  });
}

/** Cheap stickers and charms are far more common than expensive ones. */
function smallTable(entries: readonly Entry[]): KindTable {
  return table(entries.map((entry) => [entry, 1 / Math.sqrt(entry.unitPrice)] as const));
}

const stickerEntries = STICKERS.map((row) => smallEntry('sticker', row));
const charmEntries = CHARMS.map((row) => smallEntry('charm', row));
const souvenirCharmEntries = SOUVENIR_CHARMS.map((row) => smallEntry('charm', row));
const slabEntries = SLAB_STICKERS.map((sticker) => {
  const row = STICKERS.find(([name]) => name === `Sticker | ${sticker}`);
  const grade = row?.[1] ?? 'M';
  // A slab costs a little more than its sticker.
  const price = Math.round((row?.[2] ?? 100) * 1.15 + 30);
  return smallEntry('charm', [`Sticker Slab | ${sticker}`, grade, price]);
});

export const WEAPON_TABLE = buildWeapons();
export const KNIFE_TABLE = buildKnives();
export const GLOVE_TABLE = buildGloves();
export const STICKER_TABLE = smallTable(stickerEntries);
/** Stickers crafted four at a time: valuable ones (up to $2,000 each) are chosen more often than for a single sticker. */
export const CRAFT_STICKER_TABLE = table(
  stickerEntries
    .filter((entry) => entry.unitPrice <= 200_000)
    .map((entry) => [entry, Math.pow(entry.unitPrice, -0.35)] as const),
);
/** Stickers a Souvenir weapon carries: tournament stickers only. */
export const TOURNAMENT_STICKER_TABLE = smallTable(
  stickerEntries.filter((entry) => entry.base.split(' | ').length === 3),
);
export const CHARM_TABLE = smallTable(charmEntries);
export const SOUVENIR_CHARM_TABLE = smallTable(souvenirCharmEntries);
export const SLAB_TABLE = smallTable(slabEntries);
/** Standalone charm listings: charms, souvenir charms and slabs. */
export const ALL_CHARMS_TABLE = smallTable([...charmEntries, ...souvenirCharmEntries, ...slabEntries]);

export const TABLE_BY_KIND: Readonly<Record<ItemKind, KindTable>> = {
  weapon: WEAPON_TABLE,
  knife: KNIFE_TABLE,
  glove: GLOVE_TABLE,
  sticker: STICKER_TABLE,
  charm: ALL_CHARMS_TABLE,
};

/** Share of each kind among listings (ITEM_KINDS order). */
export const KIND_SHARES: readonly number[] = [0.8, 0.07, 0.035, 0.065, 0.03];
const KIND_CUMULATIVE = cumulative(KIND_SHARES);

export function pickKind(rng: Rng): ItemKind {
  return ITEM_KINDS[pickCumulative(KIND_CUMULATIVE, rng)] ?? 'weapon';
}

export function pickEntry(kindTable: KindTable, rng: Rng): Entry {
  return kindTable.entries[pickCumulative(kindTable.cumulative, rng)] as Entry;
}

const ENTRY_BY_BASE = new Map<string, Entry>();
for (const kindTable of [WEAPON_TABLE, KNIFE_TABLE, GLOVE_TABLE, STICKER_TABLE, ALL_CHARMS_TABLE]) {
  for (const entry of kindTable.entries) ENTRY_BY_BASE.set(entry.base, entry);
}

/** The entry whose base name (no StatTrak™/Souvenir, no wear) is `base`. */
export function entryByBase(base: string): Entry | undefined {
  return ENTRY_BY_BASE.get(base);
}

/** Every entry, for tests and tooling. */
export function allEntries(): readonly Entry[] {
  return [...ENTRY_BY_BASE.values()];
}

/** Class ids are fixed per market hash name: 9–10 digits. */
export function classIdOf(name: string): string {
  return String(100_000_000 + (hashString(name, 0x5eed) % 3_900_000_000));
}

/** The cached market hash name of an entry's variant and wear (-1 = none). */
export function entryName(entry: Entry, variant: Variant, wearIndex: number): string {
  const slot = variant * 5 + Math.max(0, wearIndex);
  const cached = entry.names[slot];
  if (cached !== undefined) return cached;
  const name = marketHashName(entry.base, variant, entry.hasWear ? wearIndex : -1);
  entry.names[slot] = name;
  return name;
}

export function entryClassId(entry: Entry, variant: Variant, wearIndex: number): string {
  const slot = variant * 5 + Math.max(0, wearIndex);
  const cached = entry.classIds[slot];
  if (cached !== undefined) return cached;
  const classId = classIdOf(entryName(entry, variant, wearIndex));
  entry.classIds[slot] = classId;
  return classId;
}

/** Guessed kind of a name the tables do not know. */
function guessKind(base: string): ItemKind {
  if (base.startsWith('Sticker |') || base.startsWith('Patch |')) return 'sticker';
  if (base.startsWith('Charm |') || base.startsWith('Souvenir Charm |') || base.startsWith('Sticker Slab |'))
    return 'charm';
  if (base.startsWith(STAR)) return /glove|wraps/i.test(base) ? 'glove' : 'knife';
  return 'weapon';
}

const UNKNOWN_PRICES: Readonly<Record<ItemKind, PriceProfile>> = {
  weapon: weaponProfile('unknown', 'R'),
  knife: smallItemProfile(20_000),
  glove: smallItemProfile(15_000),
  sticker: smallItemProfile(100),
  charm: smallItemProfile(150),
};

/**
 * A stand-in entry for a market hash name the tables do not know (admin
 * upserts may name anything): kind guessed from the name, full float range,
 * a middling price. Callers report its paint index and rarity as "no data".
 */
export function syntheticEntry(base: string, hasWear: boolean): Entry {
  const kind = guessKind(base);
  return makeEntry({
    kind,
    base,
    color: kind === 'knife' || kind === 'glove' ? STAR_COLOR : GRADE_COLORS.M,
    paintIndex: 0,
    float: hasWear ? [0, 1] : null,
    statTrak: false,
    souvenir: false,
    phases: null,
    price: UNKNOWN_PRICES[kind],
  });
}
