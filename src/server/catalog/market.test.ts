/**
 * The demo market as a trader sees it: statistics over whole seeded catalogs of
 * the sizes the sandbox is started with (20,000 for the demo, 2,000 for e2e).
 */
import { describe, expect, it } from 'vitest';
import type { Item } from '../../shared/api';
import { PRICE_ANCHORS } from './anchors';
import { WEAPON_CLASSES, WEAR_NAMES } from './cs2Data';
import { allEntries, entryByBase, GRADE_COLORS } from './entries';
import { generateCatalog, type CatalogOptions } from './generator';
import { parseMarketHashName, VARIANT_NORMAL } from './naming';
import { patternTierOf } from './patterns';
import { variantMultOf } from './value';

const DEMO_SIZE = 20_000;
/** The lowest price a skin sells for, cents. */
const FLOOR = 3;
const E2E_SIZE = 2_000;
const options = (seed: number, count: number): CatalogOptions => ({
  seed,
  count,
  imageBaseUrl: 'http://127.0.0.1:4000/img',
});

/** Blue gem seeds as a pattern guide lists them (tier 1, the ones traders paste first). */
const AK_BLUE_GEMS = [661, 670, 321, 955, 151, 179, 387, 555, 592, 617, 760, 809, 828, 868];
const KNIFE_BLUE_GEMS = [387, 442, 463, 269, 853, 494, 73, 670];

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

interface Market {
  items: Item[];
  byName: Map<string, Item[]>;
  medianOf: (name: string) => number;
}

function marketOf(items: Item[]): Market {
  const byName = new Map<string, Item[]>();
  for (const item of items) {
    const listings = byName.get(item.market_hash_name);
    if (listings) listings.push(item);
    else byName.set(item.market_hash_name, [item]);
  }
  const medians = new Map([...byName].map(([name, listings]) => [name, median(listings.map((item) => item.price))]));
  return { items, byName, medianOf: (name) => medians.get(name) ?? Number.NaN };
}

const cache = new Map<string, Market>();
function market(seed: number, count: number): Market {
  const key = `${seed}:${count}`;
  let found = cache.get(key);
  if (!found) {
    found = marketOf([...generateCatalog(options(seed, count))]);
    cache.set(key, found);
  }
  return found;
}

type Group = 'knife' | 'glove' | 'rifle' | 'pistol' | 'other';
function groupOf(name: string): Group {
  if (name.startsWith('★')) return /Gloves|Hand Wraps/.test(name) ? 'glove' : 'knife';
  const weapon = parseMarketHashName(name).base.split(' | ')[0] ?? '';
  const weaponClass = WEAPON_CLASSES[weapon];
  if (weaponClass === 'rifle' || weaponClass === 'sniper') return 'rifle';
  return weaponClass === 'pistol' ? 'pistol' : 'other';
}

/** A listing's price against its name's median: 0.8 = 20 % under. */
const ratio = (m: Market, item: Item) => item.price / m.medianOf(item.market_hash_name);

const bare = (item: Item) => item.stickers.length === 0 && item.keyChains.length === 0;

describe('demo market: listings per name', () => {
  for (const count of [E2E_SIZE, DEMO_SIZE]) {
    it(`gives most names several listings at ${count.toLocaleString('en-US')} items`, () => {
      const m = market(7, count);
      const sizes = [...m.byName.values()].map((listings) => listings.length);
      const several = sizes.filter((n) => n >= 3);
      expect(several.length / sizes.length).toBeGreaterThan(0.5);
      // Nearly every listing has a name with a meaningful median.
      expect(several.reduce((sum, n) => sum + n, 0) / count).toBeGreaterThan(0.85);
      expect(median(sizes)).toBeGreaterThanOrEqual(4);
    });
  }

  it('still offers a wide market at 50,000 items', () => {
    expect(market(7, 50_000).byName.size).toBeGreaterThanOrEqual(2_000);
  });
});

