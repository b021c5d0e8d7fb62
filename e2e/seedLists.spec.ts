// Named seed lists and the float rank within a seed (issue 26), in Chromium against a sandbox's demo market:
// a list saved under a name is picked from the list after a reload, and under a seed list each row (and the
// detail) says where its float stands among the listings of its name with its seed, as recomputed here.
import type { Locator, Page } from '@playwright/test';
import { formatInt } from '../src/renderer/src/lib/format';
import { catalogGrid, dataRows, expectEveryRow, goTo, matchingCount, openApp, screenshot } from './support/app';
import { expectAxeClean } from './support/axe';
import { expect, test, useStack } from './support/stack';

const ITEMS = 12_000;
const stack = useStack({ items: ITEMS, seed: 26 });

test.describe.configure({ timeout: 120_000 });
test.use({ viewport: { width: 1440, height: 900 }, colorScheme: 'dark' });

const SEED_CELL = 4;
const RANK_CELL = 10;
/** Knife Case Hardened blue gems, tier 1, as a guide lists them. */
const BLUE_GEMS = [387, 442, 463, 269, 853, 494, 73, 670];

async function openSynced(page: Page): Promise<void> {
  await openApp(page, stack());
  await expect(page.getByLabel('Catalog summary')).toContainText(`${formatInt(ITEMS)} items`, { timeout: 90_000 });
  await expect(dataRows(page).first()).toBeVisible();
}

async function openSeedSection(page: Page): Promise<void> {
  const toggle = page.getByRole('button', { name: /^Seed list( \d+ set)?$/ });
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') {
    await toggle.focus();
    await page.keyboard.press('Enter');
  }
  await expect(page.getByRole('group', { name: 'Seed list', exact: true })).toBeVisible();
}

const sandboxCount = (where: string, ...params: (string | number)[]): number =>
  (
    stack()
      .sandbox.core.db.prepare(`SELECT count(*) AS n FROM items WHERE on_sale = 1 AND (${where})`)
      .get(...params) as { n: number }
  ).n;

async function expectMatching(page: Page, expected: number): Promise<void> {
  expect(expected).toBeGreaterThan(0);
  expect(expected).toBeLessThan(ITEMS);
  await expect.poll(() => matchingCount(page), { timeout: 20_000 }).toBe(expected);
}

async function setTheme(page: Page, name: 'light' | 'dark'): Promise<void> {
  await goTo(page, 'Settings');
  await page.getByRole('radio', { name: new RegExp(name, 'i') }).check();
  await expect(page.locator('html')).toHaveAttribute('data-theme', name);
  await goTo(page, 'Catalog');
}

test('a seed list saved as "CH blue gems T1" is picked from the list after a reload: the rows hold only its seeds', async ({
  page,
}) => {
  await openSynced(page);
  await openSeedSection(page);
  const seeds = page.getByLabel('Paint seeds');
  const saved = page.getByRole('combobox', { name: 'Saved lists' });
  const saveAs = page.getByLabel('Save as');
  await expect(saved).toBeDisabled();

  await seeds.fill(BLUE_GEMS.join(', '));
  // No name: said, nothing saved.
  await saveAs.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('alert').filter({ hasText: 'Name the seed list' })).toBeVisible();
  await expect(saved).toBeDisabled();

  await saveAs.fill('CH blue gems T1');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'Saved “CH blue gems T1”' })).toBeVisible();
  await expect(saveAs).toHaveValue('');
  await expect(saved).toHaveValue('CH blue gems T1');
  // A second list, so there is a choice.
  await seeds.fill('1-25');
  await expect(saved).toHaveValue('');
  await saveAs.fill('Low seeds');
  await page.getByRole('button', { name: 'Save list' }).click();
  await expect(saved).toHaveValue('Low seeds');
  await seeds.fill('');

  await page.reload();
  await openSynced(page);
  await openSeedSection(page);
  await expect(seeds).toHaveValue('');
  await expect(saved.locator('option')).toHaveText(['Pick a list', 'CH blue gems T1', 'Low seeds']);
  // Picked with the keyboard: the field takes the list, the rows only its seeds.
  await saved.focus();
  await saved.selectOption({ label: 'CH blue gems T1' });
  await expect(seeds).toHaveValue('73, 269, 387, 442, 463, 494, 670, 853');
  await expectMatching(page, sandboxCount(`json_extract(json, '$.paintSeed') IN (${BLUE_GEMS.join(', ')})`));
  await expectEveryRow(
    page,
    async (row: Locator) => {
      const [float, seed] = await Promise.all(
        [3, SEED_CELL].map(async (cell) => ((await row.getByRole('gridcell').nth(cell).textContent()) ?? '').trim()),
      );
      return seed === '—' ? float === '—' : BLUE_GEMS.includes(Number(seed));
    },
    'a blue gem seed',
  );
  await screenshot(page, test.info(), 'seed-lists');
  await expectAxeClean(page, 'seed lists, dark theme');
  await setTheme(page, 'light');
  await expect(saved).toHaveValue('CH blue gems T1');
  await expectAxeClean(page, 'seed lists, light theme');
  await setTheme(page, 'dark');

  // Deleted: gone from the list (after a reload too); the field keeps its seeds.
  await page.getByRole('button', { name: 'Delete the seed list CH blue gems T1' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Deleted “CH blue gems T1”' })).toBeVisible();
  await expect(saved.locator('option')).toHaveText(['Pick a list', 'Low seeds']);
  await expect(seeds).toHaveValue('73, 269, 387, 442, 463, 494, 670, 853');
  await page.reload();
  await openSynced(page);
  await openSeedSection(page);
  await expect(saved.locator('option')).toHaveText(['Pick a list', 'Low seeds']);
});

