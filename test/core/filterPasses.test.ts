/**
 * The catalog index's filter passes against the plain reading of each filter, on random columns
 * of every length around the four-slots-a-step loops (including match arrays that start off a
 * word boundary), with nulls (NaN, -1) and keys outside the lookup table.
 */
import { describe, expect, it } from 'vitest';
import {
  collectMatches,
  countMatches,
  narrowByEquals,
  narrowByFlag,
  narrowByLookup,
  narrowByMarks,
  narrowByPresence,
  narrowByRange,
} from '../../src/main/core/store/worker/filterPasses';
import { Rng } from '../../src/server/catalog/rng';

const rng = new Rng(17);
const bits = (n: number) => Uint8Array.from({ length: n }, () => rng.int(0, 1));

/** A match array at a byte offset inside a larger buffer (the index hands out subarrays too). */
function matchAt(offset: number, values: Uint8Array): Uint8Array {
  const buffer = new Uint8Array(offset + values.length + 3).fill(1);
  const match = buffer.subarray(offset, offset + values.length);
  match.set(values);
  return match;
}

describe('filter passes', () => {
  for (const n of [0, 1, 3, 4, 5, 31, 32, 33, 67]) {
    it(`narrow, count and collect like the plain reading (n = ${n})`, () => {
      for (const offset of [0, 1, 2, 4]) {
        const start = bits(n);
        const prices = Float64Array.from({ length: n }, () => (rng.int(0, 5) === 0 ? Number.NaN : rng.int(0, 100)));
        const keys = Int32Array.from({ length: n }, () => rng.int(-1, 12));
        const wanted = Uint8Array.from({ length: 8 }, () => rng.int(0, 1));
        const flags = bits(n);
        const counts = Int32Array.from({ length: n }, () => rng.int(0, 3) === 0 ? rng.int(1, 6) : 0);
        const marks = bits(n);

        const match = matchAt(offset, start);
        narrowByRange(match, prices, 20, 70, n);
        narrowByLookup(match, keys, wanted, 1, n);
        narrowByEquals(match, keys, 3, n);
        narrowByFlag(match, flags, 1, n);
        narrowByPresence(match, counts, 1, n);
        narrowByMarks(match, marks, n);
        const expected = Array.from(start, (m, s) => {
          const price = prices[s] as number;
          const key = keys[s] as number;
          const ok = m === 1 && price >= 20 && price <= 70 && wanted[key + 1] === 1 && key === 3 && flags[s] === 1 && (counts[s] as number) > 0 && marks[s] === 1;
          return ok ? 1 : 0;
        });
        expect(Array.from(match)).toEqual(expected);

        // Mostly-ones arrays too, so that count and collect see full words.
        for (const values of [Uint8Array.from(expected), bits(n), new Uint8Array(n).fill(1)]) {
          const m = matchAt(offset, values);
          const slots = [...values.keys()].filter((s) => values[s] === 1);
          expect(countMatches(m, n)).toBe(slots.length);
          for (const room of [0, 1, 5, n + 1]) {
            const out = new Int32Array(room);
            const written = collectMatches(m, n, out);
            expect(Array.from(out.subarray(0, written))).toEqual(slots.slice(0, room));
          }
        }
      }
    });
  }

  it('keeps a slot whose key falls outside the lookup table out (negative or past its end)', () => {
    const match = new Uint8Array(4).fill(1);
    narrowByLookup(match, Int32Array.from([-5, 0, 7, 2]), Uint8Array.from([1, 1, 1]), 0, 4);
    expect(Array.from(match)).toEqual([0, 1, 0, 1]);
  });

  it('keeps "has none" apart from "has some" and reads a null float as outside every range', () => {
    const none = new Uint8Array(3).fill(1);
    narrowByPresence(none, Int32Array.from([0, 2, 0]), 0, 3);
    expect(Array.from(none)).toEqual([1, 0, 1]);
    const range = new Uint8Array(2).fill(1);
    narrowByRange(range, Float64Array.from([Number.NaN, 0.5]), Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY, 2);
    expect(Array.from(range)).toEqual([0, 1]);
  });
});
