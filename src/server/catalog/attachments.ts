/**
 * Stickers and keychains applied to weapons: which ones, in which slots, with
 * which wear and placement, and what they add to the weapon's price.
 */
import { wearPercentOf, type KeyChain, type Sticker } from '../../shared/api';
import {
  CHARM_TABLE,
  CRAFT_STICKER_TABLE,
  entryByBase,
  pickEntry,
  SLAB_TABLE,
  SOUVENIR_CHARM_TABLE,
  STICKER_TABLE,
  TOURNAMENT_STICKER_TABLE,
  type Entry,
} from './entries';
import { appliedStickerValue, attachedKeyChainValue, CRAFT_MULT } from './pricing';
import type { Rng } from './rng';

/** Distribution of the sticker count on a non-Souvenir weapon with stickers: 1..5. */
const STICKER_COUNT_CUMULATIVE = [0.35, 0.55, 0.7, 0.85, 1];

export function imageUrl(imageBase: string, kind: string, slug: string): string {
  return `${imageBase}/${kind}/${slug}.svg`;
}

function stickerWear(rng: Rng): number | null {
  const r = rng.next();
  if (r < 0.05) return null;
  if (r < 0.5) return 0;
  if (r < 0.505) return 1;
  const x = rng.next();
  return Math.fround(x * x);
}

function sticker(rng: Rng, entry: Entry, slot: number, imageBase: string): Sticker {
  const wear = stickerWear(rng);
  const result: Sticker = {
    name: entry.base,
    img: imageUrl(imageBase, 'sticker', entry.slug),
    slot,
    wear,
    wearPercent: wearPercentOf(wear),
  };
  if (rng.chance(0.1)) {
    result.rotation = Math.fround(rng.float(-180, 180));
    result.offsetX = Math.fround(rng.float(-0.5, 0.5));
    result.offsetY = Math.fround(rng.float(-0.5, 0.5));
  }
  return result;
}

/** Share of stickered weapons that carry a craft: four of the same sticker, unscraped. */
const CRAFT_SHARE = 0.06;

/** 0–5 stickers (about 60% none); a Souvenir weapon carries 4 tournament stickers. */
export function generateStickers(rng: Rng, imageBase: string, souvenir: boolean): Sticker[] {
  if (souvenir) {
    const stickers: Sticker[] = [];
    for (let slot = 0; slot < 4; slot++)
      stickers.push(sticker(rng, pickEntry(TOURNAMENT_STICKER_TABLE, rng), slot, imageBase));
    return stickers;
  }
  if (rng.chance(0.6)) return [];
  if (rng.chance(CRAFT_SHARE)) {
    const entry = pickEntry(CRAFT_STICKER_TABLE, rng);
    return [0, 1, 2, 3].map((slot) => ({
      ...sticker(rng, entry, slot, imageBase),
      wear: 0,
      wearPercent: wearPercentOf(0),
    }));
  }
  const r = rng.next();
  let count = 1;
  while (count < 5 && r >= (STICKER_COUNT_CUMULATIVE[count - 1] ?? 1)) count++;
  const stickers: Sticker[] = [];
  // Selection sampling: `count` distinct slots in ascending order.
  for (let slot = 0, needed = count; slot < 5 && needed > 0; slot++) {
    if (rng.next() * (5 - slot) < needed) {
      stickers.push(sticker(rng, pickEntry(STICKER_TABLE, rng), slot, imageBase));
      needed--;
    }
  }
  // Slots are not unique in rare cases (the spec says to rely on array order).
  const last = stickers[stickers.length - 1];
  const previous = stickers[stickers.length - 2];
  if (last && previous && rng.chance(0.02)) last.slot = previous.slot;
  return stickers;
}

/** About 15% of weapons carry one keychain: a charm, a souvenir charm or a sticker slab. */
export function generateKeyChains(rng: Rng, imageBase: string): KeyChain[] {
  if (!rng.chance(0.15)) return [];
  const r = rng.next();
  const slab = r >= 0.85;
  const entry = pickEntry(r < 0.7 ? CHARM_TABLE : slab ? SLAB_TABLE : SOUVENIR_CHARM_TABLE, rng);
  const keyChain: KeyChain = { name: entry.base, img: imageUrl(imageBase, 'charm', entry.slug), slot: 0 };
  if (!slab && rng.chance(0.7)) keyChain.pattern = rng.int(0, 99_999);
  if (rng.chance(0.3)) {
    if (rng.chance(0.5)) keyChain.rotation = Math.fround(rng.float(-30, 30));
    keyChain.offsetX = Math.fround(rng.float(-2, 2));
    keyChain.offsetY = Math.fround(rng.float(-1, 1));
    keyChain.offsetZ = Math.fround(rng.float(-1, 1));
  }
  return [keyChain];
}

const scraped = (wear: number | null) => wear !== null && wear > 0;

/**
 * What the stickers add to a weapon's price, cents (unknown names add nothing);
 * four or more of the same unscraped sticker count CRAFT_MULT times.
 */
export function stickersValue(stickers: readonly Pick<Sticker, 'name' | 'wear'>[]): number {
  const intact = new Map<string, number>();
  for (const { name, wear } of stickers) if (!scraped(wear)) intact.set(name, (intact.get(name) ?? 0) + 1);
  let total = 0;
  for (const { name, wear } of stickers) {
    const entry = entryByBase(name);
    if (!entry) continue;
    const value = appliedStickerValue(entry.unitPrice, scraped(wear));
    total += !scraped(wear) && (intact.get(name) ?? 0) >= 4 ? Math.round(value * CRAFT_MULT) : value;
  }
  return total;
}

export function keyChainsValue(keyChains: readonly Pick<KeyChain, 'name'>[]): number {
  let total = 0;
  for (const { name } of keyChains) {
    const entry = entryByBase(name);
    if (entry) total += attachedKeyChainValue(entry.unitPrice);
  }
  return total;
}

/** A sticker given by a caller, whose wearPercent is derived here. */
export type StickerInput = Omit<Sticker, 'wearPercent'> & { wearPercent?: string | null };

/** Copies a given sticker with wearPercent recomputed from wear, so the two always agree. */
export function normalizeSticker(input: StickerInput): Sticker {
  const result: Sticker = {
    name: input.name,
    img: input.img,
    slot: input.slot,
    wear: input.wear,
    wearPercent: wearPercentOf(input.wear),
  };
  if (input.rotation !== undefined) result.rotation = input.rotation;
  if (input.offsetX !== undefined) result.offsetX = input.offsetX;
  if (input.offsetY !== undefined) result.offsetY = input.offsetY;
  return result;
}
