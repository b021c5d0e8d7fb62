/**
 * Named paint-seed lists ("CH blue gems T1", pasted from a guide), kept in the app's settings and picked in the
 * catalog's Seed list section. A change sends the whole set; main checks it
 * (`seedListsSchema` in ipc/contract.ts: this file is also the renderer's, which must not load zod). No node, no DOM.
 */

export const SEED_LIST_NAME_MAX = 60;
export const SEED_LISTS_MAX = 100;

export interface SeedList {
  name: string;
  /** The seeds as formatNumberList writes them (`1-25, 661, 670`). */
  seeds: string;
}

/** The lists with `list` saved under its name (replacing one of that name, letter case aside), in name order. */
export function withSeedList(lists: readonly SeedList[], list: SeedList): SeedList[] {
  const key = list.name.trim().toLowerCase();
  return [
    ...lists.filter((other) => other.name.toLowerCase() !== key),
    { name: list.name.trim(), seeds: list.seeds },
  ].sort((a, b) => a.name.localeCompare(b.name));
}
