/**
 * Items for the store model test, made from numbers (an id, a seed, a price) so that fast-check's commands
 * stay small, shrink well and replay exactly. Names, phases, rarities and stickers come from short lists, so
 * that searches, filters and sorts meet ties and empty values often.
 */
import type { Item } from '../../../src/shared/api';
import { RARITY_COLORS } from '../../../src/shared/api';
import { seededRandom } from '../../support/random';

const WEAPONS = [
  'AK-47 | Redline',
  'AWP | Asiimov',
  'M4A4 | Howl',
  'Glock-18 | Fade',
  '★ Karambit | Doppler',
  '★ Bayonet',
  'Sticker | Crown (Foil)',
  'Charm | Lil Ava',
];
const WEARS = [' (Field-Tested)', ' (Minimal Wear)', ''];
const PHASES = ['Phase 1', 'Phase 2', 'Ruby', 'Emerald'];
const STICKERS = ['Crown (Foil)', 'Titan | Katowice 2014', 'iBUYPOWER (Holo)', 'Howling Dawn', 'crown', 'Vitality'];
const CHARMS = ['Lil Ava', 'Hot Wurst', 'Baby Karat'];

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)] as T;
}

const sharedSeed = (drawn: number): number => (drawn % 3 === 0 ? 661 + (drawn % 9) : drawn);

/** Item `itemId` drawn from `seed` at `price`. */
export function makeItem(itemId: number, seed: number, price: number): Item {
  const random = seededRandom(seed * 7919 + itemId);
  const weapon = pick(random, WEAPONS);
  const prefix = random() < 0.15 ? 'StatTrak™ ' : random() < 0.1 ? 'Souvenir ' : '';
  const worn = !weapon.startsWith('Sticker') && !weapon.startsWith('Charm') && random() < 0.85;
  const float = worn ? Math.round(random() * 1e6) / 1e6 : null;
  const name = `${weapon.startsWith('★') && prefix === 'StatTrak™ ' ? `★ StatTrak™ ${weapon.slice(2)}` : `${prefix}${weapon}`}${worn ? pick(random, WEARS) : ''}`;
  const stickerCount = random() < 0.5 ? 0 : Math.floor(random() * 4);
  const keyChainCount = random() < 0.7 ? 0 : 1 + Math.floor(random() * 2);
  return {
    itemId,
    assetId: String(10_000_000 + itemId * 13 + (seed % 1000)),
    classId: String(300 + (seed % 7)),
    instanceId: '0',
    paintIndex: worn ? 1 + Math.floor(random() * 900) : null,
    // A worn item may still come without a seed; an unworn one may carry 0 (shown and sorted as empty). A
    // third of the seeds are one of three (661, 664, 667), so a seed's float rank meets rivals of its name.
    paintSeed: worn ? (random() < 0.1 ? null : sharedSeed(Math.floor(random() * 1000))) : random() < 0.5 ? 0 : null,
    rarityColor: random() < 0.15 ? null : pick(random, RARITY_COLORS),
    market_hash_name: name,
    img: random() < 0.1 ? null : `https://img.invalid/${itemId}-${seed % 100}.png`,
    phase:
      weapon.includes('Doppler') || weapon.includes('Fade') ? (random() < 0.3 ? null : pick(random, PHASES)) : null,
    price,
    float,
    stickers: Array.from({ length: stickerCount }, (_, slot) => ({
      name: pick(random, STICKERS),
      img: 'https://img.invalid/sticker.png',
      slot,
      wear: random() < 0.5 ? null : Math.round(random() * 100) / 100,
      wearPercent: null,
    })),
    keyChains: Array.from({ length: keyChainCount }, (_, slot) => ({
      name: pick(random, CHARMS),
      img: 'https://img.invalid/charm.png',
      slot,
      ...(random() < 0.5 ? { pattern: Math.floor(random() * 40) } : {}),
    })),
    steamId: null,
    inspectInGame: null,
    tradeUrl: null,
  };
}

/** Search terms and sticker names a query may use (some match nothing, some differ in case). */
export const SEARCH_TERMS = [
  'ak',
  'AWP',
  'redline',
  'doppler',
  'stattrak',
  '★',
  'souvenir',
  'field-tested',
  'fade',
  'Karambit Doppler',
  'ow',
  'x',
  'sticker crown',
  'zzz',
];
export const STICKER_TERMS = ['crown', 'CROWN', 'holo', 'titan', 'dawn', 'nope'];
export const CHARM_TERMS = ['lil', 'WURST', 'karat', 'nope'];
export const EXCLUDE_TERMS = ['stattrak', 'field', 'souvenir ★', 'zzz'];
export const QUERY_PHASES = [...PHASES, 'Sapphire'];
export const QUERY_RARITIES = [...RARITY_COLORS, '#B0C3D9', '#000000'];
