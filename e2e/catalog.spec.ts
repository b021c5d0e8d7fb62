// A 100,000-item catalog: the first sync, search, filters, sort, deep scrolling in the
// virtualized grid, and the item detail panel.
import type { Locator, Page } from '@playwright/test';
import {
  catalogGrid,
  dataRows,
  expectEveryRow,
  expectRowsRendered,
  matchingCount,
  openApp,
  openFilterSection,
  parseMoney,
  rowName,
  rowPrice,
  screenshot,
} from './support/app';
import { expect, test, useStack } from './support/stack';

const ITEMS = 100_000;
const stack = useStack({ items: ITEMS, seed: 11 });

test.describe.configure({ timeout: 120_000 });

/** Opens the app and waits for the first sync to have stored the whole catalog. */
async function openSynced(page: Page): Promise<void> {
  // Every progress bar the status bar shows is recorded from the first frame (the first sync may be brief).
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __progress: string[] }).__progress = seen;
    new MutationObserver(() => {
      for (const bar of document.querySelectorAll('[role="progressbar"]'))
        seen.push(`${bar.getAttribute('aria-label')}: ${bar.getAttribute('aria-valuetext')}`);
    }).observe(document, { subtree: true, childList: true, attributes: true });
  });
  await openApp(page, stack());
  await expect(page.getByLabel('Catalog summary')).toContainText('100,000 items', { timeout: 90_000 });
  await expect(dataRows(page).first()).toBeVisible();
}

/** An aggregate over the sandbox's on-sale items: what the app must show after its sync. */
function sandbox(select: string, where: string, ...params: (string | number)[]): number {
  const row = stack()
    .sandbox.core.db.prepare(`SELECT ${select} AS v FROM items WHERE on_sale = 1 AND ${where}`)
    .get(...params) as { v: number };
  return row.v;
}

const sandboxCount = (where: string, ...params: (string | number)[]) => sandbox('count(*)', where, ...params);

/** Waits for the header's "N matching" to read exactly the sandbox's count (so the new query has answered). */
async function expectMatching(page: Page, expected: number): Promise<void> {
  expect(expected).toBeGreaterThan(0);
  expect(expected).toBeLessThan(ITEMS);
  await expect.poll(() => matchingCount(page), { timeout: 20_000 }).toBe(expected);
}

test('syncs 100,000 items, searches and filters them', async ({ page }) => {
  await openSynced(page);
  // The first sync showed its progress in the status bar while it ran.
  const progress = await page.evaluate(() => (window as unknown as { __progress: string[] }).__progress);
  expect(progress).toContainEqual(expect.stringMatching(/^Catalog sync: [\d,]+ (of 100,000|so far)$/));
  const search = page.getByRole('searchbox', { name: 'Search items' });

  // Search: every visible row names a Redline.
  await search.fill('Redline');
  await expectMatching(page, sandboxCount(`market_hash_name LIKE '%Redline%'`));
  await expectEveryRow(page, async (row) => (await rowName(row)).includes('Redline'), 'a Redline');
  await search.fill('');

  // Price max: nothing above $5.00.
  await page.getByLabel('Maximum price').fill('5');
  const cheap = sandboxCount('price <= ?', 500);
  await expectMatching(page, cheap);
  await expectEveryRow(page, async (row) => (await rowPrice(row)) <= 500, 'at most $5.00');

  // Sorting by price descending within the filter starts at the top of the range.
  await catalogGrid(page).getByRole('button', { name: 'Price', exact: true }).click();
  await expect(catalogGrid(page).getByRole('columnheader', { name: 'Price' })).toHaveAttribute(
    'aria-sort',
    'descending',
  );
  await expect.poll(() => rowPrice(dataRows(page).first())).toBe(sandbox('max(price)', 'price <= ?', 500));
  await expectEveryRow(page, async (row) => (await rowPrice(row)) <= 500, 'at most $5.00');
  expect(await matchingCount(page)).toBe(cheap);
  await page.getByRole('button', { name: /^Clear filters/ }).click();
  await expect(page.getByLabel('Catalog summary')).not.toContainText('matching');

  // StatTrak only.
  await page.getByRole('combobox', { name: 'StatTrak' }).selectOption('yes');
  await expectMatching(page, sandboxCount(`market_hash_name LIKE '%StatTrak™%'`));
  await expectEveryRow(page, async (row) => (await rowName(row)).includes('StatTrak™'), 'StatTrak™');
  await page.getByRole('button', { name: /^Clear filters/ }).click();

  // One rarity: Covert (its section opened from its toggle).
  await openFilterSection(page, 'Rarity');
  const covert = page.getByRole('group', { name: 'Rarity', exact: true }).getByRole('button', { name: 'Covert' });
  await covert.click();
  await expect(covert).toHaveAttribute('aria-pressed', 'true');
  await expectMatching(page, sandboxCount(`json_extract(json, '$.rarityColor') = ?`, '#eb4b4b'));
  await expectEveryRow(
    page,
    async (row) => (await row.getByRole('gridcell').first().getAttribute('title')) === 'Covert',
    'Covert',
  );
});

