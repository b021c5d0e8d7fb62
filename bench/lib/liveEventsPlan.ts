/** The live-events generator's plan, shared by the bench (notes), its child (lib/live-events-child.ts) and lib/writer-alone.ts. */
import type { ItemChangeGroup } from '../../src/main/core/store/types';

/** Per event-loop turn of the generator. */
export const BATCH = { reprice: 2000, relist: 100, remove: 100 };
/** The generator's first price: every price after it is the next integer (one counter), so a price names its event. */
export const FIRST_PRICE = 2_000_000_000;
/** Events emitted but not yet delivered before the generator waits. */
export const WINDOW = 60_000;

/** The events in one writer call's groups (a price change is two numbers of its packed array). */
export const eventsOf = (groups: ItemChangeGroup[]): number =>
  groups.reduce(
    (sum, group) =>
      sum +
      (group.kind === 'prices'
        ? group.changes.length / 2
        : group.kind === 'upserts'
          ? group.items.length
          : group.itemIds.length),
    0,
  );

/**
 * Shuffles item ids in place, the same way for the same seed (a linear congruential generator):
 * a market's changes hit items all over the catalog, never neighbours in id order.
 */
export function shuffleItemIds(ids: number[], seed: number): void {
  let state = seed;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [ids[i], ids[j]] = [ids[j] as number, ids[i] as number];
  }
}
