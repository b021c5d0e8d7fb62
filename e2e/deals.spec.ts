// Finding deals in the catalog (issue 26), in Chromium against a sandbox's demo market (several listings
// per name, blue-gem seeds, charms, and a few listings well under their name's level): a pasted seed list,
// the wear buttons, the charm filters, the discount column sorted, and the market numbers in the detail.
import type { Locator, Page } from '@playwright/test';
import { formatCents, formatDiscount, formatInt } from '../src/renderer/src/lib/format';
import {
  catalogGrid,
  columnTexts,
  dataRows,
  expectEveryRow,
  expectRowsRendered,
  goTo,
  matchingCount,
  openApp,
  parseMoney,
  screenshot,
} from './support/app';
import { expectAxeClean } from './support/axe';
import { expect, test, useStack } from './support/stack';

const ITEMS = 12_000;
const stack = useStack({ items: ITEMS, seed: 26 });

test.describe.configure({ timeout: 120_000 });
test.use({ viewport: { width: 1440, height: 900 }, colorScheme: 'dark' });

/** Cell positions in a catalog row (see COLUMNS): the new columns follow age. */
const SEED_CELL = 4;
const CHARMS_CELL = 6;
const DISCOUNT_CELL = 9;
const RANK_CELL = 10;

async function openSynced(page: Page): Promise<void> {
  await openApp(page, stack());
  await expect(page.getByLabel('Catalog summary')).toContainText(`${formatInt(ITEMS)} items`, { timeout: 90_000 });
  await expect(dataRows(page).first()).toBeVisible();
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

const clearFilters = (page: Page) =>
  page
    .getByRole('group', { name: 'Filters' })
    .getByRole('button', { name: /^Clear filters/ })
    .click();

/** Opens a filter section from its toggle with the keyboard. */
async function openSection(page: Page, title: string): Promise<void> {
  const toggle = page.getByRole('button', { name: new RegExp(`^${title}( \\d+ set)?$`) });
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') {
    await toggle.focus();
    await page.keyboard.press('Enter');
  }
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await expect(page.getByRole('group', { name: title, exact: true })).toBeVisible();
}

/** "-23 %" → 23, "+5 %" → -5, "0 %" → 0. */
function parseDiscount(text: string): number {
  const match = /^([-+]?)(\d+)\s%$/u.exec(text.trim());
  if (!match) throw new Error(`not a discount: ${JSON.stringify(text)}`);
  return match[1] === '+' ? -Number(match[2]) : Number(match[2]);
}

interface Listing {
  itemId: number;
  name: string;
  phase: string | null;
  price: number;
  float: number | null;
  plain: 0 | 1;
}

interface Standing {
  price: number;
  reference: number | null;
  listings: number;
  plain: number;
  discount: number | null;
  floatRank: number | null;
}

/**
 * Every listing's standing in its name's (and phase's) market, recomputed plainly from the sandbox's on-sale
 * list: the median price of the plain listings, without stickers or charms (two middle ones: their mean, rounded
 * down; none without a plain one), the discount, and the float rank (lowest first, ties by the lower item id).
 */
function marketOf(): Map<number, Standing> {
  const listings = stack()
    .sandbox.core.db.prepare(
      `SELECT item_id AS itemId, market_hash_name AS name, phase, price, json_extract(json, '$.float') AS float,
         json_array_length(json, '$.stickers') + json_array_length(json, '$.keyChains') = 0 AS plain FROM items WHERE on_sale = 1`,
    )
    .all() as Listing[];
  const byName = new Map<string, Listing[]>();
  for (const listing of listings) {
    const key = `${listing.name}\u0000${listing.phase ?? ''}`;
    byName.set(key, [...(byName.get(key) ?? []), listing]);
  }
  const standing = new Map<number, Standing>();
  for (const group of byName.values()) {
    const prices = group
      .filter((l) => l.plain === 1)
      .map((l) => l.price)
      .sort((a, b) => a - b);
    const mid = prices.length >> 1;
    const reference =
      prices.length === 0
        ? null
        : prices.length % 2 === 1
          ? (prices[mid] as number)
          : Math.floor(((prices[mid - 1] as number) + (prices[mid] as number)) / 2);
    const floats = group
      .filter((l) => l.float !== null)
      .sort((a, b) => (a.float as number) - (b.float as number) || a.itemId - b.itemId);
    for (const listing of group) {
      const rank = floats.indexOf(listing);
      standing.set(listing.itemId, {
        price: listing.price,
        reference,
        listings: group.length,
        plain: prices.length,
        discount: reference === null ? null : ((reference - listing.price) / reference) * 100,
        floatRank: rank < 0 ? null : rank + 1,
      });
    }
  }
  return standing;
}

