import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SlotLists } from '../../src/main/core/catalog/slotLists';

const SLOTS = 300;

describe('SlotLists', () => {
  it('holds each slot’s last list through sets, re-sets and squeezes of its pool, as a plain map does', () => {
    const op = fc.record({
      slot: fc.integer({ min: 0, max: SLOTS - 1 }),
      values: fc.array(fc.integer({ min: -1, max: 1000 }), { maxLength: 6 }),
    });
    fc.assert(
      fc.property(fc.array(op, { minLength: 200, maxLength: 3000, size: 'max' }), (ops) => {
        const lists = new SlotLists();
        const model = new Map<number, number[]>();
        let held = 0;
        let peakHeld = 0;
        for (const { slot, values } of ops) {
          lists.set(slot, values);
          held += values.length - (model.get(slot)?.length ?? 0);
          peakHeld = Math.max(peakHeld, held);
          model.set(slot, values);
        }
        for (let slot = 0; slot < SLOTS; slot++) {
          expect(lists.get(slot)).toEqual(model.get(slot) ?? []);
        }
        // Squeezed before it grows once half of it is left behind: the pool stays within 4 × the most the slots held.
        expect(lists.pool.length).toBeLessThanOrEqual(Math.max(1024, 4 * (peakHeld + 6)));
      }),
      // Not shrunk: a counterexample is thousands of operations.
      { numRuns: 40, endOnFailure: true },
    );
  });
});
