// The catalog beyond search and price: every filter and sort checked against the sandbox's
// own data, live price moves (flash up/down), sold items fading in place, the selection
// following the item (not the row) when rows shift, the item detail with stickers, keychains
// and the holder fields a merchant with reveal enabled sees, and the keyboard and palette.
import type { Page } from '@playwright/test';
import { formatDiscount } from '../src/renderer/src/lib/format';
import { formatCents } from '../src/shared/money';
import {
  catalogGrid,
  columnTexts,
  download,
  dataRows,
  expectEveryRow,
  matchingCount,
  openApp,
  openFilterSection,
  rowNamed,
  statusBar,
} from './support/app';
import { expect, test, useStack } from './support/stack';

const ZZYZX = [
  {
    itemId: 5_000_101,
    assetId: '50000101',
    market_hash_name: 'Glock-18 | Zzyzx Line (Field-Tested)',
    price: 101,
    float: 0.31,
    paintSeed: 11,
  },
  {
    itemId: 5_000_102,
    assetId: '50000102',
    market_hash_name: 'MP9 | Zzyzx Line (Field-Tested)',
    price: 102,
    float: 0.32,
    paintSeed: 12,
  },
  {
    itemId: 5_000_103,
    assetId: '50000103',
    market_hash_name: 'P90 | Zzyzx Line (Field-Tested)',
    price: 103,
    float: 0.33,
    paintSeed: 13,
  },
  {
    itemId: 5_000_104,
    assetId: '50000104',
    market_hash_name: 'UMP-45 | Zzyzx Line (Field-Tested)',
    price: 104,
    float: 0.34,
    paintSeed: 14,
  },
] as const;
const [A, B, C, D] = ZZYZX;

/** Three plain listings of one name ($10, $20, $30): their reference is the median, $20. */
const GLOW = [1_000, 2_000, 3_000].map((price, i) => ({
  itemId: 5_000_401 + i,
  assetId: String(50_000_401 + i),
  market_hash_name: 'Tec-9 | Zzyzx Glow (Field-Tested)',
  price,
  float: 0.2 + i / 100,
  paintSeed: 40 + i,
  stickers: [],
  keyChains: [],
}));

const HOLDER_URL = 'https://steamcommunity.com/tradeoffer/new/?partner=424242&token=HolderTok9';
const INSPECT =
  'steam://rungame/730/76561202255233023/+csgo_econ_action_preview%20S76561198000000042A50000201D1234567890';
const DETAILED = {
  itemId: 5_000_201,
  assetId: '50000201',
  market_hash_name: 'AK-47 | Quokka Weave (Minimal Wear)',
  price: 4321,
  float: 0.0712345,
  paintSeed: 661,
  rarityColor: '#eb4b4b',
  stickers: [
    {
      name: 'Sticker | Quokka Crew (Holo) | Zzyzx Open 2031',
      img: 'https://127.0.0.1:9/s1.png',
      slot: 0,
      wear: 0.25,
      rotation: 12,
      offsetX: 0.125,
      offsetY: -0.5,
    },
    { name: 'Sticker | Plain Quokka', img: 'https://127.0.0.1:9/s2.png', slot: 1, wear: null },
  ],
  keyChains: [{ name: "Charm | Lil' Quokka", img: 'https://127.0.0.1:9/k1.png', slot: 0, pattern: 4242 }],
  steamId: '76561198000000042',
  inspectInGame: INSPECT,
  tradeUrl: HOLDER_URL,
};

const stack = useStack({
  items: 4000,
  seed: 21,
  merchant: { reveal: { steamId: true, inspectInGame: true, tradeUrl: true } },
  async prepare({ admin }) {
    const listed = await admin.post('/admin/items', { items: [...ZZYZX, DETAILED, ...GLOW] });
    if (listed.status >= 300) throw new Error(`listing: ${listed.status} ${JSON.stringify(listed.body)}`);
  },
});

test.describe.configure({ timeout: 90_000 });