/** The listings the deals view starts from ($1 and up) that have a discount. */
const deals = (standing: Map<number, Standing>) =>
  [...standing.values()].filter((s): s is Standing & { discount: number } => s.discount !== null && s.price >= 100);

test('a pasted seed list shows only those seeds; a list that does not parse is said and the last good one stays', async ({
  page,
}) => {
  await openSynced(page);
  await openSection(page, 'Seed list');
  const seeds = page.getByLabel('Paint seeds');
  // The seed cell of every row is one of `list`; a listing without a float shows none (its seed still counts).
  const seedIn = (list: (seed: number) => boolean) => async (row: Locator) => {
    const [float, seed] = await Promise.all(
      [3, SEED_CELL].map(async (cell) => ((await row.getByRole('gridcell').nth(cell).textContent()) ?? '').trim()),
    );
    return seed === '—' ? float === '—' : list(Number(seed));
  };
  const seedSql = (list: string) => `json_extract(json, '$.paintSeed') IN (${list})`;

  await seeds.fill('661, 670, 955, 1-25');
  await expectMatching(
    page,
    sandboxCount(`${seedSql('661, 670, 955')} OR json_extract(json, '$.paintSeed') BETWEEN 1 AND 25`),
  );
  await expectEveryRow(
    page,
    seedIn((seed) => seed === 661 || seed === 670 || seed === 955 || (seed >= 1 && seed <= 25)),
    'a seed of the list',
  );
  await expect(page.getByText('28 seeds')).toBeVisible();

  // Knife Case Hardened blue gems, tier 1, as a guide lists them (the demo market draws such seeds).
  const blueGems = [387, 442, 463, 269, 853, 494, 73, 670];
  await page.getByRole('searchbox', { name: 'Search items' }).fill('Case Hardened');
  await seeds.fill(blueGems.join(', '));
  const gems = sandboxCount(`market_hash_name LIKE '%Case Hardened%' AND ${seedSql(blueGems.join(', '))}`);
  await expectMatching(page, gems);
  await expectEveryRow(
    page,
    seedIn((seed) => blueGems.includes(seed)),
    'a blue gem seed',
  );
  await screenshot(page, test.info(), 'catalog-seed-list', true);
  await expectAxeClean(page, 'catalog with a seed list');

  // Saved under a name, cleared, the section closed: opening the saved search brings the list back, shown.
  await page.getByRole('button', { name: 'Save search' }).click();
  await page.getByRole('dialog', { name: 'Save search' }).getByLabel('Name').fill('CH blue gems T1');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('dialog', { name: 'Save search' })).toBeHidden();
  await clearFilters(page);
  await page.getByRole('searchbox', { name: 'Search items' }).fill('');
  const toggle = page.getByRole('button', { name: /^Seed list/ });
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await expect(seeds).toBeHidden();
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('list', { name: 'Saved searches' })
    .getByRole('button', { name: 'CH blue gems T1', exact: true })
    .click();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await expect(seeds).toHaveValue('73, 269, 387, 442, 463, 494, 670, 853');
  await expectMatching(page, gems);

  // A typo: the field keeps it and says what is wrong; the rows stay those of the last list that parsed.
  await seeds.fill(`${blueGems.join(', ')}, 9x5`);
  await expect(seeds).toHaveAttribute('aria-invalid', 'true');
  const error = page.getByRole('alert').filter({ hasText: '"9x5" is not a number or a range like 1-25' });
  await expect(error).toBeVisible();
  await expect(error).toContainText('still showing 73, 269, 387, 442, 463, 494, 670, 853');
  await expect(seeds).toHaveValue(`${blueGems.join(', ')}, 9x5`);
  expect(await matchingCount(page)).toBe(gems);
  await expectAxeClean(page, 'catalog with a seed list error');

  // Fixed: the new list applies.
  await page.getByRole('searchbox', { name: 'Search items' }).fill('');
  await seeds.fill('1-25');
  await expect(error).toBeHidden();
  await expect(seeds).not.toHaveAttribute('aria-invalid');
  await expectMatching(page, sandboxCount(`json_extract(json, '$.paintSeed') BETWEEN 1 AND 25`));
  await clearFilters(page);
  await expect(seeds).toHaveValue('');
});

