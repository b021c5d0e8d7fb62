import { describe, expect, it } from 'vitest';
import { generateCatalog } from '../../src/server/catalog/generator';
import { RARITIES, rarityName } from '../../src/renderer/src/lib/rarity';
import {
  COLUMNS,
  emptyColumns,
  FOLDABLE,
  FOLDABLE_NARROWEST,
  narrowTemplate,
} from '../../src/renderer/src/screens/catalog/columns';
import { nameParts } from '../../src/renderer/src/screens/catalog/itemName';
import { row } from './fixtures';

const items = [...generateCatalog({ seed: 3, count: 20_000, imageBaseUrl: 'http://sandbox.invalid/img' })];

describe('rarity label', () => {
  it('names the gold grade of knives and gloves (★) as traders do, never Contraband', () => {
    const starred = items.filter((item) => item.market_hash_name.startsWith('★') && item.rarityColor === '#e4ae39');
    expect(starred.some((item) => /Gloves|Wraps/.test(item.market_hash_name))).toBe(true);
    expect(starred.some((item) => /Knife|Karambit|Bayonet|Daggers/.test(item.market_hash_name))).toBe(true);
    for (const item of starred) expect(rarityName(item.rarityColor, item.market_hash_name)).toBe('★ Extraordinary');
  });

  it('says Contraband only for an item of that colour without ★', () => {
    expect(rarityName('#e4ae39', 'M4A4 | Howl (Field-Tested)')).toBe('Contraband');
    expect(rarityName('#E4AE39', 'StatTrak™ M4A4 | Howl (Minimal Wear)')).toBe('Contraband');
  });

  it('keeps the other grades and the unknown ones', () => {
    expect(rarityName('#eb4b4b', 'AK-47 | Fire Serpent (Field-Tested)')).toBe('Covert');
    expect(rarityName('#4b69ff', 'P250 | Sand Dune (Factory New)')).toBe('Mil-Spec');
    expect(rarityName(null, 'Sticker | Crown (Foil)')).toBe('Unknown rarity');
    expect(rarityName('#123456', 'X')).toBe('#123456');
  });

  it('offers the gold grade in the rarity filter by what it holds', () => {
    expect(RARITIES.find((r) => r.color === '#e4ae39')?.name).toBe('★ Extraordinary');
    expect(RARITIES.map((r) => r.name)).not.toContain('Contraband');
  });
});

describe('item name parts for a narrow grid', () => {
  it('splits off the wear and abbreviates it, keeping the whole name in order', () => {
    expect(nameParts('StatTrak™ AK-47 | Redline (Field-Tested)')).toEqual({
      head: 'StatTrak™ AK-47',
      tail: ' | Redline',
      wear: ' (Field-Tested)',
      wearName: 'Field-Tested',
      wearShort: 'FT',
    });
    const shorts = ['Factory New', 'Minimal Wear', 'Field-Tested', 'Well-Worn', 'Battle-Scarred'].map(
      (w) => nameParts(`P90 | Asiimov (${w})`).wearShort,
    );
    expect(shorts).toEqual(['FN', 'MW', 'FT', 'WW', 'BS']);
  });

  it('leaves names without a wear whole, and a parenthesis that is not a wear in the name', () => {
    expect(nameParts('Sticker | Natus Vincere (Holo) | Copenhagen 2024')).toEqual({
      head: 'Sticker',
      tail: ' | Natus Vincere (Holo) | Copenhagen 2024',
      wear: '',
      wearName: null,
      wearShort: null,
    });
    expect(nameParts('★ Karambit')).toEqual({
      head: '★ Karambit',
      tail: '',
      wear: '',
      wearName: null,
      wearShort: null,
    });
  });

  it('parts always join back into the name (every item of a generated catalog)', () => {
    for (const item of items) {
      const p = nameParts(item.market_hash_name);
      expect(p.head + p.tail + p.wear).toBe(item.market_hash_name);
      if (item.float !== null) expect(p.wearShort, item.market_hash_name).toMatch(/^(FN|MW|FT|WW|BS)$/);
    }
  });
});

describe('columns a narrow grid folds', () => {
  const skin = row(1, 500, { float: 0.2, phase: null, stickerCount: 0 });
  const doppler = row(2, 90_000, { float: 0.01, phase: 'Ruby', stickerCount: 0 });
  const sticker = row(3, 30, { float: null, phase: null, stickerCount: 0 });
  const stickered = row(4, 700, { float: 0.3, phase: null, stickerCount: 2 });

  it('folds phase, float and stickers when no loaded row fills them', () => {
    expect(emptyColumns([skin], null)).toEqual(['phase', 'stickers']);
    expect(emptyColumns([sticker], null)).toEqual(['phase', 'float', 'stickers']);
    expect(emptyColumns([skin, doppler, stickered], null)).toEqual([]);
  });

  it('never folds the sorted column, and folds nothing before rows are known', () => {
    expect(emptyColumns([sticker], 'float')).toEqual(['phase', 'stickers']);
    expect(emptyColumns([], null)).toEqual([]);
  });

  it('gives a folded column no width, next to seed, charms and float rank (folded unless sorted by), and the age when narrower; never the discount', () => {
    const folded = (sortedBy: Parameters<typeof narrowTemplate>[1], which = FOLDABLE) => {
      const template = narrowTemplate(['phase'], sortedBy, which).match(/minmax\([^)]*\)|\S+/g) ?? [];
      expect(template).toHaveLength(COLUMNS.length);
      return COLUMNS.filter((_, i) => template[i] === '0px').map((c) => c.id);
    };
    expect(folded(null)).toEqual(['phase', 'seed', 'keychains', 'rank']);
    expect(folded('rank')).toEqual(['phase', 'seed', 'keychains']);
    expect(folded(null, FOLDABLE_NARROWEST)).toEqual(['phase', 'seed', 'keychains', 'age', 'rank']);
    expect(folded('age', FOLDABLE_NARROWEST)).toEqual(['phase', 'seed', 'keychains', 'rank']);
  });
});
