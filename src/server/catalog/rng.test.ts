import { describe, expect, it } from 'vitest';
import { hashString, mix32, Rng, seed32 } from './rng';

function draws(rng: Rng, n: number): number[] {
  return Array.from({ length: n }, () => rng.uint32());
}

describe('Rng', () => {
  it('repeats a stream for the same seed and differs for another', () => {
    expect(draws(new Rng(42), 100)).toEqual(draws(new Rng(42), 100));
    expect(draws(new Rng(42), 100)).not.toEqual(draws(new Rng(43), 100));
  });

  it('reseed restarts the stream exactly as a new instance', () => {
    const rng = new Rng(1);
    draws(rng, 17);
    expect(draws(rng.reseed(99), 50)).toEqual(draws(new Rng(99), 50));
  });

  it('keeps next, int, float and chance in range', () => {
    const rng = new Rng(7);
    for (let i = 0; i < 20_000; i++) {
      const x = rng.next();
      expect(x >= 0 && x < 1).toBe(true);
      const n = rng.int(-3, 5);
      expect(Number.isInteger(n) && n >= -3 && n <= 5).toBe(true);
      const f = rng.float(2, 2.5);
      expect(f >= 2 && f < 2.5).toBe(true);
    }
    expect(new Rng(1).chance(0)).toBe(false);
    expect(new Rng(1).chance(1)).toBe(true);
    expect(() => rng.int(5, 4)).toThrow(RangeError);
    expect(() => rng.pick([])).toThrow(RangeError);
  });

  it('int covers every value of a small range about evenly', () => {
    const rng = new Rng(3);
    const counts = [0, 0, 0, 0, 0, 0];
    for (let i = 0; i < 60_000; i++) {
      const n = rng.int(0, 5);
      counts[n] = (counts[n] ?? 0) + 1;
    }
    for (const count of counts) expect(Math.abs(count - 10_000)).toBeLessThan(600);
  });

  it('pick returns elements of the array', () => {
    const rng = new Rng(5);
    const items = ['a', 'b', 'c'] as const;
    const seen = new Set(Array.from({ length: 100 }, () => rng.pick(items)));
    expect([...seen].sort()).toEqual(['a', 'b', 'c']);
  });

  it('fork gives deterministic sub-streams that depend on the label and do not advance the parent', () => {
    const a = new Rng(11);
    const b = new Rng(11);
    const forkA = draws(a.fork('holders'), 20);
    expect(draws(b.fork('holders'), 20)).toEqual(forkA);
    expect(draws(a.fork('prices'), 20)).not.toEqual(forkA);
    expect(draws(a, 10)).toEqual(draws(new Rng(11), 10));
  });

  it('hashes and folds seeds into unsigned 32-bit values', () => {
    for (const value of [hashString(''), hashString('AK-47 | Redline'), mix32(0xffffffff, 0xffffffff), mix32(1, 2)]) {
      expect(Number.isInteger(value) && value >= 0 && value <= 0xffffffff).toBe(true);
    }
    expect(seed32(2 ** 40 + 5)).not.toBe(seed32(5));
    expect(() => seed32(Number.NaN)).toThrow(RangeError);
  });
});
