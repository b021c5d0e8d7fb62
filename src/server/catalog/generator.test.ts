import { afterEach, describe, expect, it, vi } from 'vitest';
import { isValidTradeUrl, itemSchema, wearPercentOf, type Item } from '../../shared/api';
import { PRICE_ANCHORS } from './anchors';
import { WEAR_BOUNDS, WEAR_NAMES } from './cs2Data';
import { allEntries } from './entries';
import {
  catalogTotals,
  completeItem,
  DEFAULT_FIRST_ITEM_ID,
  generateCatalog,
  generateItem,
  holderOf,
  itemSeed,
  type CatalogOptions,
} from './generator';
import { Rng } from './rng';

const IMAGE_BASE = 'http://127.0.0.1:4000/img';
const options = (seed: number, count: number, extra: Partial<CatalogOptions> = {}): CatalogOptions => ({
  seed,
  count,
  imageBaseUrl: IMAGE_BASE,
  ...extra,
});

let shared: Item[] | null = null;
/** One 50,000-item catalog shared by the property checks. */
function catalog50k(): Item[] {
  shared ??= [...generateCatalog(options(2024, 50_000))];
  return shared;
}

const WEAR_SUFFIX = new RegExp(` \\((${WEAR_NAMES.join('|')})\\)$`);
const DOPPLER_LABELS = ['Phase 1', 'Phase 2', 'Phase 3', 'Phase 4', 'Ruby', 'Sapphire', 'Black Pearl'];
const GAMMA_LABELS = ['Phase 1', 'Phase 2', 'Phase 3', 'Phase 4', 'Emerald'];
const SMALL_PREFIXES = ['Sticker | ', 'Patch | ', 'Charm | ', 'Souvenir Charm | ', 'Sticker Slab | '];

function kindOf(item: Item): string {
  const name = item.market_hash_name;
  if (SMALL_PREFIXES.some((prefix) => name.startsWith(prefix))) return 'small';
  if (name.startsWith('★')) return /Gloves|Hand Wraps/.test(name) ? 'glove' : 'knife';
  return 'weapon';
}