/** An aggregate over the sandbox's on-sale items (what the app must show once synced). */
function sandboxValue(select: string, where: string, ...params: (string | number)[]): number {
  const row = stack()
    .sandbox.core.db.prepare(`SELECT ${select} AS v FROM items WHERE on_sale = 1 AND ${where}`)
    .get(...params) as { v: number };
  return row.v;
}

/** The catalog as synced before the tests (they list more items as they go). */
let syncedTotal: number | null = null;

async function openSynced(page: Page): Promise<void> {
  await openApp(page, stack());
  syncedTotal ??= sandboxValue('count(*)', '1');
  const shown = async () =>
    Number(
      /([\d,]+) items/.exec((await page.getByLabel('Catalog summary').textContent()) ?? '')?.[1]?.replace(/,/g, '') ??
        '0',
    );
  await expect.poll(shown, { timeout: 60_000 }).toBeGreaterThanOrEqual(syncedTotal);
  await expect(dataRows(page).first()).toBeVisible();
}

async function expectMatching(page: Page, expected: number): Promise<void> {
  expect(expected).toBeGreaterThan(0);
  await expect.poll(() => matchingCount(page), { timeout: 20_000 }).toBe(expected);
}

const sortButton = (page: Page, name: string) => catalogGrid(page).getByRole('button', { name, exact: true });
const clearFilters = (page: Page) => page.getByRole('button', { name: /^Clear filters/ }).click();

/** Numbers of a column as shown ("—" is null); `parse` turns a cell's text into a number. */
async function columnNumbers(
  page: Page,
  column: number,
  parse: (text: string) => number = Number,
): Promise<(number | null)[]> {
  return (await columnTexts(page, column)).map((t) => (t === '—' || t === '' ? null : parse(t)));
}

const ascending = (values: readonly number[]) => values.every((v, i) => i === 0 || (values[i - 1] as number) <= v);
const descending = (values: readonly number[]) => values.every((v, i) => i === 0 || (values[i - 1] as number) >= v);

