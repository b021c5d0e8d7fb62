/**
 * Named paint-seed lists ("CH blue gems T1", pasted from a guide), kept in the app's settings and picked in the
 * catalog's Seed list section. A change sends the whole set; main checks it with this schema. No node, no DOM.
 */
import { z } from 'zod';
import { formatNumberList, parseNumberList, SEED_MAX } from './filters';

export const SEED_LIST_NAME_MAX = 60;
export const SEED_LISTS_MAX = 100;

export interface SeedList {
  name: string;
  /** The seeds as formatNumberList writes them (`1-25, 661, 670`). */
  seeds: string;
}

export const seedListSchema = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1, 'Name the seed list')
    .max(SEED_LIST_NAME_MAX, `A seed list's name is at most ${SEED_LIST_NAME_MAX} characters`),
  seeds: z
    .string()
    .max(20_000, 'The seed list is too long')
    .transform((text, context) => {
      const parsed = parseNumberList(text, SEED_MAX);
      if (parsed.ok && parsed.ranges.length > 0) return formatNumberList(parsed.ranges);
      context.addIssue({ code: 'custom', message: parsed.ok ? 'The seed list holds no seed' : parsed.error });
      return z.NEVER;
    }),
});

/** Every saved list; names differ (letter case aside). */
export const seedListsSchema = z
  .array(seedListSchema)
  .max(SEED_LISTS_MAX, `At most ${SEED_LISTS_MAX} seed lists`)
  .superRefine((lists, context) => {
    const seen = new Set<string>();
    lists.forEach((list, i) => {
      const key = list.name.toLowerCase();
      if (seen.has(key)) context.addIssue({ code: 'custom', message: `Two seed lists are named "${list.name}"`, path: [i, 'name'] });
      seen.add(key);
    });
  });

/** The lists with `list` saved under its name (replacing one of that name, letter case aside), in name order. */
export function withSeedList(lists: readonly SeedList[], list: SeedList): SeedList[] {
  const key = list.name.trim().toLowerCase();
  return [...lists.filter((other) => other.name.toLowerCase() !== key), { name: list.name.trim(), seeds: list.seeds }].sort((a, b) =>
    a.name.localeCompare(b.name),
  );
}