test('wear buttons beside the float range narrow by float band', async ({ page }) => {
  await openSynced(page);
  const wear = page.getByRole('group', { name: 'Wear' });
  const mw = wear.getByRole('button', { name: /^MW/ });
  await mw.focus();
  await page.keyboard.press('Space');
  await expect(mw).toHaveAttribute('aria-pressed', 'true');
  await expectMatching(
    page,
    sandboxCount(`json_extract(json, '$.float') >= 0.07 AND json_extract(json, '$.float') < 0.15`),
  );
  await expectEveryRow(
    page,
    async (row) => {
      const float = Number(await row.getByRole('gridcell').nth(3).textContent());
      return float >= 0.07 && float < 0.15;
    },
    'Minimal Wear by float',
  );

  // A second band adds to the first.
  await wear.getByRole('button', { name: /^FN/ }).click();
  await expect(wear.getByRole('button', { name: /^FN/ })).toHaveAttribute('aria-pressed', 'true');
  await expectMatching(page, sandboxCount(`json_extract(json, '$.float') < 0.15`));
  await mw.click();
  await expect(mw).toHaveAttribute('aria-pressed', 'false');
  await expectMatching(page, sandboxCount(`json_extract(json, '$.float') < 0.07`));
  await clearFilters(page);
  await expect(wear.getByRole('button', { name: /^FN/ })).toHaveAttribute('aria-pressed', 'false');
});

test('charm filters: has a charm, a charm name', async ({ page }) => {
  await openSynced(page);
  await openSection(page, 'Charms');
  await page.getByRole('combobox', { name: 'Has a charm' }).selectOption('yes');
  await expectMatching(page, sandboxCount(`json_array_length(json, '$.keyChains') > 0`));
  await expectEveryRow(
    page,
    async (row) => ((await row.getByRole('gridcell').nth(CHARMS_CELL).textContent()) ?? '').trim() !== '—',
    'with a charm',
  );

  // The demo market's most common charm, by the part of its name after "Charm | ".
  const common = stack()
    .sandbox.core.db.prepare(
      `SELECT json_extract(k.value, '$.name') AS name, count(*) AS n FROM items, json_each(items.json, '$.keyChains') AS k
       WHERE on_sale = 1 GROUP BY name ORDER BY n DESC, name LIMIT 1`,
    )
    .get() as { name: string };
  const short = common.name.replace(/^.*\| /, '');
  await page.getByLabel('Charm name').fill(short);
  await expectMatching(
    page,
    sandboxCount(
      `EXISTS (SELECT 1 FROM json_each(items.json, '$.keyChains') AS k WHERE json_extract(k.value, '$.name') LIKE ?)`,
      `%${short}%`,
    ),
  );
  await expectEveryRow(
    page,
    async (row) => ((await row.getByRole('gridcell').nth(CHARMS_CELL).getAttribute('title')) ?? '').includes(short),
    `with ${short}`,
  );
  await expect(page.getByRole('button', { name: /^Charms 2/ })).toBeVisible();

  await page.getByRole('combobox', { name: 'Has a charm' }).selectOption('no');
  await expect(page.getByText('No items match these filters')).toBeVisible({ timeout: 20_000 });
  await clearFilters(page);
});

test('the default deals view is led by real deals: no cent skins first, no percentages past three digits', async ({
  page,
}) => {
  await openSynced(page);
  const grid = catalogGrid(page);
  await grid.getByRole('button', { name: 'Discount', exact: true }).click();
  await expect(grid.getByRole('columnheader', { name: 'Discount' })).toHaveAttribute('aria-sort', 'descending');
  await expectRowsRendered(page, 15);
  // The leading rows: each at least $1, each within the demo market's deals (14–36 % under their name's level,
  // a little more with a low float or a cheap name's whole cents), none an artefact of a median mixing listings.
  await expect
    .poll(async () => {
      const [prices, discounts] = await Promise.all([columnTexts(page, 7), columnTexts(page, DISCOUNT_CELL)]);
      return prices
        .slice(0, 15)
        .map((price, i) => ({ cents: parseMoney(price), discount: parseDiscount(discounts[i] ?? '') }))
        .filter((row) => row.cents < 100 || row.discount >= 50);
    })
    .toEqual([]);
  await screenshot(page, test.info(), 'deals-default', true);

  // The other end: listings far over their reference say so in at most three digits.
  await grid.getByRole('button', { name: 'Discount', exact: true }).click();
  await expect(grid.getByRole('columnheader', { name: 'Discount' })).toHaveAttribute('aria-sort', 'ascending');
  await expectRowsRendered(page, 15);
  for (const text of await columnTexts(page, DISCOUNT_CELL))
    expect(text).toMatch(/^(?:[−+]?\d{1,3}\u00a0%|>\u00a0\+999\u00a0%|—)$/u);
});