interface Listing {
  itemId: number;
  name: string;
  phase: string | null;
  float: number;
  seed: number;
}

/** Every listing's float rank among those on sale of its name, phase and seed (lowest first, ties: the lower id), recomputed plainly. */
function seedRanks(): { ranks: Map<number, { rank: number; of: number; seed: number }>; groups: Listing[][] } {
  const listings = stack()
    .sandbox.core.db.prepare(
      `SELECT item_id AS itemId, market_hash_name AS name, phase, json_extract(json, '$.float') AS float, json_extract(json, '$.paintSeed') AS seed
       FROM items WHERE on_sale = 1 AND json_extract(json, '$.float') IS NOT NULL AND json_extract(json, '$.paintSeed') IS NOT NULL`,
    )
    .all() as Listing[];
  const bySeed = new Map<string, Listing[]>();
  for (const listing of listings) {
    const key = `${listing.name}\u0000${listing.phase ?? ''}\u0000${listing.seed}`;
    bySeed.set(key, [...(bySeed.get(key) ?? []), listing]);
  }
  const ranks = new Map<number, { rank: number; of: number; seed: number }>();
  for (const group of bySeed.values()) {
    group.sort((a, b) => a.float - b.float || a.itemId - b.itemId);
    group.forEach((listing, i) => ranks.set(listing.itemId, { rank: i + 1, of: group.length, seed: listing.seed }));
  }
  return { ranks, groups: [...bySeed.values()] };
}

test('under a seed list, each row and the detail show the float rank within the seed, as recomputed from the sandbox', async ({
  page,
}) => {
  const { ranks, groups } = seedRanks();
  // The name and seed with the most listings on sale (the demo market repeats knife blue-gem seeds).
  const widest = [...groups].sort(
    (a, b) => b.length - a.length || ((a[0] as Listing).name < (b[0] as Listing).name ? -1 : 1),
  )[0] as Listing[];
  const { name, seed } = widest[0] as Listing;
  expect(widest.length).toBeGreaterThan(1);

  await openSynced(page);
  await openSeedSection(page);
  await page.getByRole('searchbox', { name: 'Search items' }).fill(name);
  await page.getByLabel('Paint seeds').fill(String(seed));
  await expectMatching(
    page,
    sandboxCount(`market_hash_name LIKE ? AND json_extract(json, '$.paintSeed') = ?`, `%${name}%`, seed),
  );

  const detail = page.getByRole('complementary', { name: 'Item detail' });
  const prop = (label: string) =>
    detail.locator('.prop', { has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) }).locator('dd');
  const rows = Math.min(6, await dataRows(page).count());
  let previous = '';
  for (let i = 0; i < rows; i++) {
    const row = dataRows(page).nth(i);
    await row.click();
    await expect(row).toHaveAttribute('aria-selected', 'true');
    // The detail of this row (not the one before it).
    await expect.poll(async () => (await prop('Item ID').textContent()) ?? previous).not.toBe(previous);
    previous = (await prop('Item ID').textContent()) ?? '';
    const itemId = Number(previous);
    const expected = ranks.get(itemId);
    if (!expected) throw new Error(`item ${itemId} has no float or seed on sale in the sandbox`);
    await expect(row.getByRole('gridcell').nth(RANK_CELL).locator('.seed-rank')).toHaveText(
      `seed #${formatInt(expected.rank)} of ${formatInt(expected.of)}`,
    );
    await expect(prop('Float rank in its seed')).toHaveText(
      `#${formatInt(expected.rank)} lowest float of ${formatInt(expected.of)} with seed ${expected.seed}`,
    );
  }
  await screenshot(page, test.info(), 'seed-rank');
  await expectAxeClean(page, 'rows and detail with the seed rank');

  // Without a seed list the rows carry no seed rank; the detail still has it (the item has a seed).
  await page.getByLabel('Paint seeds').fill('');
  await expect
    .poll(() => matchingCount(page), { timeout: 20_000 })
    .toBe(sandboxCount('market_hash_name LIKE ?', `%${name}%`));
  await expect(catalogGrid(page).locator('.seed-rank')).toHaveCount(0);
  await expect(prop('Float rank in its seed')).toBeVisible();
});
