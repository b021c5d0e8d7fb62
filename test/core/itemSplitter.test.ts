import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ItemSplitter } from '../../src/main/core/store/worker/itemSplitter';
import { generateCatalog } from '../../src/server/catalog/generator';

/** Splits `text` fed in chunks cut at `cuts`; elements are parsed as the sync does (a refused parse = false). */
function splitInChunks(text: string, cuts: number[], chunkOf: (text: string) => Buffer = (t) => Buffer.from(t), bridgeBytes?: number) {
  const items: unknown[] = [];
  const refused: string[] = [];
  const splitter = new ItemSplitter((bytes, start, end) => {
    const slice = bytes.toString('utf8', start, end);
    try {
      items.push(JSON.parse(slice));
      return true;
    } catch {
      refused.push(slice);
      return false;
    }
  }, bridgeBytes);
  const body = chunkOf(text);
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    if (cut > from) splitter.push(body.subarray(from, cut));
    from = Math.max(from, cut);
  }
  splitter.push(body.subarray(from));
  return { items, refused, envelope: splitter.end(), splitter };
}

const tricky = [
  { itemId: 1, market_hash_name: 'a "quoted" \\ name ] } { [ , },{"itemId":', arr: [1, { x: [2] }] },
  { itemId: 2, market_hash_name: 'StatTrak™ ★ 😀 é', empty: {}, list: [] },
  { itemId: 3, market_hash_name: '\\"', nested: { items: [{ itemId: 99 }] } },
  // A nested object keyed like an item: the fast split cuts here, the parse refuses, the exact scan mends it.
  { itemId: 4, market_hash_name: 'n', extra: [{ itemId: 5, x: 1 }, { itemId: 6 }] },
  { itemId: 7, market_hash_name: 'last' },
];

describe('ItemSplitter', () => {
  it('splits the items array at any chunk boundaries (bytes, even inside a character), with fields before or after it', () => {
    const bodies = [
      JSON.stringify({ totalItems: 5, totalValue: 7, items: tricky, lastUpdate: '2026-01-01T00:00:00.000Z' }),
      JSON.stringify({ lastUpdate: '2026-01-01T00:00:00.000Z', items: tricky, extra: { items: [1] }, note: 'é😀', totalItems: 5, totalValue: 7 }),
      JSON.stringify({ totalItems: 5, totalValue: 7, items: tricky, lastUpdate: '2026-01-01T00:00:00.000Z' }, null, 2),
      JSON.stringify({ totalItems: 5, totalValue: 7, items: tricky.map((item) => ({ name: 'first key differs', ...item })), lastUpdate: '2026-01-01T00:00:00.000Z' }),
    ];
    fc.assert(
      // Bridges from 1 byte (an element spanning two chunks nearly always joins them whole) to the default.
      fc.property(fc.nat(bodies.length - 1), fc.array(fc.nat(), { maxLength: 40 }), fc.constantFrom(1, 7, 64, undefined), (which, cuts, bridge) => {
        const body = bodies[which] as string;
        const size = Buffer.byteLength(body);
        const { items, envelope } = splitInChunks(body, cuts.map((cut) => cut % (size + 1)), undefined, bridge);
        const expected = which === 3 ? tricky.map((item) => ({ name: 'first key differs', ...item })) : tricky;
        expect(items).toEqual(expected);
        expect(envelope).toEqual({ totalItems: 5, totalValue: 7, lastUpdate: '2026-01-01T00:00:00.000Z' });
      }),
      { numRuns: 800 },
    );
  });

  it('reads totalItems early when it comes first, and hands over an element once the next one starts', () => {
    const seen: number[] = [];
    const splitter = new ItemSplitter((bytes, start, end) => {
      seen.push((JSON.parse(bytes.toString('utf8', start, end)) as { itemId: number }).itemId);
      return true;
    });
    splitter.push(Buffer.from('{"totalItems":12345,"totalValue":1,"items":[{"itemId":1}'));
    expect(splitter.totalItems).toBe(12345);
    expect(seen).toEqual([]); // the first item may still continue
    splitter.push(Buffer.from(',{"itemId":2}'));
    expect(seen).toEqual([1]);
    splitter.push(Buffer.from(']}'));
    splitter.end();
    expect(seen).toEqual([1, 2]);
    expect(splitter.received).toBe(2);
  });

  it('handles an empty list', () => {
    const { items, envelope } = splitInChunks('{"totalItems":0,"totalValue":0,"items":[ ],"lastUpdate":"x"}', [5, 30]);
    expect(items).toEqual([]);
    expect(envelope).toEqual({ totalItems: 0, totalValue: 0, lastUpdate: 'x' });
  });

  it.each([
    ['a truncated body', '{"totalItems":1,"items":[{"itemId":1},'],
    ['a body cut inside an item', '{"totalItems":1,"items":[{"itemId":1,"a":"b'],
    ['an empty element', '{"items":[{"itemId":1},,{"itemId":2}]}'],
    ['a trailing comma', '{"items":[{"itemId":1},]}'],
    ['a body that is not an object', '[1,2]'],
    ['text after the body', '{"items":[{"itemId":1}]} trailing'],
    ['no items array', '{"totalItems":1}'],
    ['a broken item', '{"items":[{"itemId":tru}]}'],
    ['a broken item in the middle', '{"items":[{"itemId":1},{"itemId":2,"x":}, {"itemId":3}]}'],
  ])('rejects %s', (_label, body) => {
    expect(() => splitInChunks(body, [3, 7, 20])).toThrow();
  });

  it('splits a real catalog in 16 KB chunks on the fast path', () => {
    const catalog = [...generateCatalog({ seed: 5, count: 500, imageBaseUrl: 'http://x/img' })];
    const body = JSON.stringify({ totalItems: 500, totalValue: 1, items: catalog, lastUpdate: 'y' });
    const cuts = Array.from({ length: Math.ceil(body.length / 16_384) }, (_, i) => i * 16_384);
    const { items, refused } = splitInChunks(body, cuts);
    expect(items).toEqual(catalog);
    expect(refused).toEqual([]);
  });
});