test('phase, float, souvenir, stickers and sticker-name filters; sorts by float, seed, stickers, rarity, phase, name and age', async ({
  page,
}) => {
  await openSynced(page);

  // Phase: the commonest phase of this catalog.
  const { phase } = stack()
    .sandbox.core.db.prepare(
      `SELECT phase, count(*) AS n FROM items WHERE on_sale = 1 AND phase IN ('Phase 1','Phase 2','Phase 3','Phase 4','Ruby','Sapphire','Black Pearl','Emerald') GROUP BY phase ORDER BY n DESC LIMIT 1`,
    )
    .get() as { phase: string };
  await page.getByRole('combobox', { name: 'Phase' }).selectOption(phase);
  await expectMatching(page, sandboxValue('count(*)', 'phase = ?', phase));
  await expectEveryRow(
    page,
    async (row) => (await row.getByRole('gridcell').nth(2).textContent())?.trim() === phase,
    phase,
  );
  await clearFilters(page);

  // Float range.
  await page.getByLabel('Minimum float').fill('0.1');
  await page.getByLabel('Maximum float').fill('0.2');
  await expectMatching(page, sandboxValue('count(*)', `json_extract(json, '$.float') BETWEEN 0.1 AND 0.2`));
  await expectEveryRow(
    page,
    async (row) => {
      const f = Number(await row.getByRole('gridcell').nth(3).textContent());
      return f >= 0.1 && f <= 0.2;
    },
    'a float in 0.1–0.2',
  );

  // …sorted by float, descending then ascending.
  await sortButton(page, 'Float').click();
  await expect(catalogGrid(page).getByRole('columnheader', { name: 'Float' })).toHaveAttribute(
    'aria-sort',
    'ascending',
  );
  await expect.poll(async () => ascending((await columnNumbers(page, 3)) as number[])).toBe(true);
  await sortButton(page, 'Float').click();
  await expect(catalogGrid(page).getByRole('columnheader', { name: 'Float' })).toHaveAttribute(
    'aria-sort',
    'descending',
  );
  await expect
    .poll(async () => (await columnNumbers(page, 3))[0])
    .toBe(
      Math.floor(sandboxValue(`max(json_extract(json, '$.float'))`, `json_extract(json, '$.float') <= 0.2`) * 1e6) /
        1e6,
    );
  expect(descending((await columnNumbers(page, 3)) as number[])).toBe(true);

  // …by paint seed (items with a float all have one).
  await sortButton(page, 'Paint seed').click();
  await expect(catalogGrid(page).getByRole('columnheader', { name: 'Paint seed' })).toHaveAttribute(
    'aria-sort',
    'ascending',
  );
  // The seeds ascend from the lowest; items without a seed ("no data") come after them, in both directions.
  const seeds = async () => (await columnNumbers(page, 4)).filter((v): v is number => v !== null);
  await expect
    .poll(async () => (await seeds())[0])
    .toBe(sandboxValue(`min(json_extract(json, '$.paintSeed'))`, `json_extract(json, '$.float') BETWEEN 0.1 AND 0.2`));
  const shown = await columnNumbers(page, 4);
  expect(shown[0]).not.toBeNull();
  const firstEmpty = shown.indexOf(null);
  expect(firstEmpty === -1 ? [] : shown.slice(firstEmpty).filter((v) => v !== null)).toEqual([]);
  expect(ascending(await seeds())).toBe(true);
  await clearFilters(page);

  // Souvenir only.
  await page.getByRole('combobox', { name: 'Souvenir' }).selectOption('yes');
  await expectMatching(page, sandboxValue('count(*)', `market_hash_name LIKE 'Souvenir %'`));
  await expectEveryRow(
    page,
    async (row) => ((await row.locator('.name-text').textContent()) ?? '').startsWith('Souvenir'),
    'a souvenir',
  );
  await clearFilters(page);

  // With stickers, most stickers first.
  await openFilterSection(page, 'Sticker combos');
  await page.getByRole('combobox', { name: 'Stickers' }).selectOption('yes');
  await expectMatching(page, sandboxValue('count(*)', `json_array_length(json, '$.stickers') > 0`));
  await sortButton(page, 'Stickers').click();
  await expect(catalogGrid(page).getByRole('columnheader', { name: 'Stickers' })).toHaveAttribute(
    'aria-sort',
    'descending',
  );
  const stickerCount = (t: string) => Number(/^\d+/.exec(t)?.[0] ?? 'NaN');
  await expect
    .poll(async () => (await columnNumbers(page, 5, stickerCount))[0])
    .toBe(sandboxValue(`max(json_array_length(json, '$.stickers'))`, '1'));
  expect(descending((await columnNumbers(page, 5, stickerCount)) as number[])).toBe(true);
  await page.getByRole('combobox', { name: 'Stickers' }).selectOption('no');
  await expectMatching(page, sandboxValue('count(*)', `json_array_length(json, '$.stickers') = 0`));
  await expectEveryRow(
    page,
    async (row) => (await row.getByRole('gridcell').nth(5).textContent())?.trim() === '—',
    'without stickers',
  );
  await clearFilters(page);

  // Sticker name: our own sticker, on our one item.
  await page.getByLabel('Sticker name').fill('Quokka Crew');
  await expectMatching(page, 1);
  await expect(dataRows(page)).toHaveCount(1);
  await expect(dataRows(page).first()).toContainText(DETAILED.market_hash_name);
  await expect(dataRows(page).first().getByRole('gridcell').nth(5)).toHaveAttribute(
    'title',
    /Sticker \| Quokka Crew \(Holo\) \| Zzyzx Open 2031/,
  );
  await clearFilters(page);

  // Rarity, highest first: the first rows are the best grade on sale.
  await sortButton(page, 'Rarity').click();
  await expect(catalogGrid(page).getByRole('columnheader', { name: 'Rarity' })).toHaveAttribute(
    'aria-sort',
    'descending',
  );
  const order = ['Consumer', 'Industrial', 'Mil-Spec', 'Restricted', 'Classified', 'Covert', '★ Extraordinary'];
  const rarities = async () =>
    (
      await dataRows(page)
        .locator('[role="gridcell"]:first-child')
        .evaluateAll((cells) => cells.map((c) => c.getAttribute('title') ?? ''))
    ).map((t) => order.indexOf(t));
  await expect.poll(async () => descending(await rarities())).toBe(true);

  // Phase and name sorts.
  await sortButton(page, 'Name').click();
  await expect(catalogGrid(page).getByRole('columnheader', { name: 'Name' })).toHaveAttribute('aria-sort', 'ascending');
  const firstName = stack()
    .sandbox.core.db.prepare(
      'SELECT market_hash_name AS n FROM items WHERE on_sale = 1 ORDER BY market_hash_name COLLATE BINARY LIMIT 1',
    )
    .get() as { n: string };
  await expect(dataRows(page).first().locator('.name-text')).toHaveText(firstName.n);
  await sortButton(page, 'Phase').click();
  await expect(catalogGrid(page).getByRole('columnheader', { name: 'Phase' })).toHaveAttribute(
    'aria-sort',
    'ascending',
  );

  // Age: newest listing first. Everything came with the first sync: its age is unknown ("—").
  await sortButton(page, 'Age').click();
  await expect(catalogGrid(page).getByRole('columnheader', { name: 'Age' })).toHaveAttribute('aria-sort', 'descending');
  await expect.poll(async () => (await columnTexts(page, 8)).every((t) => t === '—')).toBe(true);
  // A listing that appears now is the newest, with a real age.
  await stack().admin.post('/admin/items', {
    items: [
      { itemId: 5_000_301, assetId: '50000301', market_hash_name: 'Nova | Zzyzx Dawn (Factory New)', price: 777 },
    ],
  });
  // It arrives over the feed ("N new or changed — refresh"), or with a sync that re-reads the rows anyway.
  await expect(async () => {
    const pill = page.getByRole('button', { name: /new or changed — refresh/ });
    if (await pill.isVisible()) await pill.click();
    await expect(dataRows(page).first().locator('.name-text')).toHaveText('Nova | Zzyzx Dawn (Factory New)', {
      timeout: 1000,
    });
  }).toPass({ timeout: 20_000 });
  await expect(dataRows(page).first().getByRole('gridcell').nth(8)).toHaveText(/^\d+s$/);

  // Keychains: most first, the top row carrying as many as any item on sale.
  await sortButton(page, 'Charms (keychains)').click();
  await expect(catalogGrid(page).getByRole('columnheader', { name: 'Charms (keychains)' })).toHaveAttribute(
    'aria-sort',
    'descending',
  );
  const keyChainCounts = () =>
    dataRows(page)
      .locator('.col-keychains')
      .evaluateAll((cells) =>
        cells.map((c) =>
          c.querySelector('.count')
            ? Number(c.querySelector('.count')?.textContent)
            : c.querySelector('.attach-names')
              ? 1
              : 0,
        ),
      );
  await expect
    .poll(async () => (await keyChainCounts())[0])
    .toBe(sandboxValue(`max(json_array_length(json, '$.keyChains'))`, '1'));
  expect(descending(await keyChainCounts())).toBe(true);
});

