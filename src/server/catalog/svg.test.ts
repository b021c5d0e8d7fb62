import { describe, expect, it } from 'vitest';
import { renderItemImage } from './svg';

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
    const shapes = new Set(['weapon', 'knife', 'glove', 'sticker', 'charm'].map((kind) => renderItemImage(kind, 'same-slug')));
    expect(shapes.size).toBe(5);
  });

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