describe('demo market: price levels', () => {
  it('prices Factory New above Battle-Scarred, and each wear above the next, for the same skin', () => {
    const m = market(7, DEMO_SIZE);
    // Median of each (skin, variant) by wear, for names with at least 3 listings.
    const byWear = new Map<string, (number | undefined)[]>();
    for (const [name, listings] of m.byName) {
      const parsed = parseMarketHashName(name);
      if (parsed.wearIndex < 0 || listings.length < 3) continue;
      const key = `${parsed.variant}:${parsed.base}`;
      const row = byWear.get(key) ?? new Array<number | undefined>(WEAR_NAMES.length).fill(undefined);
      // Ordinary listings: no stickers or charms, no seed from a pattern list (those sell on the pattern).
      const ordinary = listings.filter((item) => bare(item) && patternTierOf(parsed.base, item.paintSeed) === null);
      row[parsed.wearIndex] = median(ordinary.map((item) => item.price));
      byWear.set(key, row);
    }
    let fnBs = 0;
    let adjacent = 0;
    let adjacentOrdered = 0;
    for (const [key, row] of byWear) {
      const [fn, , , , bs] = row;
      // At the market's floor of 3 cents every wear sells alike.
      if (fn !== undefined && bs !== undefined && !Number.isNaN(fn) && !Number.isNaN(bs) && fn > FLOOR) {
        fnBs++;
        expect(fn, key).toBeGreaterThan(bs);
      }
      for (let wear = 0; wear < row.length - 1; wear++) {
        const [better, worse] = [row[wear], row[wear + 1]];
        if (
          better === undefined ||
          worse === undefined ||
          Number.isNaN(better) ||
          Number.isNaN(worse) ||
          better <= FLOOR
        )
          continue;
        adjacent++;
        if (better > worse) adjacentOrdered++;
      }
    }
    expect(fnBs).toBeGreaterThan(30);
    expect(adjacentOrdered / adjacent).toBeGreaterThan(0.95);
  });

  it('prices knives and gloves far above rifles, and rifles well above pistols', () => {
    const m = market(7, DEMO_SIZE);
    const levels = new Map<Group, number[]>();
    for (const [name] of m.byName) {
      const group = groupOf(name);
      const list = levels.get(group) ?? [];
      list.push(m.medianOf(name));
      levels.set(group, list);
    }
    const level = (group: Group) => median(levels.get(group) ?? []);
    expect(level('knife')).toBeGreaterThan(15 * level('rifle'));
    expect(level('glove')).toBeGreaterThan(15 * level('rifle'));
    expect(level('rifle')).toBeGreaterThan(2 * level('pistol'));
  });

  it('prices StatTrak™ and Souvenir above the plain skin', () => {
    const m = market(7, DEMO_SIZE);
    for (const prefix of ['StatTrak™ ', 'Souvenir ']) {
      let compared = 0;
      let above = 0;
      for (const [name, listings] of m.byName) {
        if (!name.startsWith(prefix) || listings.length < 3) continue;
        const plain = m.byName.get(name.slice(prefix.length));
        if (!plain || plain.length < 3) continue;
        compared++;
        if (m.medianOf(name) > m.medianOf(name.slice(prefix.length))) above++;
      }
      expect(compared, prefix).toBeGreaterThan(10);
      expect(above / compared, prefix).toBeGreaterThan(0.9);
    }
  });
});

