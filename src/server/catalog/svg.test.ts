import { describe, expect, it } from 'vitest';
import { WEAPONS, WEAPON_CLASSES } from './cs2Data';
import { slugify } from './naming';
import { renderItemImage, weaponClassOf } from './svg';

/** The drawing inside the card (the colours vary with the slug; the shape must not). */
const shapeOf = (svg: string | null) => /<g [^>]*>(.*)<\/g><\/svg>$/.exec(svg ?? '')?.[1] ?? null;

describe('renderItemImage', () => {
  it.each(['weapon', 'knife', 'glove', 'sticker', 'charm'])('renders a small self-contained SVG for %s', (kind) => {
    const svg = renderItemImage(kind, 'ak-47-redline');
    expect(svg).not.toBeNull();
    const text = svg ?? '';
    expect(text.startsWith('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 256 192"')).toBe(true);
    expect(text.endsWith('</svg>')).toBe(true);
    expect(text.length).toBeGreaterThan(200);
    expect(text.length).toBeLessThan(1000);
    // No text, scripts or external references.
    expect(text).not.toMatch(/<text|<script|href=|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    // Tags balance.
    const opened = (text.match(/<(?!\/)[a-zA-Z]+[^>]*[^/]>/g) ?? []).length;
    const closed = (text.match(/<\/[a-zA-Z]+>/g) ?? []).length;
    expect(opened).toBe(closed);
  });

  it('derives the colour from the slug, deterministically', () => {
    expect(renderItemImage('weapon', 'awp-dragon-lore')).toBe(renderItemImage('weapon', 'awp-dragon-lore'));
    expect(renderItemImage('weapon', 'awp-dragon-lore')).not.toBe(renderItemImage('weapon', 'awp-asiimov'));
  });

  it('draws a different silhouette per kind', () => {
    const shapes = new Set(
      ['weapon', 'knife', 'glove', 'sticker', 'charm'].map((kind) => renderItemImage(kind, 'same-slug')),
    );
    expect(shapes.size).toBe(5);
  });

  it.each([
    ['glock-18-fade', 'pistol'],
    ['usp-s-kill-confirmed', 'pistol'],
    ['desert-eagle-blaze', 'pistol'],
    ['r8-revolver-fade', 'pistol'],
    ['mp9-hydra', 'smg'],
    ['p90-asiimov', 'smg'],
    ['mp5-sd-phosphor', 'smg'],
    ['ak-47-redline', 'rifle'],
    ['m4a1-s-printstream', 'rifle'],
    ['m4a4-howl', 'rifle'],
    ['awp-dragon-lore', 'sniper'],
    ['ssg-08-blood-in-the-water', 'sniper'],
    ['nova-koi', 'shotgun'],
    ['sawed-off-the-kraken', 'shotgun'],
    ['mag-7-bulldozer', 'shotgun'],
    ['m249-emerald-poison-dart', 'machinegun'],
    ['negev-power-loader', 'machinegun'],
    ['unknown-gun-thing', 'rifle'],
  ])('reads the weapon class from the slug: %s → %s', (slug, weaponClass) => {
    expect(weaponClassOf(slug)).toBe(weaponClass);
  });

  it('gives every weapon of the catalog a class', () => {
    expect(Object.keys(WEAPON_CLASSES).sort()).toEqual(WEAPONS.map((weapon) => weapon.name).sort());
    for (const weapon of WEAPONS)
      expect(weaponClassOf(`${slugify(weapon.name)}-some-finish`), weapon.name).toBe(WEAPON_CLASSES[weapon.name]);
  });

  it('draws each weapon class with its own silhouette, the same for every weapon of a class', () => {
    const representatives = [
      'glock-18-fade',
      'mp9-hydra',
      'ak-47-redline',
      'awp-dragon-lore',
      'nova-koi',
      'negev-power-loader',
    ];
    const weaponShapes = representatives.map((slug) => shapeOf(renderItemImage('weapon', slug)));
    expect(weaponShapes.every((shape) => shape !== null && shape.length > 50)).toBe(true);
    expect(new Set(weaponShapes).size).toBe(6);
    // Distinct from the knife and the glove too.
    const others = ['knife', 'glove'].map((kind) => shapeOf(renderItemImage(kind, 'same-slug')));
    expect(new Set([...weaponShapes, ...others]).size).toBe(8);
    // Same class, same shape (colours differ with the slug).
    expect(shapeOf(renderItemImage('weapon', 'usp-s-kill-confirmed'))).toBe(
      shapeOf(renderItemImage('weapon', 'desert-eagle-blaze')),
    );
    expect(shapeOf(renderItemImage('weapon', 'ssg-08-abyss'))).toBe(shapeOf(renderItemImage('weapon', 'awp-asiimov')));
    expect(renderItemImage('weapon', 'usp-s-kill-confirmed')).not.toBe(renderItemImage('weapon', 'desert-eagle-blaze'));
  });

  it.each(['glock-18-fade', 'mp9-hydra', 'awp-dragon-lore', 'nova-koi', 'negev-power-loader'])(
    'keeps the %s image small and self-contained',
    (slug) => {
      const text = renderItemImage('weapon', slug) ?? '';
      expect(text.length).toBeLessThan(1000);
      expect(text).not.toMatch(/<text|<script|href=|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
      // Path data only: numbers, commands, spaces.
      for (const [, d] of text.matchAll(/ d="([^"]*)"/g)) expect(d).toMatch(/^[MmLlHhVvQqCcZz0-9 .,-]+$/);
    },
  );

  it.each([
    ['tank', 'ak-47-redline'],
    ['__proto__', 'ak-47-redline'],
    ['toString', 'x'],
    ['weapon', ''],
    ['weapon', 'AK-47'],
    ['weapon', '../etc/passwd'],
    ['weapon', 'a b'],
    ['weapon', 'x'.repeat(121)],
  ])('returns null for kind %j and slug %j', (kind, slug) => {
    expect(renderItemImage(kind, slug)).toBeNull();
  });

  it('accepts a slug of 120 characters', () => {
    expect(renderItemImage('charm', 'x'.repeat(120))).not.toBeNull();
  });
});