test('sorted by discount, the biggest deal comes first, and its detail shows the numbers behind it', async ({
  page,
}) => {
  await openSynced(page);
  const grid = catalogGrid(page);
  await grid.getByRole('button', { name: 'Discount', exact: true }).click();
  await expect(grid.getByRole('columnheader', { name: 'Discount' })).toHaveAttribute('aria-sort', 'descending');
  // The deals view starts from $1, said in the price field (cleared, it shows every price).
  await expect(page.getByLabel('Minimum price')).toHaveValue('1');

  const standing = marketOf();
  const deepest = Math.max(...deals(standing).map((s) => s.discount));
  // The demo market's deals: 14–36 % under their name's level.
  expect(deepest).toBeGreaterThan(14);
  await expect.poll(async () => (await columnTexts(page, DISCOUNT_CELL))[0]).toBe(formatDiscount(deepest));
  const shown = (await columnTexts(page, DISCOUNT_CELL)).map(parseDiscount);
  expect(shown[0]).toBeGreaterThanOrEqual(shown[1] as number);
  expect(shown).toEqual([...shown].sort((a, b) => b - a));
  // Under the reference: the success colour; a row at or over it: muted.
  await expect(dataRows(page).first().getByRole('gridcell').nth(DISCOUNT_CELL).locator('.discount')).toHaveClass(
    /under/,
  );

  // "At least 20 % under reference" keeps only the listings that far under; from $10, the pricier ones.
  await openSection(page, 'Deals');
  await page.getByLabel('Under reference by at least (percent)').fill('20');
  await expectMatching(page, deals(standing).filter((s) => s.discount >= 20).length);
  await page.getByLabel('Minimum price').fill('10');
  await expectMatching(page, deals(standing).filter((s) => s.discount >= 20 && s.price >= 1000).length);
  await expectEveryRow(
    page,
    async (row) => parseDiscount((await row.getByRole('gridcell').nth(DISCOUNT_CELL).textContent()) ?? '') >= 20,
    '20 % or more under',
  );
  await screenshot(page, test.info(), 'catalog-discount', true);

  // The first row's detail: its reference, discount, float rank and liquidity, equal to the recomputation.
  await dataRows(page).first().click();
  const detail = page.getByRole('complementary', { name: 'Item detail' });
  const itemId = Number(
    await detail
      .locator('.prop', { has: page.locator('dt', { hasText: /^Item ID$/ }) })
      .locator('dd')
      .textContent(),
  );
  const mine = standing.get(itemId);
  if (!mine || mine.reference === null || mine.discount === null)
    throw new Error(`item ${itemId} is not on sale in the sandbox, or has no reference`);
  const market = detail.getByRole('region', { name: 'Market' });
  const prop = (label: string) =>
    market.locator('.prop', { has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) }).locator('dd');
  await expect(prop('Reference price')).toHaveText(
    `${formatCents(mine.reference)} median of ${formatInt(mine.plain)} without stickers or charms`,
  );
  await expect(prop('Discount')).toHaveText(`${formatDiscount(mine.discount)} under the reference`);
  await expect(prop('Float rank')).toHaveText(
    mine.floatRank === null ? '—' : `#${formatInt(mine.floatRank)} lowest float of ${formatInt(mine.listings)} on sale`,
  );
  await expect(prop('Left sale in 24 h')).toHaveText('0');
  const rank = ((await dataRows(page).first().getByRole('gridcell').nth(RANK_CELL).textContent()) ?? '').trim();
  expect(rank).toBe(mine.floatRank === null ? '—' : `#${formatInt(mine.floatRank)} of ${formatInt(mine.listings)}`);
  await screenshot(page, test.info(), 'detail-market', true);
  await expectAxeClean(page, 'catalog sorted by discount with the detail panel');

  // On a laptop (1280 px) beside the detail panel, price and discount stay in view; the rank and age fold away.
  await page.setViewportSize({ width: 1280, height: 800 });
  const first = dataRows(page).first();
  for (const cell of [7, DISCOUNT_CELL]) await expect(first.getByRole('gridcell').nth(cell)).toBeInViewport();
  for (const cell of [8, RANK_CELL]) expect((await first.getByRole('gridcell').nth(cell).boundingBox())?.width).toBe(0);
  await screenshot(page, test.info(), 'detail-market-1280');
});