test('live prices flash up and down, sold items fade in place, and the selection follows its item when rows shift', async ({
  page,
}) => {
  const { admin } = stack();
  await openSynced(page);
  await expect(page.getByLabel('Catalog summary')).toContainText(
    /Last catalog update \d\d:\d\d:\d\d \((just now|\d+ (s|min) ago)\)/,
  );
  await page.getByRole('searchbox', { name: 'Search items' }).fill('Zzyzx Line');
  await expectMatching(page, 4);
  await expect.poll(() => columnTexts(page, 1)).toEqual(ZZYZX.map((z) => z.market_hash_name));

  // Price moves: up, then down, in place (no reorder under a price sort).
  const priceB = rowNamed(page, B.market_hash_name).getByRole('gridcell').nth(7);
  await admin.patch(`/admin/items/${B.itemId}`, { price: 150 });
  await expect(priceB).toHaveText(`▲${formatCents(150)}`, { timeout: 15_000 });
  await expect(priceB.locator('.price-flash')).toHaveClass(/flash-up/);
  await admin.patch(`/admin/items/${B.itemId}`, { price: 90 });
  await expect(priceB).toHaveText(`▼${formatCents(90)}`, { timeout: 15_000 });
  await expect(priceB.locator('.price-flash')).toHaveClass(/flash-down/);
  expect(await columnTexts(page, 1)).toEqual(ZZYZX.map((z) => z.market_hash_name));

  // Select C (the third row) and close its detail: B acts on the selection.
  const rowC = rowNamed(page, C.market_hash_name);
  await rowC.click();
  await expect(rowC).toHaveAttribute('aria-selected', 'true');
  await expect(rowC).toHaveAttribute('aria-rowindex', '4');
  await page.keyboard.press('Escape');
  await expect(page.getByRole('complementary', { name: 'Item detail' })).toBeHidden();

  // A, above it, sells: it fades in place with a "Sold" tag; nothing moves.
  await admin.delete(`/admin/items/${A.itemId}`);
  const rowA = rowNamed(page, A.market_hash_name);
  await expect(rowA).toHaveClass(/\bremoved\b/, { timeout: 15_000 });
  await expect(rowA.getByText('Sold', { exact: true })).toBeVisible();
  await page.waitForTimeout(1500); // longer than the old 0.9 s re-query that dropped sold rows
  expect(await columnTexts(page, 1).then((names) => names.map((n) => n.replace(/Sold$/, '')))).toEqual(
    ZZYZX.map((z) => z.market_hash_name),
  );
  await expect(rowC).toHaveAttribute('aria-rowindex', '4');

  // The user refreshes: the sold row leaves, rows shift up, the highlight stays on C.
  await page.getByRole('button', { name: /1 sold — refresh/ }).click();
  await expect(rowA).toHaveCount(0);
  await expect(rowC).toHaveAttribute('aria-rowindex', '3');
  await expect(rowC).toHaveAttribute('aria-selected', 'true');
  await expect(rowNamed(page, D.market_hash_name)).toHaveAttribute('aria-rowindex', '4');
  await expect(rowNamed(page, D.market_hash_name)).toHaveAttribute('aria-selected', 'false');

  // B buys the selected item, not whatever now sits where it was.
  await catalogGrid(page).focus();
  await page.keyboard.press('b');
  const dialog = page.getByRole('dialog', { name: 'Buy item' });
  await expect(dialog).toBeVisible();
  await expect(dialog.locator('.buy-item-name')).toHaveText(C.market_hash_name);
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();

  // Arrow keys move from the item; Enter opens it.
  await page.keyboard.press('ArrowDown');
  await expect(rowNamed(page, D.market_hash_name)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('complementary', { name: 'Item detail' }).getByRole('heading', { level: 2 })).toHaveText(
    D.market_hash_name,
  );

  // The catalog's last update follows a rebuild on the server.
  const before = (await page.getByLabel('Catalog summary').textContent()) ?? '';
  const rebuilt = await admin.post<{ lastUpdate: string }>('/admin/catalog/rebuild');
  expect(rebuilt.status).toBe(200);
  await page.getByRole('button', { name: 'Refresh', exact: true }).click();
  const at = new Date(rebuilt.body.lastUpdate);
  const hhmmss = [at.getHours(), at.getMinutes(), at.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
  await expect(page.getByLabel('Catalog summary')).toContainText(`Last catalog update ${hhmmss}`, { timeout: 20_000 });
  expect(before).not.toBe(await page.getByLabel('Catalog summary').textContent());
  await expect(statusBar(page).getByLabel('Rate-limit headroom')).toContainText(/Catalog\s*\d+\/\d+/);
});

test('item detail: stickers with wear, keychains, holder and inspect link, and the price history', async ({ page }) => {
  await openSynced(page);
  await page.getByRole('searchbox', { name: 'Search items' }).fill('Quokka Weave');
  const row = rowNamed(page, DETAILED.market_hash_name);
  await row.click();
  const detail = page.getByRole('complementary', { name: 'Item detail' });
  await expect(detail.getByRole('heading', { level: 2 })).toHaveText(DETAILED.market_hash_name);

  // A single price so far: no flat line, a plain statement.
  const history = detail.getByRole('region', { name: 'Price history' });
  await expect(history.getByRole('status', { name: 'No price moves yet' })).toContainText(formatCents(DETAILED.price));

  // Beside the detail panel (1280 px wide) seed, charms and age fold away; price and discount stay in view.
  await expect(row.getByRole('gridcell').nth(7)).toBeInViewport();
  await expect(row.getByRole('gridcell').nth(9)).toBeInViewport();
  for (const cell of [6, 8]) expect((await row.getByRole('gridcell').nth(cell).boundingBox())?.width).toBe(0);

  const props = detail.getByRole('region', { name: 'Properties' });
  const prop = (label: string) =>
    props.locator('.prop', { has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) }).locator('dd');
  await expect(prop('Float')).toHaveText(String(DETAILED.float));
  await expect(prop('Paint seed')).toHaveText(String(DETAILED.paintSeed));
  await expect(prop('Rarity')).toHaveText('Covert');

  // Stickers: wear as a percent and raw, placement; one without inspect data.
  const stickers = detail.getByRole('region', { name: 'Stickers' });
  await expect(stickers.locator('h3')).toContainText('2');
  const first = stickers.locator('li').nth(0);
  await expect(first.locator('.attach-name')).toHaveText('Quokka Crew (Holo) | Zzyzx Open 2031');
  await expect(first.locator('.attach-name')).toHaveAttribute('title', DETAILED.stickers[0]?.name ?? '');
  await expect(first).toContainText('75%');
  await expect(first).toContainText('wear 0.2500');
  await expect(first).toContainText('rot 12°');
  await expect(first).toContainText('x 0.125');
  await expect(stickers.locator('li').nth(1)).toContainText('wear unknown');

  // Keychains with their pattern.
  const keychains = detail.getByRole('region', { name: 'Keychains' });
  await expect(keychains.locator('li')).toHaveCount(1);
  await expect(keychains).toContainText("Lil' Quokka");
  await expect(keychains).toContainText('pattern 4242');

  // Holder fields: shown because this merchant has reveal enabled; the trade URL's token is redacted.
  const holder = detail.getByRole('region', { name: 'Holder' });
  await expect(holder).toContainText(DETAILED.steamId);
  await expect(holder).toContainText('partner=424242');
  await expect(holder).not.toContainText('HolderTok9');
  await expect(holder.getByRole('link', { name: /Inspect in game/ })).toHaveAttribute('href', INSPECT);

  // Two price moves: now a chart and the change since first seen.
  // (One at a time: moves of one item in the same flush are merged into the latest.)
  await stack().admin.patch(`/admin/items/${DETAILED.itemId}`, { price: 4500 });
  await expect(detail.locator('.detail-price')).toContainText(formatCents(4500), { timeout: 15_000 });
  await stack().admin.patch(`/admin/items/${DETAILED.itemId}`, { price: 4400 });
  await expect(history.getByRole('img', { name: /^Price history: 3 points/ })).toBeVisible({ timeout: 15_000 });
  await expect(history).toContainText('2 moves since first seen');
  await expect(history).toContainText(`+${formatCents(4400 - DETAILED.price)}`);
  await expect(detail.locator('.detail-price')).toContainText(formatCents(4400));
});

