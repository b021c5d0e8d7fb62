import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { EnvelopeFormatError, ItemSplitter } from '../../src/main/core/catalog/itemSplitter';
import { generateCatalog } from '../../src/server/catalog/generator';

/** Splits `text` fed in chunks cut at `cuts`; elements are parsed as the sync does (a refused parse = false). */
function splitInChunks(
  text: string,
  cuts: number[],
  chunkOf: (text: string) => Buffer = (t) => Buffer.from(t),
  bridgeBytes?: number,
) {
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
      JSON.stringify({
        lastUpdate: '2026-01-01T00:00:00.000Z',
        items: tricky,
        extra: { items: [1] },
        note: 'é😀',
        totalItems: 5,
        totalValue: 7,
      }),
      JSON.stringify({ totalItems: 5, totalValue: 7, items: tricky, lastUpdate: '2026-01-01T00:00:00.000Z' }, null, 2),
      JSON.stringify({
        totalItems: 5,
        totalValue: 7,
        items: tricky.map((item) => ({ name: 'first key differs', ...item })),
        lastUpdate: '2026-01-01T00:00:00.000Z',
      }),
    ];
    fc.assert(
      // Bridges from 1 byte (an element spanning two chunks nearly always joins them whole) to the default.
      fc.property(
        fc.nat(bodies.length - 1),
        fc.array(fc.nat(), { maxLength: 40 }),
        fc.constantFrom(1, 7, 64, undefined),
        (which, cuts, bridge) => {
          const body = bodies[which] as string;
          const size = Buffer.byteLength(body);
          const { items, envelope } = splitInChunks(
            body,
            cuts.map((cut) => cut % (size + 1)),
            undefined,
            bridge,
          );
          const expected = which === 3 ? tricky.map((item) => ({ name: 'first key differs', ...item })) : tricky;
          expect(items).toEqual(expected);
          expect(envelope).toEqual({ totalItems: 5, totalValue: 7, lastUpdate: '2026-01-01T00:00:00.000Z' });
        },
      ),
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

  it('takes scalar elements, the last one too, and only the key "items" as the items array', () => {
    expect(splitInChunks('{"items":[1,{"itemId":2}, "x"]}', []).items).toEqual([1, { itemId: 2 }, 'x']);
    const { items, envelope } = splitInChunks(
      '{"a\\"items":[{"itemId":1}],"items":[{"itemId":2}],"totalItems":1}',
      [12],
    );
    expect(items).toEqual([{ itemId: 2 }]);
    expect(envelope.totalItems).toBe(1);
  });

  it('rejects an envelope over 1 MB outside its items array, before or after it', () => {
    const note = `"note":"${'x'.repeat(1 << 20)}"`;
    const cuts = Array.from({ length: 20 }, (_, i) => i * 65_536);
    expect(() => splitInChunks(`{${note},"items":[]}`, cuts)).toThrow(
      new EnvelopeFormatError('the catalog envelope outside its "items" array is over 1 MB'),
    );
    expect(() => splitInChunks(`{"items":[],${note}}`, cuts)).toThrow(EnvelopeFormatError);
  });

  it('hands over the elements of a big chunk in the chunk itself, after joining its first bytes to the leftover', () => {
    const catalog = [...generateCatalog({ seed: 9, count: 60, imageBaseUrl: 'http://x/img' })];
    const text = JSON.stringify({ totalItems: 60, items: catalog });
    const cut = text.indexOf('"assetId"'); // inside the first item
    const [first, rest] = [text.slice(0, cut), text.slice(cut)].map((part) => {
      const bytes = Buffer.alloc(Buffer.byteLength(part)); // not from the shared pool: its own memory
      bytes.write(part);
      return bytes;
    }) as [Buffer, Buffer];
    const memory: ArrayBufferLike[] = [];
    const splitter = new ItemSplitter((bytes) => memory.push(bytes.buffer) > 0, 4096);
    splitter.push(first);
    splitter.push(rest);
    splitter.end();
    expect(memory).toHaveLength(60);
    expect(memory[0]).not.toBe(rest.buffer); // the element spanning both chunks, in the joined bytes
    expect(memory.filter((buffer) => buffer === rest.buffer).length).toBeGreaterThan(50);
  });

  it('splits a body in another formatting (no fast-path separator) in one pass', () => {
    const catalog = [...generateCatalog({ seed: 3, count: 4000, imageBaseUrl: 'http://x/img' })];
    const body = `{"items":[${catalog.map((item) => JSON.stringify(item)).join(', ')}],"totalItems":4000}`;
    expect(Buffer.byteLength(body)).toBeGreaterThan(2 << 20); // past the fast path's wait
    const { items, refused, envelope } = splitInChunks(
      body,
      Array.from({ length: Math.ceil(body.length / 65_536) }, (_, i) => i * 65_536),
    );
    expect(items).toEqual(catalog);
    expect(refused).toEqual([]);
    expect(envelope.totalItems).toBe(4000);
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

/** JSON text with `ws()` between tokens (the shapes a server may send, compact or pretty, in any mix). */
function serialize(value: unknown, ws: () => string): string {
  const list = (open: string, parts: string[], close: string) =>
    `${open}${ws()}${parts.map((part, k) => (k > 0 ? `${ws()},${ws()}${part}` : part)).join('')}${ws()}${close}`;
  if (Array.isArray(value))
    return list(
      '[',
      value.map((v) => serialize(v, ws)),
      ']',
    );
  if (value !== null && typeof value === 'object') {
    return list(
      '{',
      Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}${ws()}:${ws()}${serialize(v, ws)}`),
      '}',
    );
  }
  return JSON.stringify(value);
}

const text = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '},{"itemId":',
        '"',
        '\\',
        '\\"',
        '[',
        ']',
        '{',
        '}',
        ',',
        ':',
        ' ',
        'é',
        '😀',
        'StatTrak™ ★',
        '"items":[',
      ),
      fc.string({ unit: 'grapheme', maxLength: 6 }),
    ),
    { maxLength: 4 },
  )
  .map((parts) => parts.join(''));
const key = fc.oneof(fc.constantFrom('itemId', 'items', 'name', 'a"items', 'x'), text);
const scalar = fc.oneof(fc.integer(), fc.double(), text, fc.boolean(), fc.constant(null));
const { value, itemLike } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    scalar,
    tie('array'),
    tie('object'),
    tie('itemLike'),
    fc.array(tie('itemLike'), { minLength: 2, maxLength: 3 }),
  ),
  array: fc.array(tie('value'), { maxLength: 3 }),
  object: fc.dictionary(key, tie('value'), { maxKeys: 3 }),
  // Objects keyed itemId first, nested in arrays: their separators `},{"itemId":` cut fast ranges short.
  itemLike: fc
    .tuple(fc.nat(), fc.dictionary(key, tie('value'), { maxKeys: 3 }))
    .map(([itemId, rest]) => ({ itemId, ...rest })),
}));
const element = fc.oneof(
  { weight: 6, arbitrary: itemLike },
  { weight: 1, arbitrary: fc.dictionary(key, value, { maxKeys: 3 }) },
  { weight: 1, arbitrary: value },
);
/** The envelope's entries in a random order; `shape` makes some of them not a catalog envelope. */
const envelope = fc
  .tuple(
    fc.record(
      {
        totalItems: fc.oneof(fc.nat(), value),
        totalValue: fc.oneof(fc.nat(), value),
        lastUpdate: fc.oneof(fc.constant('2026-01-01T00:00:00.000Z'), value),
        note: value,
        'a"items': value,
      },
      { requiredKeys: [] },
    ),
    fc.array(element, { maxLength: 8 }),
    fc.array(fc.double(), { maxLength: 8 }),
    fc.constantFrom(
      'object',
      'object',
      'object',
      'object',
      'object',
      'object',
      'no items',
      'items not an array',
      'array',
      'scalar',
    ),
  )
  .map(([fields, items, order, shape]) => {
    const entries: [string, unknown][] = Object.entries(fields);
    if (shape !== 'no items') entries.push(['items', shape === 'items not an array' ? { items } : items]);
    const sorted = entries
      .map((entry, k) => ({ entry, at: order[k] ?? k }))
      .sort((a, b) => a.at - b.at)
      .map(({ entry }) => entry);
    return shape === 'array' ? items : shape === 'scalar' ? 'items' : Object.fromEntries(sorted);
  });
/** A one-character change that usually breaks the text (none can make a duplicate key). */
const mutation = fc.oneof(
  { weight: 3, arbitrary: fc.constant(null) },
  {
    weight: 2,
    arbitrary: fc.tuple(
      fc.constantFrom('delete', 'insert', 'truncate'),
      fc.double({ min: 0, max: 1, maxExcluded: true }),
      fc.constantFrom(...'{}[],:"\\ x1é'.split('')),
    ),
  },
);
const whitespace = fc.oneof(
  fc.constant(['']),
  fc.array(fc.constantFrom('', '', '', ' ', '\n', '\t', '\r\n  '), { minLength: 1, maxLength: 12 }),
);

function mutate(text: string, [kind, where, char]: [string, number, string]): string {
  const at = Math.floor(where * (text.length + 1));
  if (kind === 'truncate') return text.slice(0, at);
  return kind === 'insert' ? text.slice(0, at) + char + text.slice(at) : text.slice(0, at) + text.slice(at + 1);
}

/** What JSON.parse of the whole body says the splitter must give, or null when the body is not a catalog envelope. */
function expectedSplit(body: Buffer) {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const fields = parsed as Record<string, unknown>;
  if (!Array.isArray(fields['items'])) return null;
  const keys = Object.keys(fields);
  const number = (v: unknown) => (typeof v === 'number' ? v : null);
  return {
    items: fields['items'] as unknown[],
    envelope: {
      totalItems: number(fields['totalItems']),
      totalValue: number(fields['totalValue']),
      lastUpdate: typeof fields['lastUpdate'] === 'string' ? fields['lastUpdate'] : null,
    },
    early:
      keys.includes('totalItems') && keys.indexOf('totalItems') < keys.indexOf('items')
        ? number(fields['totalItems'])
        : null,
  };
}

describe('ItemSplitter against JSON.parse of the whole body', () => {
  it('gives the elements and fields JSON.parse gives, or an EnvelopeFormatError exactly when the body is not a catalog envelope', () => {
    fc.assert(
      fc.property(
        envelope,
        whitespace,
        mutation,
        fc.oneof(
          fc.array(fc.nat(), { maxLength: 30 }),
          fc.integer({ min: 1, max: 48 }).map((every) => -every),
        ),
        fc.constantFrom(1, 2, 5, 16, 64, undefined),
        (value, spaces, change, chunking, bridge) => {
          let k = 0;
          const serialized = serialize(value, () => spaces[k++ % spaces.length] as string);
          const text = change === null ? serialized : mutate(serialized, change);
          const size = Buffer.byteLength(text);
          const cuts =
            typeof chunking === 'number'
              ? Array.from({ length: Math.ceil(size / -chunking) }, (_, i) => i * -chunking)
              : chunking.map((cut) => cut % (size + 1));
          const expected = expectedSplit(Buffer.from(text));
          let result: ReturnType<typeof splitInChunks> | undefined;
          let failure: unknown;
          try {
            result = splitInChunks(text, cuts, undefined, bridge);
          } catch (error) {
            failure = error;
          }
          if (expected === null) {
            expect(failure).toBeInstanceOf(EnvelopeFormatError);
            return;
          }
          if (failure !== undefined) throw failure;
          expect(result?.items).toEqual(expected.items);
          expect(result?.envelope).toEqual(expected.envelope);
          expect(result?.splitter.received).toBe(expected.items.length);
          expect(result?.splitter.totalItems).toBe(expected.early);
        },
      ),
      { numRuns: 1500 },
    );
  });
});
