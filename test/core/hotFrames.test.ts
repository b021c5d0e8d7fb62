/**
 * The hand-written check of price_changed and item_removed frames (feed/hotFrames.ts) against the schema
 * it stands in for: on every input it accepts, the schema accepts too and gives the same frame; what it
 * refuses is left to the schema (which words the error). Inputs: edge cases plus seeded random mutations.
 */
import { describe, expect, it } from 'vitest';
import { parseHotFrame } from '../../src/main/core/feed/hotFrames';
import { feedFrameSchema } from '../../src/shared/api';

const EDGE_VALUES: unknown[] = [
  0,
  -0,
  1,
  -1,
  1.5,
  2 ** 53 - 1,
  2 ** 53,
  -(2 ** 53),
  Number.NaN,
  Infinity,
  '7',
  null,
  true,
  [],
  {},
  [3],
  undefined,
];

/** A small deterministic generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(next: () => number, values: readonly T[]): T {
  return values[Math.floor(next() * values.length)] as T;
}

function candidate(next: () => number): unknown {
  const value = () => (next() < 0.7 ? 1 + Math.floor(next() * 2_000_000) : pick(next, EDGE_VALUES));
  const count = Math.floor(next() * 4);
  switch (Math.floor(next() * 6)) {
    case 0:
      return {
        type: 'price_changed',
        items: Array.from({ length: count }, () => ({
          itemId: value(),
          price: next() < 0.8 ? Math.floor(next() * 1e6) - 1000 : pick(next, EDGE_VALUES),
        })),
      };
    case 1:
      return { type: 'item_removed', itemIds: Array.from({ length: count }, value) };
    case 2: // extra keys, at the top and per item: dropped, as the schema drops them
      return {
        type: 'price_changed',
        extra: 1,
        items: Array.from({ length: count }, () => ({ itemId: value(), price: 5, note: 'x' })),
      };
    case 3: // wrong shapes
      return pick(next, [
        { type: 'price_changed' },
        { type: 'price_changed', items: {} },
        { type: 'item_removed', itemIds: '1,2' },
        { type: 'price_changed', items: [null] },
        { type: 'price_changed', items: [[1, 2]] },
      ]);
    case 4: // other kinds: always the schema's
      return pick(next, [
        { type: 'connected', merchantId: 'm' },
        { type: 'item_upserted', items: [] },
        { type: 'nope' },
        null,
        'price_changed',
        42,
      ]);
    default:
      return { type: 'item_removed', itemIds: [value(), value()], items: [] };
  }
}

describe('parseHotFrame', () => {
  it('accepts only what the schema accepts, and gives the same frame (5,000 seeded inputs and the edge cases)', () => {
    const next = random(20261124);
    const inputs: unknown[] = [];
    for (const edge of EDGE_VALUES) {
      inputs.push(
        { type: 'price_changed', items: [{ itemId: edge, price: 1 }] },
        { type: 'price_changed', items: [{ itemId: 1, price: edge }] },
        { type: 'item_removed', itemIds: [edge] },
      );
    }
    for (let i = 0; i < 5_000; i++) inputs.push(candidate(next));
    let accepted = 0;
    let refusedValid = 0;
    for (const input of inputs) {
      const hot = parseHotFrame(input);
      const schema = feedFrameSchema.safeParse(input);
      if (hot) {
        accepted++;
        expect(schema.success, JSON.stringify(input)).toBe(true);
        expect(hot).toEqual(schema.data);
      } else if (schema.success && (schema.data.type === 'price_changed' || schema.data.type === 'item_removed')) {
        refusedValid++;
      }
    }
    // The fast path is taken for the hot kinds whenever they are valid, and the samples hold both outcomes.
    expect(refusedValid).toBe(0);
    expect(accepted).toBeGreaterThan(1_000);
    expect(inputs.length - accepted).toBeGreaterThan(1_000);
  });

  it('leaves other kinds to the schema', () => {
    expect(parseHotFrame({ type: 'connected', merchantId: 'm' })).toBeNull();
    expect(parseHotFrame({ type: 'item_upserted', items: [] })).toBeNull();
    expect(parseHotFrame([])).toBeNull();
  });
});