test('a live price move of one listing moves its name’s reference and discount in the open detail and the rows', async ({
  page,
}) => {
  await openSynced(page);
  await page.getByRole('searchbox', { name: 'Search items' }).fill('Zzyzx Glow');
  await expectMatching(page, 3);
  const [cheap, middle, dear] = GLOW as [(typeof GLOW)[0], (typeof GLOW)[0], (typeof GLOW)[0]];
  await rowNamed(page, cheap.market_hash_name).first().click();
  const detail = page.getByRole('complementary', { name: 'Item detail' });
  const market = detail.getByRole('region', { name: 'Market' });
  const prop = (label: string) =>
    market.locator('.prop', { has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) }).locator('dd');
  await expect(detail.locator('.prop', { has: page.locator('dt', { hasText: /^Item ID$/ }) }).locator('dd')).toHaveText(
    String(cheap.itemId),
  );
  await expect(prop('Reference price')).toContainText(formatCents(2_000));
  await expect(prop('Discount')).toHaveText(`${formatDiscount(50)} under the reference`);
  // Rows by price (the three share a name): their discount cells.
  const discountAt = (price: number) =>
    dataRows(page).evaluateAll((rows, shown) => {
      const cells = rows.map((row) =>
        [...row.querySelectorAll('[role="gridcell"]')].map((cell) => (cell.textContent ?? '').trim()),
      );
      return cells.find((cell) => (cell[7] ?? '').replace(/^[▲▼]/u, '') === shown)?.[9] ?? null;
    }, formatCents(price));
  await expect.poll(() => discountAt(middle.price)).toBe(formatDiscount(0));

  // Another listing of the name moves: $30 → $15. The median is $15 now, on screen without reopening anything.
  await stack().admin.patch(`/admin/items/${dear.itemId}`, { price: 1_500 });
  await expect(prop('Reference price')).toContainText(formatCents(1_500), { timeout: 15_000 });
  await expect(prop('Discount')).toHaveText(`${formatDiscount(((1_500 - 1_000) / 1_500) * 100)} under the reference`);
  await expect
    .poll(() => discountAt(cheap.price), { timeout: 15_000 })
    .toBe(formatDiscount(((1_500 - 1_000) / 1_500) * 100));
  await expect
    .poll(() => discountAt(middle.price), { timeout: 15_000 })
    .toBe(formatDiscount(((1_500 - 2_000) / 1_500) * 100));
  await expect.poll(() => discountAt(1_500), { timeout: 15_000 }).toBe(formatDiscount(0));
});

