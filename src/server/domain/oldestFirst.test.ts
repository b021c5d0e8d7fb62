import { describe, expect, it } from 'vitest';
import { OldestFirst } from './oldestFirst';

describe('OldestFirst', () => {
  it('always returns what map.keys().next() would, under inserts, touches, deletions and clears', () => {
    const map = new Map<number, number>();
    const oldest = new OldestFirst(map);
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    let next = 0;
    for (let step = 0; step < 20_000; step++) {
      const op = random(10);
      if (op < 4 || map.size === 0) map.set(next++, step);
      else if (op < 6) {
        // Touch: move a live entry to the end, as an LRU does on use.
        const key = next - 1 - random(Math.min(next, 50));
        if (map.has(key)) {
          const value = map.get(key) as number;
          map.delete(key);
          map.set(key, value);
        }
      } else if (op < 7) map.delete(next - 1 - random(Math.min(next, 50)));
      else if (step % 5000 === 0) {
        map.clear();
        oldest.reset();
      } else {
        const expected = map.keys().next().value;
        const entry = oldest.next();
        expect(entry?.[0]).toBe(expected);
        if (entry) map.delete(entry[0]);
      }
    }
    expect(oldest.next()?.[0]).toBe(map.keys().next().value);
  });

  it('returns undefined for an empty map', () => {
    expect(new OldestFirst(new Map()).next()).toBeUndefined();
  });
});