test('sorts by price descending and scrolls deep into the grid without blank rows', async ({ page }) => {
  await openSynced(page);
  const grid = catalogGrid(page);

  // Default is price ascending; one click flips it.
  await grid.getByRole('button', { name: 'Price', exact: true }).click();
  await expect(grid.getByRole('columnheader', { name: 'Price' })).toHaveAttribute('aria-sort', 'descending');
  // The most expensive item of the sandbox comes first, then the second row is no dearer.
  await expect.poll(() => rowPrice(dataRows(page).first())).toBe(sandbox('max(price)', '1'));
  expect(await rowPrice(dataRows(page).nth(0))).toBeGreaterThanOrEqual(await rowPrice(dataRows(page).nth(1)));
  const prices: number[] = [];
  for (const row of await dataRows(page).all()) prices.push(await rowPrice(row));
  expect(prices).toEqual([...prices].sort((a, b) => b - a));

  // Far down: around row 80,000, then the very end. Rows render there (no blank, no skeleton left).
  // aria-rowindex counts the header row: data row i has i + 2.
  const lastIndex = async () =>
    Math.max(
      0,
      ...(await grid
        .locator('.grid-row[aria-rowindex]')
        .evaluateAll((els) => els.map((el) => Number(el.getAttribute('aria-rowindex'))))),
    );
  for (const [fraction, atLeast] of [
    [0.8, ITEMS * 0.75],
    [1, ITEMS + 1],
  ] as const) {
    await grid.evaluate((el, f) => {
      el.scrollTop = (el.scrollHeight - el.clientHeight) * f;
    }, fraction);
    await expect.poll(lastIndex).toBeGreaterThanOrEqual(atLeast);
    await expectRowsRendered(page);
    for (const row of await dataRows(page).all()) {
      expect((await rowName(row)).length).toBeGreaterThan(0);
      expect(await rowPrice(row)).toBeGreaterThan(0);
    }
  }
  expect(await lastIndex()).toBe(ITEMS + 1);
  // The cheapest item closes the list.
  expect(await rowPrice(grid.locator(`.grid-row[aria-rowindex="${ITEMS + 1}"]`))).toBe(sandbox('min(price)', '1'));
  // Still descending at the bottom.
  const tail: number[] = [];
  for (const row of await dataRows(page).all()) tail.push(await rowPrice(row));
  const byIndex = await dataRows(page).evaluateAll((els) => els.map((el) => Number(el.getAttribute('aria-rowindex'))));
  const ordered = byIndex
    .map((index, i) => ({ index, price: tail[i] ?? 0 }))
    .sort((a, b) => a.index - b.index)
    .map((r) => r.price);
  expect(ordered).toEqual([...ordered].sort((a, b) => b - a));
});

