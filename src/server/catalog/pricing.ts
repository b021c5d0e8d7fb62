/**
 * Price profiles: what an item of a given finish costs by weapon class, wear,
 * StatTrak™ and Souvenir, in USD cents. A profile is fixed per finish (derived
 * from its name, so the same finish is priced alike in every catalog). The
 * premiums a single listing earns (float, stickers, charms) and its own factor
 * (a little noise, or now and then a deal) are here too; value.ts combines them.
 */
import { PRICE_ANCHORS } from './anchors';
import { WEAPON_CLASSES, type Grade, type KnifeDef, type KnifeFinishRow, type WeaponClass } from './cs2Data';
import { hashString, unitOf } from './rng';

export interface PriceProfile {
  /** Field-Tested (or no-wear) price before variant multipliers. */
  readonly base: number;
  readonly min: number;
  readonly max: number;
  /** Multiplier per wear index (WEAR_NAMES order). */
  readonly wearMult: readonly number[];
  readonly statTrakMult: number;
  readonly souvenirMult: number;
}

const WEAPON_WEAR_MULT = [2.2, 1.4, 1, 0.9, 0.8];
const KNIFE_WEAR_MULT = [1.5, 1.15, 1, 0.92, 0.88];
const GLOVE_WEAR_MULT = [2.5, 1.6, 1, 0.8, 0.7];
const NO_WEAR_MULT = [1, 1, 1, 1, 1];

/** [lowest, highest] Field-Tested base and [min, max] final price by grade, cents. */
const WEAPON_GRADE_PRICES: Readonly<Record<Grade, readonly [number, number, number, number]>> = {
  C: [3, 40, 3, 100],
  I: [5, 120, 5, 300],
  M: [10, 400, 10, 1_000],
  R: [40, 1_500, 30, 3_000],
  L: [150, 5_000, 100, 8_000],
  V: [600, 60_000, 500, 200_000],
  X: [200_000, 700_000, 200_000, 1_500_000],
};

/** Rifles and snipers (AK-47, M4, AWP) sell well above pistols and SMGs of the same grade. */
const CLASS_PRICE_MULT: Readonly<Record<WeaponClass, number>> = {
  rifle: 1.8,
  sniper: 1.6,
  pistol: 0.6,
  smg: 0.45,
  shotgun: 0.4,
  machinegun: 0.35,
};

const KNIFE_PRICE_RANGE = [8_000, 500_000] as const;
const GLOVE_PRICE_RANGE = [6_000, 400_000] as const;

function logUniform(lo: number, hi: number, u: number): number {
  return lo * Math.pow(hi / lo, u);
}

/** A stable number in [0, 1) for a name and a purpose. */
function unit(name: string, salt: number): number {
  return unitOf(hashString(name, salt));
}

export function weaponProfile(base: string, grade: Grade): PriceProfile {
  const [lo, hi, min, max] = WEAPON_GRADE_PRICES[grade];
  const weaponClass = WEAPON_CLASSES[base.split(' | ')[0] ?? ''];
  return {
    base: logUniform(lo, hi, unit(base, 1)) * (weaponClass ? CLASS_PRICE_MULT[weaponClass] : 1),
    min,
    max,
    wearMult: WEAPON_WEAR_MULT,
    statTrakMult: 1.3 + 1.2 * unit(base, 2),
    souvenirMult: 1.2 + 2.5 * unit(base, 3),
  };
}

export function knifeProfile(base: string, knife: KnifeDef, finish: KnifeFinishRow): PriceProfile {
  const vanilla = finish[0] === null;
  return {
    base: knife.base * finish[3] * (vanilla ? 1.3 : 1) * (0.9 + 0.2 * unit(base, 1)),
    min: KNIFE_PRICE_RANGE[0],
    max: KNIFE_PRICE_RANGE[1],
    wearMult: vanilla ? NO_WEAR_MULT : KNIFE_WEAR_MULT,
    statTrakMult: 1.15 + 0.25 * unit(base, 2),
    souvenirMult: 1,
  };
}

export function gloveProfile(base: string, gloveBase: number, finishMult: number): PriceProfile {
  return {
    base: gloveBase * finishMult * (0.9 + 0.2 * unit(base, 1)),
    min: GLOVE_PRICE_RANGE[0],
    max: GLOVE_PRICE_RANGE[1],
    wearMult: GLOVE_WEAR_MULT,
    statTrakMult: 1,
    souvenirMult: 1,
  };
}

/**
 * A finish's profile with its market levels by wear where PRICE_ANCHORS knows them (not clamped to its grade's
 * range); StatTrak™ and Souvenir multiply as before.
 */
export function anchored(base: string, profile: PriceProfile): PriceProfile {
  const levels = PRICE_ANCHORS[base];
  if (!levels) return profile;
  const cents = levels.map((dollars) => (dollars === null ? null : dollars * 100));
  const reference = cents[2] ?? (cents.find((level) => level !== null) as number);
  return {
    ...profile,
    base: reference,
    min: 1,
    max: Number.MAX_SAFE_INTEGER,
    wearMult: cents.map((level) => (level ?? reference) / reference),
  };
}

/** Stickers, charms and slabs: the table price, no wear. */
export function smallItemProfile(price: number): PriceProfile {
  return {
    base: price,
    min: 1,
    max: Number.MAX_SAFE_INTEGER,
    wearMult: NO_WEAR_MULT,
    statTrakMult: 1,
    souvenirMult: 1,
  };
}

/** The price level of a name (finish, wear, StatTrak™/Souvenir), in cents before rounding: what its listings scatter around. */
export function nameLevel(profile: PriceProfile, wearIndex: number, variantMult: number): number {
  const wearMult = wearIndex < 0 ? 1 : (profile.wearMult[wearIndex] ?? 1);
  return Math.min(profile.max, Math.max(profile.min, profile.base * wearMult * variantMult));
}

/** Share of listings priced as deals, and how far under the name's level they are. */
export const DEAL_SHARE = 0.04;
export const DEAL_FACTOR: readonly [number, number] = [0.64, 0.86];
/** An ordinary listing's own factor around its value. */
export const LISTING_FACTOR: readonly [number, number] = [0.93, 1.08];

/**
 * What a float does to the price within its wear band [bandLo, bandHi): a
 * 0.00x Factory New sells 20–50 % over, the bottom 5 % of any other band 5–12 %.
 */
export function floatPremium(float: number | null, wearIndex: number, bandLo: number, bandHi: number): number {
  if (float === null || !(bandHi > bandLo)) return 1;
  if (wearIndex === 0 && float < 0.01) return 1.2 + 0.3 * (1 - float / 0.01);
  const position = (float - bandLo) / (bandHi - bandLo);
  return position < 0.05 ? 1.05 + 0.07 * (1 - position / 0.05) : 1;
}

/** Four or more of the same unscraped sticker (a "craft") are worth this many times the stickers apart. */
export const CRAFT_MULT = 2.5;

/** What an applied sticker adds to the weapon's price: a share of the sticker's value, larger for valuable stickers. */
export function appliedStickerValue(stickerPrice: number, scraped: boolean): number {
  const share = stickerPrice >= 100_000 ? 0.12 : stickerPrice >= 10_000 ? 0.08 : 0.03;
  return Math.round(stickerPrice * share * (scraped ? 1 / 3 : 1));
}

/** What an attached keychain adds: a third of its value. */
export function attachedKeyChainValue(price: number): number {
  return Math.round(price / 3);
}