describe('demo market: well-known names', () => {
  it('anchors every wear a well-known finish has, and only those', () => {
    for (const [base, levels] of Object.entries(PRICE_ANCHORS)) {
      const entry = entryByBase(base);
      expect(entry, base).toBeDefined();
      const anchoredWears = levels.flatMap((level, wear) => (level === null ? [] : [wear]));
      expect(anchoredWears, base).toEqual(entry?.wears);
    }
  });

  it('lists them around their market levels, StatTrak™ and Souvenir a sane multiple of the plain skin', () => {
    const m = market(7, 50_000);
    let checked = 0;
    for (const [name, listings] of m.byName) {
      const parsed = parseMarketHashName(name);
      const entry = entryByBase(parsed.base);
      const level = PRICE_ANCHORS[parsed.base]?.[parsed.wearIndex];
      if (!entry || level === undefined || level === null) continue;
      // Ordinary listings: no stickers or charms, no seed from a pattern list, no Doppler gem, no 0.00x float.
      const ordinary = listings.filter(
        (item) =>
          bare(item) &&
          patternTierOf(parsed.base, item.paintSeed) === null &&
          !/Ruby|Sapphire|Pearl|Emerald/.test(item.phase ?? '') &&
          !((item.float ?? 1) < 0.01),
      );
      if (ordinary.length < 3) continue;
      const variantMult = variantMultOf(entry, parsed.variant);
      if (parsed.variant !== VARIANT_NORMAL) expect(variantMult, name).toBeGreaterThanOrEqual(1.15);
      expect(variantMult, name).toBeLessThanOrEqual(3.7);
      const ratio = median(ordinary.map((item) => item.price)) / (level * 100 * variantMult);
      expect(ratio, name).toBeGreaterThan(0.85);
      expect(ratio, name).toBeLessThan(1.25);
      checked++;
    }
    expect(checked).toBeGreaterThan(15);
  });

  it('prices the names a trader knows by heart where the market does', () => {
    const level = (base: string, wear: number) =>
      (entryByBase(base)?.price.base ?? 0) * (entryByBase(base)?.price.wearMult[wear] ?? 0);
    const ft = 2;
    expect(level('AK-47 | Redline', ft)).toBeGreaterThanOrEqual(2_000);
    expect(level('AK-47 | Redline', ft)).toBeLessThanOrEqual(4_000);
    expect(level('Glock-18 | Fade', 0)).toBeGreaterThanOrEqual(30_000);
    const killConfirmed = entryByBase('USP-S | Kill Confirmed');
    const statTrak = level('USP-S | Kill Confirmed', ft) * (killConfirmed?.price.statTrakMult ?? 0);
    expect(statTrak).toBeGreaterThan(6_000);
    expect(statTrak).toBeLessThan(20_000);
  });

  it('gives well-known finishes their rarity', () => {
    const classified = [
      'AK-47 | Redline',
      'AWP | Redline',
      'AK-47 | Case Hardened',
      'M4A1-S | Hot Rod',
      'AK-47 | Ice Coaled',
    ];
    const covert = [
      'AK-47 | Asiimov',
      'AK-47 | Vulcan',
      'AWP | Asiimov',
      'USP-S | Kill Confirmed',
      'M4A1-S | Printstream',
    ];
    const restricted = ['Glock-18 | Fade', 'Desert Eagle | Blaze'];
    for (const base of classified) expect(entryByBase(base)?.color, base).toBe(GRADE_COLORS.L);
    for (const base of covert) expect(entryByBase(base)?.color, base).toBe(GRADE_COLORS.V);
    for (const base of restricted) expect(entryByBase(base)?.color, base).toBe(GRADE_COLORS.R);
    // And the listings carry it (or, now and then, no rarity at all).
    const redlines = market(7, 50_000).items.filter((item) => item.market_hash_name.includes('AK-47 | Redline ('));
    expect(redlines.length).toBeGreaterThan(0);
    for (const item of redlines) expect([GRADE_COLORS.L, null]).toContain(item.rarityColor);
    expect(
      allEntries()
        .filter((entry) => entry.base.endsWith('| Redline'))
        .every((entry) => entry.color === GRADE_COLORS.L),
    ).toBe(true);
  });
});