test('rows scrolled far hand their DOM to the rows scrolled in, and each shows its own item and picture', async ({
  page,
}) => {
  await openSynced(page);
  const grid = catalogGrid(page);
  await expectRowsRendered(page);
  // Mark the rows on screen now; after a jump half-way down, the rows there should be these elements.
  const marked = await grid.locator('.grid-row[aria-rowindex]').evaluateAll((els) => {
    for (const el of els) el.setAttribute('data-probe', '1');
    return els.length;
  });
  await grid.evaluate((el) => {
    el.scrollTop = (el.scrollHeight - el.clientHeight) * 0.5;
  });
  await expect
    .poll(() =>
      grid
        .locator('.grid-row[aria-rowindex]')
        .evaluateAll((els) => Math.min(...els.map((el) => Number(el.getAttribute('aria-rowindex'))))),
    )
    .toBeGreaterThan(ITEMS * 0.45);
  await expectRowsRendered(page);
  expect(await grid.locator('.grid-row[data-probe]').count()).toBeGreaterThan(marked / 2);

  // A reused row shows the picture and price of the item now in it, not of the one before.
  const picturesOf = stack().sandbox.core.db.prepare<[string, number], string>(
    "SELECT json_extract(json, '$.img') FROM items WHERE on_sale = 1 AND market_hash_name = ? AND price = ?",
  );
  let pictures = 0;
  for (const row of await dataRows(page).all()) {
    const expected = picturesOf.pluck().all(await rowName(row), await rowPrice(row));
    expect(expected.length).toBeGreaterThan(0);
    const img = row.locator('img');
    if ((await img.count()) === 0) continue;
    expect(expected).toContain(await img.getAttribute('src'));
    pictures++;
  }
  expect(pictures).toBeGreaterThan(5);

  // A short scroll among loaded rows: a picture element never changes picture (rows of the same skin
  // share one), so a reused row never shows the last item's picture while the next one loads.
  await grid.locator('.grid-row img').evaluateAll((imgs) => {
    for (const img of imgs) img.setAttribute('data-shown', img.getAttribute('src') ?? '');
  });
  await grid.evaluate((el) => {
    el.scrollTop += 20 * 36;
  });
  await expectRowsRendered(page);
  const kept = await grid
    .locator('.grid-row img[data-shown]')
    .evaluateAll((imgs) =>
      imgs.map((img) => ({ shown: img.getAttribute('data-shown'), now: img.getAttribute('src') })),
    );
  expect(kept.length).toBeGreaterThan(0);
  for (const { shown, now } of kept) expect(now).toBe(shown);
});

test('opens an item in the detail panel with its fields', async ({ page }) => {
  await openSynced(page);
  await page.getByRole('searchbox', { name: 'Search items' }).fill('Redline');
  await expect(dataRows(page).first()).toContainText('Redline');
  const row = dataRows(page).nth(2);
  const name = await rowName(row);
  const price = await rowPrice(row);
  await row.click();
  await expect(row).toHaveAttribute('aria-selected', 'true');

  const detail = page.getByRole('complementary', { name: 'Item detail' });
  await expect(detail).toBeVisible();
  await expect(detail.getByRole('heading', { level: 2 })).toHaveText(name);
  expect(parseMoney((await detail.locator('.detail-price').textContent()) ?? '')).toBe(price);
  await expect(detail.getByRole('button', { name: 'Buy', exact: true })).toBeEnabled();

  const props = detail.getByRole('region', { name: 'Properties' });
  const prop = (label: string) =>
    props.locator('.prop', { has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) }).locator('dd');
  await expect(prop('Float')).toHaveText(/^0\.\d+$/);
  await expect(prop('Paint seed')).toHaveText(/^\d+$/);
  await expect(prop('Paint index')).toHaveText(/^\d+$/);
  await expect(prop('Item ID')).toHaveText(/^\d+$/);
  await expect(prop('Asset ID')).toHaveText(/^\d+$/);
  await expect(prop('Class ID')).toHaveText(/^\d+$/);
  await expect(prop('Rarity')).not.toHaveText('Unknown rarity');
  await expect(detail.getByRole('region', { name: 'Stickers' })).toBeVisible();
  await expect(detail.getByRole('region', { name: 'Keychains' })).toBeVisible();
  await expect(detail.getByRole('region', { name: 'Price history' })).toBeVisible();

  // Esc-free close: the panel goes away.
  await detail.getByRole('button', { name: 'Close detail' }).click();
  await expect(detail).toBeHidden();
});

const WEAR_SHORT: Record<string, string> = {
  'Factory New': 'FN',
  'Minimal Wear': 'MW',
  'Field-Tested': 'FT',
  'Well-Worn': 'WW',
  'Battle-Scarred': 'BS',
};

/** Where an element is drawn, and how much of it its cell and the grid let show (0 when folded or clipped away). */
async function shownWidth(element: Locator): Promise<{ width: number; shown: number; clipped: boolean }> {
  return element.evaluate((el) => {
    const box = el.getBoundingClientRect();
    const cell = (el.closest('[role="gridcell"], [role="columnheader"]') ?? el).getBoundingClientRect();
    const grid = (el.closest('[role="grid"]') as HTMLElement).getBoundingClientRect();
    const shown = Math.max(0, Math.min(box.right, cell.right, grid.right) - Math.max(box.left, cell.left, grid.left));
    const visible = getComputedStyle(el).visibility === 'visible';
    return {
      width: box.width,
      shown: visible ? shown : 0,
      clipped: (el as HTMLElement).scrollWidth > (el as HTMLElement).clientWidth + 1,
    };
  });
}