test('"at least N on sale" keeps thin markets out of the discount sort; a count that does not parse is said and not applied', async ({
  page,
}) => {
  await openSynced(page);
  const grid = catalogGrid(page);
  await grid.getByRole('button', { name: 'Discount', exact: true }).click();
  await expect(grid.getByRole('columnheader', { name: 'Discount' })).toHaveAttribute('aria-sort', 'descending');
  const standing = deals(marketOf());
  const deepest = (list: typeof standing) => list.reduce((best, s) => (s.discount > best.discount ? s : best));
  // A count just past the listings of the deepest deal's name: that deal leaves, the next liquid one leads.
  const atLeast = deepest(standing).listings + 1;
  const liquid = standing.filter((s) => s.listings >= atLeast);

  await openSection(page, 'Deals');
  const onSale = page.getByLabel('At least this many of its name on sale');
  await onSale.focus();
  await page.keyboard.type(String(atLeast));
  await expectMatching(page, [...marketOf().values()].filter((s) => s.price >= 100 && s.listings >= atLeast).length);
  await expect(page.getByRole('button', { name: 'Deals 1 set' })).toBeVisible();
  // The rows are the deepest discounts among names with that many on sale or more, and every rank says so.
  const ranked = liquid.map((s) => s.discount).sort((a, b) => b - a);
  await expect
    .poll(async () => (await columnTexts(page, DISCOUNT_CELL))[0])
    .toBe(formatDiscount(deepest(liquid).discount));
  const shown = await columnTexts(page, DISCOUNT_CELL);
  expect(shown).toEqual(ranked.slice(0, shown.length).map(formatDiscount));
  const ofCounts = (await columnTexts(page, RANK_CELL)).flatMap((rank) =>
    rank === '—' ? [] : [Number(/ of ([\d,]+)$/u.exec(rank)?.[1]?.replace(/,/g, ''))],
  );
  expect(ofCounts.length).toBeGreaterThan(0);
  for (const n of ofCounts) expect(n).toBeGreaterThanOrEqual(atLeast);
  await expectAxeClean(page, `catalog with at least ${atLeast} on sale`);

  // Zero is no count of listings: said beside the filters, and the list goes back to every listing from $1.
  await onSale.fill('0');
  await expect(onSale).toHaveAttribute('aria-invalid', 'true');
  await expect(
    page.getByRole('alert').filter({ hasText: 'On sale: A whole number from 1 to 100000, e.g. 5 — not applied.' }),
  ).toBeVisible();
  await expect
    .poll(() => matchingCount(page), { timeout: 20_000 })
    .toBe([...marketOf().values()].filter((s) => s.price >= 100).length);
  await expect(onSale).toHaveValue('0');
  await onSale.fill(String(atLeast));
  await expectMatching(page, [...marketOf().values()].filter((s) => s.price >= 100 && s.listings >= atLeast).length);
  await clearFilters(page);
  await expect(onSale).toHaveValue('');
  await expect(page.getByRole('button', { name: 'Deals', exact: true })).toBeVisible();
});

test('light theme: every deal filter section, a list error, the discount column and the market numbers pass axe', async ({
  page,
}) => {
  await openSynced(page);
  const theme = async (name: 'light' | 'dark') => {
    await goTo(page, 'Settings');
    await page.getByRole('radio', { name: new RegExp(name, 'i') }).check();
    await expect(page.locator('html')).toHaveAttribute('data-theme', name);
    await goTo(page, 'Catalog');
  };
  await theme('light');
  for (const title of ['Seed list', 'Charms', 'Sticker combos', 'Deals']) await openSection(page, title);
  await page.getByLabel('Charm patterns').fill('1-500, 99999x');
  await expect(page.getByRole('alert').filter({ hasText: '"99999x" is not a number' })).toBeVisible();
  await page.getByLabel('At least this many stickers').fill('11');
  await expect(
    page.getByRole('alert').filter({ hasText: 'Sticker count: A whole number of stickers, 1 to 10 — not applied.' }),
  ).toBeVisible();
  await page.getByRole('group', { name: 'Wear' }).getByRole('button', { name: /^FT/ }).click();
  await catalogGrid(page).getByRole('button', { name: 'Discount', exact: true }).click();
  await expect(catalogGrid(page).getByRole('columnheader', { name: 'Discount' })).toHaveAttribute(
    'aria-sort',
    'descending',
  );
  await expect(dataRows(page).first().getByRole('gridcell').nth(DISCOUNT_CELL).locator('.discount')).toHaveClass(
    /under/,
  );
  await dataRows(page).first().click();
  await expect(
    page.getByRole('complementary', { name: 'Item detail' }).getByRole('region', { name: 'Market' }),
  ).toContainText('Reference price');
  await expectAxeClean(page, 'light theme: deal filters, discount column, market numbers');
  await screenshot(page, test.info(), 'deals-light');
  await theme('dark');
});