describe('demo market: premiums', () => {
  it('prices Ruby, Sapphire and Black Pearl far above Emerald, and Emerald far above Phase 1–4', () => {
    const m = market(7, 50_000);
    // Each phased listing against the median of its name's Phase 1–4 listings.
    const common = new Map<string, number>();
    for (const [name, listings] of m.byName) {
      const phases = listings.filter((item) => item.phase !== null && /^Phase [1-4]$/.test(item.phase));
      if (phases.length > 0) common.set(name, median(phases.map((item) => item.price)));
    }
    const ratios = new Map<string, number[]>();
    for (const item of m.items) {
      const base = common.get(item.market_hash_name);
      if (item.phase === null || base === undefined || !bare(item)) continue;
      const list = ratios.get(item.phase) ?? [];
      list.push(item.price / base);
      ratios.set(item.phase, list);
    }
    const level = (phase: string) => median(ratios.get(phase) ?? [Number.NaN]);
    for (const gem of ['Ruby', 'Sapphire', 'Black Pearl']) {
      expect(ratios.get(gem)?.length, gem).toBeGreaterThan(0);
      expect(level(gem), gem).toBeGreaterThan(1.3 * level('Emerald'));
    }
    expect(level('Emerald')).toBeGreaterThan(2.5);
    for (const phase of ['Phase 1', 'Phase 2', 'Phase 3', 'Phase 4']) expect(level(phase), phase).toBeLessThan(1.25);
  });

  it('pays a premium for a 0.00x float within Factory New', () => {
    const m = market(7, DEMO_SIZE);
    const low: number[] = [];
    const rest: number[] = [];
    for (const item of m.items) {
      if (item.float === null || !item.market_hash_name.endsWith('(Factory New)') || !bare(item)) continue;
      if ((m.byName.get(item.market_hash_name)?.length ?? 0) < 5) continue;
      (item.float < 0.01 ? low : rest).push(ratio(m, item));
    }
    expect(low.length).toBeGreaterThan(50);
    expect(median(low)).toBeGreaterThan(1.15 * median(rest));
  });

  it('lists Case Hardened blue gems from the pattern guides far above their names’ medians', () => {
    const m = market(7, 50_000);
    const gems = m.items.filter((item) => {
      if (!item.market_hash_name.includes('| Case Hardened (') || item.paintSeed === null) return false;
      // Knives (gloves carry no pattern list).
      const knife = item.market_hash_name.startsWith('★') && groupOf(item.market_hash_name) === 'knife';
      const seeds = knife ? KNIFE_BLUE_GEMS : item.market_hash_name.includes('AK-47') ? AK_BLUE_GEMS : [];
      return seeds.includes(item.paintSeed);
    });
    expect(gems.length).toBeGreaterThanOrEqual(3);
    for (const gem of gems)
      expect(ratio(m, gem), `${gem.market_hash_name} seed ${gem.paintSeed ?? ''}`).toBeGreaterThan(2);
  });

  it('prices four of the same valuable sticker, and valuable charms, above the skin’s median', () => {
    const m = market(7, DEMO_SIZE);
    const crafts: number[] = [];
    const charmed: number[] = [];
    let craftCount = 0;
    for (const item of m.items) {
      const median = m.medianOf(item.market_hash_name);
      const names = item.stickers.map((sticker) => sticker.name);
      const craft = names.length >= 4 && names.every((name) => name === names[0]);
      if (craft) craftCount++;
      if (craft && item.stickers.every((sticker) => sticker.wear === 0)) crafts.push(item.price / median);
      if (item.keyChains.length > 0 && item.stickers.length === 0) charmed.push(item.price / median);
    }
    const stickered = m.items.filter(
      (item) => item.stickers.length > 0 && !item.market_hash_name.startsWith('Souvenir '),
    ).length;
    expect(craftCount / stickered).toBeGreaterThan(0.02);
    expect(crafts.length).toBeGreaterThan(20);
    expect(median(crafts)).toBeGreaterThan(1.1);
    expect(median(charmed)).toBeGreaterThan(1.03);
  });
});

describe('demo market: deals', () => {
  for (const count of [E2E_SIZE, DEMO_SIZE]) {
    it(`lists 1–10 % of ${count.toLocaleString('en-US')} items 10–40 % under their name's median, in every kind`, () => {
      const m = market(11, count);
      const deals = m.items.filter((item) => {
        const r = ratio(m, item);
        return r >= 0.6 && r <= 0.9;
      });
      const share = deals.length / count;
      expect(share).toBeGreaterThan(0.01);
      expect(share).toBeLessThan(0.1);
      const groups = new Set(deals.map((item) => groupOf(item.market_hash_name)));
      expect([...groups].sort()).toEqual(
        count >= DEMO_SIZE
          ? ['glove', 'knife', 'other', 'pistol', 'rifle']
          : expect.arrayContaining(['rifle', 'pistol']),
      );
      // Deals are not spread across the few names with one or two listings only.
      expect(
        deals.filter((item) => (m.byName.get(item.market_hash_name)?.length ?? 0) >= 3).length / deals.length,
      ).toBeGreaterThan(0.8);
    });
  }
});

describe('demo market: reproducible', () => {
  it('gives the same catalog for the same seed and another for another seed', () => {
    const a = JSON.stringify([...generateCatalog(options(5, 4_000))]);
    expect(JSON.stringify([...generateCatalog(options(5, 4_000))])).toBe(a);
    expect(JSON.stringify([...generateCatalog(options(6, 4_000))])).not.toBe(a);
  });
});