test('beside the detail panel at 1280 px, each row shows its wear and the start of weapon and finish; empty columns fold', async ({
  page,
}, testInfo) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openSynced(page);
  const search = page.getByRole('searchbox', { name: 'Search items' });
  // The search matches names only, and says so.
  await expect(search).toHaveAttribute('placeholder', /name/i);
  await expect(search).not.toHaveAttribute('placeholder', /phase|sticker/i);

  await search.fill('StatTrak™ AK-47 | Redline');
  await expectMatching(page, sandboxCount(`market_hash_name LIKE 'StatTrak™ AK-47 | Redline%'`));
  await dataRows(page).first().click();
  const detail = page.getByRole('complementary', { name: 'Item detail' });
  await expect(detail).toBeVisible();
  await expectRowsRendered(page);

  const wears = new Set<string>();
  for (const row of await dataRows(page).all()) {
    const name = await rowName(row);
    const wear = /\(([^()]+)\)$/.exec(name)?.[1] ?? '';
    const short = WEAR_SHORT[wear];
    expect(short, name).toBeDefined();
    wears.add(wear);
    // The wear's abbreviation, whole, inside the row's name cell and the grid.
    const tag = row.getByRole('gridcell').nth(1).locator('.wear-short');
    await expect(tag).toHaveAttribute('title', wear);
    expect(await tag.evaluate((el) => getComputedStyle(el, '::before').content), name).toBe(`"${short}"`);
    const tagBox = await shownWidth(tag);
    expect(tagBox.width, name).toBeGreaterThan(0);
    expect(tagBox.shown, name).toBeCloseTo(tagBox.width, 0);
    // Weapon and finish each keep their start on screen: "StatTrak™ AK-47" and "| Redline" are read in full here.
    for (const part of ['.name-head', '.name-tail']) {
      const box = await shownWidth(row.locator(part));
      expect(box.clipped, `${name} ${part}`).toBe(false);
      expect(box.shown, `${name} ${part}`).toBeGreaterThan(20);
    }
  }
  // Rows of one skin in several wears: they look different only by the wear.
  expect(wears.size).toBeGreaterThan(2);

  // No Redline has a phase: the column folds and its room goes to the name; a Doppler search brings it back.
  const phaseHeader = catalogGrid(page).getByRole('columnheader', { name: 'Phase' });
  await expect.poll(async () => (await shownWidth(phaseHeader)).width).toBeLessThan(1);
  await expect(phaseHeader.getByRole('button')).toBeHidden();
  await screenshot(page, testInfo, 'catalog-narrow-redline');

  await search.fill('Karambit Doppler');
  await expectMatching(page, sandboxCount(`market_hash_name LIKE '★%Karambit | %Doppler%'`));
  await expect.poll(async () => (await shownWidth(phaseHeader)).shown).toBeGreaterThan(60);
  const phaseCell = dataRows(page).first().getByRole('gridcell').nth(2);
  await expect(phaseCell).toHaveText(/^(Phase [1-4]|Ruby|Sapphire|Black Pearl|Emerald)$/);
  expect((await shownWidth(phaseCell)).shown).toBeGreaterThan(60);

  // A knife's grade reads as traders say it, in the grid and in the panel.
  await dataRows(page).first().click();
  await expect(detail.getByRole('heading', { level: 2 })).toHaveText(/^★ (StatTrak™ )?Karambit \| (Gamma )?Doppler/);
  const props = detail.getByRole('region', { name: 'Properties' });
  await expect(props.locator('.prop', { has: page.locator('dt', { hasText: /^Rarity$/ }) }).locator('dd')).toHaveText(
    '★ Extraordinary',
  );
  await expect(detail.locator('.rarity-label')).toHaveText('★ Extraordinary');
  await expectEveryRow(
    page,
    async (row) => (await row.getByRole('gridcell').first().getAttribute('title')) === '★ Extraordinary',
    '★ Extraordinary',
  );
  await screenshot(page, testInfo, 'catalog-narrow-knife');
});
