/**
 * What a listing is worth on the demo market: its name's level times the
 * premiums of its float, paint seed and phase, plus what its stickers and
 * keychains add. A listing's price is this value times its own factor
 * (pricing.ts); the simulator reprices around it.
 */
import type { Item } from '../../shared/api';
import { keyChainsValue, stickersValue } from './attachments';
import { WEAR_BOUNDS } from './cs2Data';
import { entryByBase, type Entry } from './entries';
import { parseMarketHashName, VARIANT_SOUVENIR, VARIANT_STATTRAK, type Variant } from './naming';
import { patternPremium } from './patterns';
import { floatPremium, nameLevel } from './pricing';

export function variantMultOf(entry: Entry, variant: Variant): number {
  if (variant === VARIANT_STATTRAK) return entry.price.statTrakMult;
  return variant === VARIANT_SOUVENIR ? entry.price.souvenirMult : 1;
}

/** The float band of a wear on this finish: the wear's bounds cut to the finish's range. */
function bandOf(entry: Entry, wearIndex: number): readonly [number, number] {
  const [wearLo, wearHi] = WEAR_BOUNDS[wearIndex] ?? [0, 1];
  const lo = Math.max(wearLo, entry.minFloat);
  const hi = Math.min(wearHi, entry.maxFloat);
  return hi - lo < 1e-6 ? [wearLo, wearHi] : [lo, hi];
}

/** The skin's own value in cents (no attachments), not rounded. */
export function skinValue(
  entry: Entry,
  variant: Variant,
  wearIndex: number,
  float: number | null,
  paintSeed: number | null,
  phaseMult: number,
): number {
  const level = nameLevel(entry.price, wearIndex, variantMultOf(entry, variant));
  const [lo, hi] = wearIndex >= 0 ? bandOf(entry, wearIndex) : [0, 0];
  return level * floatPremium(float, wearIndex, lo, hi) * patternPremium(entry.base, paintSeed) * phaseMult;
}

/** The middle of a phase's price range (1 without a phase). */
export function phaseMultOf(entry: Entry, phase: string | null): number {
  const found = phase === null ? undefined : entry.phases?.find((row) => row.label === phase);
  return found ? (found.minMult + found.maxMult) / 2 : 1;
}

export type ValuedItem = Pick<Item, 'market_hash_name' | 'phase' | 'float' | 'paintSeed' | 'stickers' | 'keyChains'>;

/** What a listing is worth in cents, or null for a name the tables do not know (an administrator's invention). */
export function marketValue(item: ValuedItem): number | null {
  const parsed = parseMarketHashName(item.market_hash_name);
  const entry = entryByBase(parsed.base);
  if (!entry) return null;
  const wearIndex = entry.hasWear ? parsed.wearIndex : -1;
  const skin = skinValue(entry, parsed.variant, wearIndex, item.float, item.paintSeed, phaseMultOf(entry, item.phase));
  return Math.max(1, Math.round(skin)) + stickersValue(item.stickers) + keyChainsValue(item.keyChains);
}
