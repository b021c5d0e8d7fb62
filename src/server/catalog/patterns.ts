/**
 * Paint seeds traders pay for: Case Hardened "blue gems", full Fades and Marble
 * Fade "Fire & Ice". The lists follow the pattern guides where known and are
 * plausible otherwise (the sandbox only needs them to be stable and findable).
 */
import type { Rng } from './rng';

export interface PatternTier {
  readonly label: string;
  readonly seeds: readonly number[];
  /** Price multiplier over the name's level. */
  readonly mult: number;
}

const AK_CASE_HARDENED: readonly PatternTier[] = [
  { label: 'Blue gem tier 1', seeds: [661, 670, 321, 955, 151, 179, 387, 555, 592, 617, 760, 809, 828, 868], mult: 8 },
  {
    label: 'Blue gem tier 2',
    seeds: [4, 13, 28, 103, 112, 168, 209, 242, 278, 341, 363, 442, 463, 495, 502, 525, 601, 690, 713, 750],
    mult: 2.5,
  },
];

const FIVE_SEVEN_CASE_HARDENED: readonly PatternTier[] = [
  { label: 'Blue gem tier 1', seeds: [278, 690, 363, 868, 872, 151], mult: 6 },
  { label: 'Blue gem tier 2', seeds: [32, 92, 189, 248, 430, 534, 605, 777], mult: 2 },
];

const KNIFE_CASE_HARDENED: readonly PatternTier[] = [
  { label: 'Blue gem tier 1', seeds: [387, 442, 463, 269, 853, 494, 73, 670], mult: 5 },
  { label: 'Blue gem tier 2', seeds: [11, 55, 128, 151, 179, 321, 592, 661, 750, 809, 955], mult: 2.2 },
];

const FADE: readonly PatternTier[] = [
  { label: 'Full fade', seeds: [412, 763, 601, 617, 641, 753, 11, 124, 243, 284, 518, 652, 735, 882, 976], mult: 1.3 },
];

const MARBLE_FADE: readonly PatternTier[] = [
  {
    label: 'Fire & Ice',
    seeds: [412, 16, 146, 241, 359, 393, 541, 602, 649, 688, 701, 152, 281, 292, 344, 628],
    mult: 1.8,
  },
];

/** Share of listings of a patterned finish that carry a seed from its tiers (on top of uniform draws hitting one). */
const RARE_SEED_SHARE = 0.03;

/** The seed tiers of a finish (by base name), or null when its pattern does not change the price. */
export function patternTiersOf(base: string): readonly PatternTier[] | null {
  const finish = base.slice(base.lastIndexOf(' | ') + 3);
  if (finish === 'Case Hardened') {
    if (base.startsWith('★')) return /Gloves|Hand Wraps/.test(base) ? null : KNIFE_CASE_HARDENED;
    if (base.startsWith('AK-47 ')) return AK_CASE_HARDENED;
    if (base.startsWith('Five-SeveN ')) return FIVE_SEVEN_CASE_HARDENED;
    return null;
  }
  if (finish === 'Fade') return FADE;
  if (finish === 'Marble Fade' && base.startsWith('★') && !/Gloves/.test(base)) return MARBLE_FADE;
  return null;
}

/** The tier a seed belongs to on this finish, or null. */
export function patternTierOf(base: string, paintSeed: number | null): PatternTier | null {
  if (paintSeed === null) return null;
  return patternTiersOf(base)?.find((tier) => tier.seeds.includes(paintSeed)) ?? null;
}

/** What the seed does to the price: the tier's multiplier, 1 for an ordinary seed. */
export function patternPremium(base: string, paintSeed: number | null): number {
  return patternTierOf(base, paintSeed)?.mult ?? 1;
}

/** A paint seed in 1–999; patterned finishes draw one of their tiers' seeds now and then, so seed lists find something. */
export function drawPaintSeed(base: string, rng: Rng): number {
  const tiers = patternTiersOf(base);
  if (tiers && rng.chance(RARE_SEED_SHARE)) return rng.pick(rng.pick(tiers).seeds);
  return rng.int(1, 999);
}