/** Checks the naming rules of one market hash name; returns the problem or null. */
function nameProblem(item: Item): string | null {
  const name = item.market_hash_name;
  const kind = kindOf(item);
  const statTrak = name.includes('StatTrak™');
  const souvenir = name.startsWith('Souvenir ') && !name.startsWith('Souvenir Charm |');
  if (statTrak && souvenir) return 'StatTrak™ and Souvenir together';
  if (name.includes('  ') || name !== name.trim()) return 'stray spaces';
  if (kind === 'small')
    return statTrak || souvenir || WEAR_SUFFIX.test(name) ? 'sticker/charm with variant or wear' : null;
  if (kind === 'weapon') {
    if (
      !/^(StatTrak™ |Souvenir )?[^★|]+ \| [^|]+ \((Factory New|Minimal Wear|Field-Tested|Well-Worn|Battle-Scarred)\)$/.test(
        name,
      )
    )
      return 'weapon name shape';
    return null;
  }
  if (souvenir || name.includes('Souvenir')) return 'souvenir knife/glove';
  if (kind === 'glove' && statTrak) return 'StatTrak™ glove';
  if (statTrak && !name.startsWith('★ StatTrak™ ')) return 'StatTrak™ not after ★';
  const vanilla = !name.includes(' | ');
  if (vanilla) {
    if (WEAR_SUFFIX.test(name)) return 'vanilla knife with wear';
    if (item.float !== null || item.phase !== null) return 'vanilla knife with float or phase';
    if (item.paintIndex !== null && item.paintIndex !== 0) return 'vanilla knife paint index';
    if (item.paintSeed !== null && item.paintSeed !== 0) return 'vanilla knife paint seed';
    return /^★ (StatTrak™ )?[A-Z][A-Za-z0-9 -]+$/.test(name) ? null : 'vanilla knife name shape';
  }
  return /^★ (StatTrak™ )?[^|★]+ \| [^|]+ \((Factory New|Minimal Wear|Field-Tested|Well-Worn|Battle-Scarred)\)$/.test(
    name,
  )
    ? null
    : 'knife/glove name shape';
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('generateCatalog determinism', () => {
  it('gives byte-identical items for the same options and different ones for another seed', () => {
    const a = JSON.stringify([...generateCatalog(options(7, 3_000))]);
    const b = JSON.stringify([...generateCatalog(options(7, 3_000))]);
    const c = JSON.stringify([...generateCatalog(options(8, 3_000))]);
    expect(a).toBe(b);
    expect(c).not.toBe(a);
  });

  it('never calls Math.random', () => {
    vi.spyOn(Math, 'random').mockImplementation(() => {
      throw new Error('Math.random called');
    });
    expect([...generateCatalog(options(3, 2_000))]).toHaveLength(2_000);
    expect(
      completeItem({ market_hash_name: 'AWP | Asiimov (Field-Tested)' }, new Rng(1), options(3, 10)).itemId,
    ).toBeGreaterThan(0);
  });

  it('builds item N the same whatever the count for the same holders and market size, and generateItem rebuilds it from itemSeed', () => {
    const fixed = { holderCount: 50, marketSize: 1_000 };
    const short = [...generateCatalog(options(5, 500, fixed))];
    const long = [...generateCatalog(options(5, 1_000, fixed))];
    expect(long.slice(0, 500)).toEqual(short);
    const id = DEFAULT_FIRST_ITEM_ID + 321;
    expect(generateItem(new Rng(itemSeed(5, id)), id, options(5, 1_000, fixed))).toEqual(long[321]);
  });

  it('numbers items consecutively from firstItemId', () => {
    const items = [...generateCatalog(options(1, 100, { firstItemId: 42 }))];
    expect(items.map((item) => item.itemId)).toEqual(Array.from({ length: 100 }, (_, i) => 42 + i));
    expect([...generateCatalog(options(1, 1))][0]?.itemId).toBe(1_000_001);
  });

  it('rejects bad options', () => {
    expect(() => [...generateCatalog(options(1, -1))]).toThrow(RangeError);
    expect(() => [...generateCatalog(options(1, 1.5))]).toThrow(RangeError);
    expect(() => [...generateCatalog(options(1, 1, { firstItemId: 0 }))]).toThrow(RangeError);
    expect(() => [...generateCatalog(options(Number.NaN, 1))]).toThrow(RangeError);
    expect([...generateCatalog(options(1, 0))]).toEqual([]);
  });

  it('streams a 200,000-item catalog with consecutive ids', () => {
    let expected = DEFAULT_FIRST_ITEM_ID;
    let count = 0;
    for (const item of generateCatalog(options(99, 200_000))) {
      if (item.itemId !== expected) throw new Error(`id ${item.itemId}, expected ${expected}`);
      expected++;
      count++;
    }
    expect(count).toBe(200_000);
  });
});

describe('generated items', () => {
  it('every item of a 20,000-item catalog passes itemSchema', () => {
    for (const item of generateCatalog(options(11, 20_000))) {
      const result = itemSchema.safeParse(item);
      if (!result.success) throw new Error(`${item.itemId}: ${result.error.message}`);
    }
  });

  it('follows the naming rules', () => {
    const problems = catalog50k()
      .map((item) => [item.market_hash_name, nameProblem(item)] as const)
      .filter(([, problem]) => problem !== null);
    expect(problems.slice(0, 5)).toEqual([]);
  });

  it('has at least 2,000 distinct market hash names in 50,000 items', () => {
    expect(new Set(catalog50k().map((item) => item.market_hash_name)).size).toBeGreaterThanOrEqual(2_000);
  });

  it('mixes weapons, knives, gloves, stickers and charms, with StatTrak™ and Souvenir items', () => {
    const items = catalog50k();
    const imgKinds = new Set(items.map((item) => item.img?.split('/').at(-2)).filter((kind) => kind !== undefined));
    expect([...imgKinds].sort()).toEqual(['charm', 'glove', 'knife', 'sticker', 'weapon']);
    expect(items.some((item) => item.market_hash_name.startsWith('StatTrak™ '))).toBe(true);
    expect(items.some((item) => item.market_hash_name.startsWith('★ StatTrak™ '))).toBe(true);
    expect(items.some((item) => item.market_hash_name.startsWith('Souvenir '))).toBe(true);
  });

  it('keeps floats inside the wear named and the finish range', () => {
    const ranges = new Map(allEntries().map((entry) => [entry.base, [entry.minFloat, entry.maxFloat] as const]));
    for (const item of catalog50k()) {
      const wear = WEAR_SUFFIX.exec(item.market_hash_name);
      if (!wear) {
        expect(item.float).toBeNull();
        continue;
      }
      if (item.float === null) continue;
      const [lo, hi] = WEAR_BOUNDS[WEAR_NAMES.indexOf(wear[1] as (typeof WEAR_NAMES)[number])] ?? [0, 0];
      if (!(item.float >= lo && item.float < hi)) throw new Error(`${item.market_hash_name}: float ${item.float}`);
      const base = item.market_hash_name
        .slice(0, wear.index)
        .replace(/^(StatTrak™ |Souvenir )/, '')
        .replace('★ StatTrak™ ', '★ ');
      const [min, max] = ranges.get(base) ?? [0, 1];
      if (!(item.float >= min && item.float <= max))
        throw new Error(`${item.market_hash_name}: float ${item.float} outside ${min}–${max}`);
    }
  });

  it('gives phases only to Doppler and Gamma Doppler knives, always with a valid label', () => {
    let phased = 0;
    for (const item of catalog50k()) {
      const name = item.market_hash_name;
      const gamma = /^★ .+ \| Gamma Doppler \(/.test(name);
      const doppler = !gamma && /^★ .+ \| Doppler \(/.test(name);
      if (gamma) expect(GAMMA_LABELS).toContain(item.phase);
      else if (doppler) expect(DOPPLER_LABELS).toContain(item.phase);
      else expect(item.phase).toBeNull();
      if (item.phase !== null) phased++;
    }
    expect(phased).toBeGreaterThan(50);
  });

  it('derives wearPercent from wear for every sticker', () => {
    let stickers = 0;
    for (const item of catalog50k()) {
      for (const sticker of item.stickers) {
        stickers++;
        expect(sticker.wearPercent).toBe(wearPercentOf(sticker.wear));
        if (sticker.wear !== null) expect(Math.fround(sticker.wear)).toBe(sticker.wear);
      }
    }
    expect(stickers).toBeGreaterThan(10_000);
  });

  it('puts stickers (0–5) and keychains (0–1) on weapons only, in the intended shares', () => {
    const items = catalog50k();
    const weapons = items.filter((item) => kindOf(item) === 'weapon');
    for (const item of items) {
      expect(item.stickers.length).toBeLessThanOrEqual(5);
      expect(item.keyChains.length).toBeLessThanOrEqual(1);
      if (kindOf(item) !== 'weapon') expect(item.stickers.length + item.keyChains.length).toBe(0);
      for (const sticker of item.stickers) expect(sticker.slot >= 0 && sticker.slot <= 4).toBe(true);
      for (const keyChain of item.keyChains) expect(keyChain.slot).toBe(0);
    }
    const bare = weapons.filter((item) => item.stickers.length === 0).length / weapons.length;
    expect(bare).toBeGreaterThan(0.5);
    expect(bare).toBeLessThan(0.7);
    const charmed = weapons.filter((item) => item.keyChains.length > 0).length / weapons.length;
    expect(charmed).toBeGreaterThan(0.12);
    expect(charmed).toBeLessThan(0.18);
    const keyChains = weapons.flatMap((item) => item.keyChains);
    expect(keyChains.some((keyChain) => keyChain.name.startsWith('Sticker Slab | '))).toBe(true);
    expect(keyChains.some((keyChain) => keyChain.name.startsWith('Souvenir Charm | '))).toBe(true);
    expect(keyChains.some((keyChain) => keyChain.pattern !== undefined)).toBe(true);
  });

  it('fills holder fields from a pool of holderCount accounts', () => {
    const items = [...generateCatalog(options(3, 5_000, { holderCount: 25 }))];
    const holders = new Set(items.map(holderOf));
    expect(holders.size).toBe(25);
    for (const item of items) {
      expect(item.steamId).toMatch(/^7656119\d{10}$/);
      expect(isValidTradeUrl(item.tradeUrl ?? '')).toBe(true);
      const partner = BigInt(item.steamId ?? '0') - 76561197960265728n;
      expect(item.tradeUrl).toContain(`partner=${partner}&`);
      expect(item.inspectInGame).toMatch(
        new RegExp(
          `^steam://rungame/730/76561202255233023/\\+csgo_econ_action_preview%20S${item.steamId}A${item.assetId}D\\d+$`,
        ),
      );
    }
    expect(new Set([...generateCatalog(options(3, 30_000))].map(holderOf)).size).toBe(150);
  });

  it('keeps ids, asset ids and class ids in shape: asset ids unique but for rare reuse, class ids fixed per name', () => {
    const items = catalog50k();
    const assetIds = new Set(items.map((item) => item.assetId));
    expect(items.length - assetIds.size).toBeLessThan(30);
    const classByName = new Map<string, string>();
    for (const item of items) {
      expect(item.assetId).toMatch(/^\d{11}$/);
      expect(item.classId).toMatch(/^\d{9,10}$/);
      expect(item.instanceId).toMatch(/^\d+$/);
      const known = classByName.get(item.market_hash_name);
      if (known !== undefined) expect(item.classId).toBe(known);
      classByName.set(item.market_hash_name, item.classId);
    }
  });

  it('prices realistically by kind: the median of each name within its kind range', () => {
    const items = catalog50k();
    for (const item of items) expect(Number.isInteger(item.price) && item.price > 0).toBe(true);
    // Single listings carry premiums and deals; the name's median is its level.
    const prices = new Map<string, number[]>();
    for (const item of items) {
      if (item.phase !== null || item.stickers.length + item.keyChains.length > 0) continue;
      prices.set(item.market_hash_name, [...(prices.get(item.market_hash_name) ?? []), item.price]);
    }
    const medians = [...prices].map(
      ([name, list]) => [name, [...list].sort((a, b) => a - b)[list.length >> 1] ?? 0] as const,
    );
    // Anchored names (anchors.ts) have their market's level instead, checked in market.test.ts.
    const anchored = (name: string) => Object.keys(PRICE_ANCHORS).some((finish) => name.includes(finish));
    const within = (pick: (name: string) => boolean, lo: number, hi: number) => {
      const picked = medians.filter(([name]) => pick(name));
      expect(picked.length).toBeGreaterThan(0);
      for (const [name, median] of picked) expect(median >= lo && median <= hi, `${name}: ${median}`).toBe(true);
    };
    // The ranges of pricing.ts, give or take a listing's own ±8 % and float and pattern premiums.
    const ofKind = (kind: string) => (name: string) =>
      kindOf({ market_hash_name: name } as Item) === kind && !anchored(name);
    within(ofKind('knife'), 8_000 * 0.92, 500_000 * 1.2);
    within(ofKind('glove'), 6_000 * 0.92, 400_000 * 1.2);
    const consumer = new Set(
      items.filter((item) => item.rarityColor === '#b0c3d9').map((item) => item.market_hash_name),
    );
    // A consumer name's level is at most $1.00; one 0.00x Factory New listing can be a name's whole plain market.
    within((name) => consumer.has(name) && !name.startsWith('Souvenir ') && !anchored(name), 1, 100 * 1.08 * 1.5);
    // The grails (anchored: their lowest level is a Battle-Scarred Medusa near $1,800) stay far above everything else.
    within(
      (name) => / \| (Dragon Lore|Howl|Gungnir|Medusa|Wild Lotus) \(/.test(name),
      150_000,
      Number.MAX_SAFE_INTEGER,
    );
  });

  it('reports "no data" nulls rarely', () => {
    const items = catalog50k();
    const share = (pick: (item: Item) => unknown) => items.filter((item) => pick(item) === null).length / items.length;
    expect(share((item) => item.paintIndex)).toBeGreaterThan(0.005);
    expect(share((item) => item.paintIndex)).toBeLessThan(0.02);
    expect(share((item) => item.rarityColor)).toBeLessThan(0.01);
    expect(share((item) => item.img)).toBeLessThan(0.02);
  });

  it('totals items and value', () => {
    const items = [...generateCatalog(options(4, 1_000))];
    expect(catalogTotals(items)).toEqual({
      totalItems: 1_000,
      totalValue: items.reduce((sum, item) => sum + item.price, 0),
    });
    expect(catalogTotals([])).toEqual({ totalItems: 0, totalValue: 0 });
  });
});

describe('completeItem', () => {
  const opts = options(77, 1_000);

  it('keeps a given name and price and fills the rest consistently', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const item = completeItem(
        { market_hash_name: 'StatTrak™ AK-47 | Redline (Field-Tested)', price: 1234 },
        new Rng(seed),
        opts,
      );
      itemSchema.parse(item);
      expect(item.market_hash_name).toBe('StatTrak™ AK-47 | Redline (Field-Tested)');
      expect(item.price).toBe(1234);
      expect([282, null]).toContain(item.paintIndex);
      expect(['#d32ce6', null]).toContain(item.rarityColor); // Classified
      expect(item.phase).toBeNull();
      if (item.float !== null) expect(item.float >= 0.15 && item.float < 0.38).toBe(true);
      expect(item.img === null || item.img === `${IMAGE_BASE}/weapon/ak-47-redline.svg`).toBe(true);
    }
  });

  it('gives the same class id as the catalog for the same name', () => {
    const generated = [...generateCatalog(opts)][0];
    if (!generated) throw new Error('empty catalog');
    const item = completeItem({ market_hash_name: generated.market_hash_name }, new Rng(1), opts);
    expect(item.classId).toBe(generated.classId);
  });

  it('keeps a given itemId and generates a valid item around it', () => {
    const item = completeItem({ itemId: 5 }, new Rng(9), opts);
    expect(item.itemId).toBe(5);
    itemSchema.parse(item);
  });

  it('returns a complete item unchanged', () => {
    for (const generated of [...generateCatalog(opts)].slice(0, 300)) {
      expect(completeItem(generated, new Rng(3), opts)).toEqual(generated);
    }
  });

  it('derives sticker wearPercent from wear, including 0 → 100% and 1 → 0%', () => {
    const item = completeItem(
      {
        itemId: 77,
        market_hash_name: 'AWP | Asiimov (Battle-Scarred)',
        stickers: [
          { name: 'Sticker | Crown (Foil)', img: `${IMAGE_BASE}/sticker/sticker-crown-foil.svg`, slot: 0, wear: 0 },
          {
            name: 'Sticker | Crown (Foil)',
            img: `${IMAGE_BASE}/sticker/sticker-crown-foil.svg`,
            slot: 0,
            wear: 1,
            wearPercent: '55%',
          },
          {
            name: 'Sticker | Howling Dawn',
            img: `${IMAGE_BASE}/sticker/sticker-howling-dawn.svg`,
            slot: 2,
            wear: null,
            rotation: 12.5,
          },
          {
            name: 'Sticker | Bish (Holo)',
            img: `${IMAGE_BASE}/sticker/sticker-bish-holo.svg`,
            slot: 3,
            wear: Math.fround(0.25),
          },
        ],
      },
      new Rng(2),
      opts,
    );
    itemSchema.parse(item);
    expect(item.stickers.map((sticker) => sticker.wearPercent)).toEqual(['100%', '0%', null, '75%']);
    expect(item.stickers.map((sticker) => sticker.slot)).toEqual([0, 0, 2, 3]);
    expect(item.stickers[2]?.rotation).toBe(12.5);
    for (const sticker of item.stickers) expect(sticker.wearPercent).toBe(wearPercentOf(sticker.wear));
  });

  it('honours a given Doppler phase and name', () => {
    const item = completeItem(
      { market_hash_name: '★ Karambit | Doppler (Factory New)', phase: 'Ruby' },
      new Rng(4),
      opts,
    );
    itemSchema.parse(item);
    expect(item.phase).toBe('Ruby');
    expect([415, null]).toContain(item.paintIndex);
    expect(['#e4ae39', null]).toContain(item.rarityColor);
    if (item.float !== null) expect(item.float).toBeLessThan(0.07);
    const drawn = completeItem(
      { market_hash_name: '★ StatTrak™ Bayonet | Gamma Doppler (Minimal Wear)' },
      new Rng(4),
      opts,
    );
    expect(GAMMA_LABELS).toContain(drawn.phase);
    expect(drawn.stickers).toEqual([]);
  });

  it('picks a matching finish for a given phase or float alone', () => {
    const emerald = completeItem({ phase: 'Emerald' }, new Rng(8), opts);
    expect(emerald.market_hash_name).toMatch(/^★ (StatTrak™ )?.+ \| Gamma Doppler \((Factory New|Minimal Wear)\)$/);
    expect([568, null]).toContain(emerald.paintIndex);
    for (const float of [0.01, 0.1, 0.2, 0.4, 0.9]) {
      const item = completeItem({ float }, new Rng(Math.round(float * 100)), opts);
      expect(item.float).toBe(float);
      const [lo, hi] = WEAR_BOUNDS[WEAR_NAMES.findIndex((name) => item.market_hash_name.endsWith(`(${name})`))] ?? [
        2, 2,
      ];
      expect(float >= lo && float < hi).toBe(true);
    }
  });

  it('handles vanilla knives, stickers, gloves and unknown names', () => {
    const vanilla = completeItem({ market_hash_name: '★ StatTrak™ Karambit' }, new Rng(1), opts);
    expect(vanilla.float).toBeNull();
    expect(vanilla.phase).toBeNull();
    expect([0, null]).toContain(vanilla.paintIndex);
    expect([0, null]).toContain(vanilla.paintSeed);
    const sticker = completeItem({ market_hash_name: 'Sticker | Crown (Foil)' }, new Rng(1), opts);
    expect(sticker.float).toBeNull();
    expect(sticker.img === null || sticker.img.includes('/sticker/')).toBe(true);
    const glove = completeItem({ market_hash_name: '★ Sport Gloves | Vice (Field-Tested)' }, new Rng(1), opts);
    expect(glove.float === null || (glove.float >= 0.15 && glove.float < 0.38)).toBe(true);
    const unknown = completeItem(
      { market_hash_name: 'Mystery Gun | Prototype (Factory New)', price: 500 },
      new Rng(1),
      opts,
    );
    itemSchema.parse(unknown);
    expect(unknown.market_hash_name).toBe('Mystery Gun | Prototype (Factory New)');
    expect(unknown.rarityColor).toBeNull();
    expect(unknown.paintIndex).toBeNull();
    if (unknown.float !== null) expect(unknown.float).toBeLessThan(0.07);
    for (const item of [vanilla, sticker, glove]) itemSchema.parse(item);
  });

  it('uses a given steamId and assetId in the inspect link and trade URL', () => {
    const item = completeItem(
      { market_hash_name: 'AWP | Asiimov (Field-Tested)', steamId: '76561198000000001', assetId: '12345678901' },
      new Rng(6),
      opts,
    );
    expect(item.steamId).toBe('76561198000000001');
    expect(item.assetId).toBe('12345678901');
    expect(item.inspectInGame).toMatch(/%20S76561198000000001A12345678901D\d+$/);
    expect(item.tradeUrl).toMatch(/partner=39734273&token=[A-Za-z0-9_-]{8}$/);
    const hidden = completeItem({ steamId: null }, new Rng(6), opts);
    expect(hidden.inspectInGame).toBeNull();
    expect(hidden.tradeUrl).toBeNull();
  });

  it('keeps explicitly given nulls and odd values as given', () => {
    const item = completeItem(
      { itemId: 9, img: null, float: null, rarityColor: null, paintSeed: null, phase: null },
      new Rng(1),
      opts,
    );
    expect(item).toMatchObject({ itemId: 9, img: null, float: null, rarityColor: null, paintSeed: null, phase: null });
  });
});
