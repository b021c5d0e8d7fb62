import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { EnvelopeParser } from '../../src/main/core/store/worker/envelopeParser';
import { quickItemCheck } from '../../src/main/core/store/worker/catalogSync';
import { generateCatalog } from '../../src/server/catalog/generator';

function parseInChunks(text: string, cuts: number[]) {
  const items: unknown[] = [];
  const parser = new EnvelopeParser((batch) => items.push(...batch));
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    parser.push(text.slice(from, cut));
    from = Math.max(from, cut);
  }
  parser.push(text.slice(from));
  return { items, envelope: parser.end() };
}

const tricky = [
  { itemId: 1, market_hash_name: 'a "quoted" \\ name ] } { [ , ', arr: [1, { x: [2] }] },
  { itemId: 2, market_hash_name: 'StatTrak™ ★ 😀 é', empty: {}, list: [] },
  { itemId: 3, market_hash_name: '\\"', nested: { items: [{ itemId: 99 }] } },
];

describe('EnvelopeParser', () => {
  it('splits the items array at any chunk boundaries, with fields before or after it', () => {
    const bodies = [
      JSON.stringify({ totalItems: 3, totalValue: 7, items: tricky, lastUpdate: '2026-01-01T00:00:00.000Z' }),
      JSON.stringify({ lastUpdate: '2026-01-01T00:00:00.000Z', items: tricky, extra: { items: [1] }, totalItems: 3, totalValue: 7 }),
      JSON.stringify({ totalItems: 3, totalValue: 7, items: tricky, lastUpdate: '2026-01-01T00:00:00.000Z' }, null, 2),
    ];
    fc.assert(
      fc.property(fc.constantFrom(...bodies), fc.array(fc.nat(), { maxLength: 40 }), (body, cuts) => {
        const { items, envelope } = parseInChunks(body, cuts.map((cut) => cut % (body.length + 1)));
        expect(items).toEqual(tricky);
        expect(envelope).toEqual({ totalItems: 3, totalValue: 7, lastUpdate: '2026-01-01T00:00:00.000Z' });
      }),
      { numRuns: 300 },
    );
  });

  it('reads totalItems early when it comes first', () => {
    const parser = new EnvelopeParser(() => undefined);
    parser.push('{"totalItems":12345,"totalValue":1,"items":[{"itemId":1}');
    expect(parser.totalItems).toBe(12345);
    expect(parser.received).toBe(0); // the first item may still continue
    parser.push(',{"itemId":2}');
    expect(parser.received).toBe(1);
  });

  it('handles an empty list', () => {
    expect(parseInChunks('{"totalItems":0,"totalValue":0,"items":[ ],"lastUpdate":"x"}', [5, 30])).toEqual({
      items: [],
      envelope: { totalItems: 0, totalValue: 0, lastUpdate: 'x' },
    });
  });

  it.each([
    ['a truncated body', '{"totalItems":1,"items":[{"itemId":1},'],
    ['an empty element', '{"items":[{"itemId":1},,{"itemId":2}]}'],
    ['a body that is not an object', '[1,2]'],
    ['text after the body', '{"items":[{"itemId":1}]} trailing'],
    ['no items array', '{"totalItems":1}'],
    ['a broken item', '{"items":[{"itemId":tru}]}'],
  ])('rejects %s', (_label, body) => {
    expect(() => parseInChunks(body, [3, 7, 20])).toThrow();
  });

  it('parses a real catalog in 16 KB chunks', () => {
    const catalog = [...generateCatalog({ seed: 5, count: 500, imageBaseUrl: 'http://x/img' })];
    const body = JSON.stringify({ totalItems: 500, totalValue: 1, items: catalog, lastUpdate: 'y' });
    const cuts = Array.from({ length: Math.ceil(body.length / 16_384) }, (_, i) => i * 16_384);
    expect(parseInChunks(body, cuts).items).toEqual(catalog);
  });
});

describe('quickItemCheck', () => {
  const [good] = [...generateCatalog({ seed: 5, count: 1, imageBaseUrl: 'http://x/img' })];
  it('accepts a valid item and names what is wrong with a bad one', () => {
    expect(quickItemCheck(good)).toBeNull();
    expect(quickItemCheck(null)).toBe('not an object');
    expect(quickItemCheck({ ...good, itemId: -1 })).toMatch(/itemId/);
    expect(quickItemCheck({ ...good, price: 1.5 })).toMatch(/price/);
    expect(quickItemCheck({ ...good, market_hash_name: 5 })).toMatch(/market_hash_name/);
    expect(quickItemCheck({ ...good, float: 'x' })).toMatch(/float/);
    expect(quickItemCheck({ ...good, stickers: [{}] })).toMatch(/stickers/);
  });
});