test('keyboard and palette in the running app: /, arrows, Enter, B, Esc, Ctrl+K', async ({ page }) => {
  await openSynced(page);
  await page.keyboard.press('/');
  const search = page.getByRole('searchbox', { name: 'Search items' });
  await expect(search).toBeFocused();
  await page.keyboard.type('Zzyzx Line');
  // The search applies once typing pauses: wait for its answer (a new query resets the selection).
  await expectMatching(page, sandboxValue('count(*)', `market_hash_name LIKE '%Zzyzx Line%'`));
  await expectEveryRow(
    page,
    async (row) => ((await row.locator('.name-text').textContent()) ?? '').includes('Zzyzx Line'),
    'a Zzyzx Line',
  );
  // ArrowDown leaves the search box for the grid; the arrows then select rows.
  await page.keyboard.press('ArrowDown');
  await expect(catalogGrid(page)).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(dataRows(page).nth(0)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('ArrowDown');
  await expect(dataRows(page).nth(1)).toHaveAttribute('aria-selected', 'true');
  const name = (await dataRows(page).nth(1).locator('.name-text').textContent()) ?? '';
  await page.keyboard.press('Enter');
  const detail = page.getByRole('complementary', { name: 'Item detail' });
  await expect(detail.getByRole('heading', { level: 2 })).toHaveText(name);
  await page.keyboard.press('b');
  await expect(page.getByRole('dialog', { name: 'Buy item' })).toContainText(name);
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog', { name: 'Buy item' })).toBeHidden();
  await page.keyboard.press('Escape');
  await expect(detail).toBeHidden();

  // The palette: Ctrl+K, type, Enter runs the command.
  await page.keyboard.press('Control+k');
  const palette = page.getByRole('dialog', { name: 'Command palette' });
  await expect(palette).toBeVisible();
  await page.keyboard.type('clear catalog filters');
  await expect(palette.getByRole('option', { selected: true })).toContainText('Clear catalog filters');
  await page.keyboard.press('Enter');
  await expect(palette).toBeHidden();
  await expect(search).toHaveValue('');
  await expect(page.getByLabel('Catalog summary')).not.toContainText('matching');

  // g then t goes to Trades; E there exports (the engine writes the file, the status bar offers a real download).
  await page.keyboard.press('g');
  await page.keyboard.press('t');
  await expect(page.getByRole('heading', { level: 1, name: 'Trades' })).toBeVisible();
  const file = await download(page, () => page.keyboard.press('e'), test.info());
  expect(file.name).toMatch(/^trades-.+\.csv$/);
});
