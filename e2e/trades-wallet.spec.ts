// Trades and Wallet over history the sandbox already holds when the app first starts:
// trade filters (status, order id), the trades CSV, the ledger of a completed trade and
// the ledger CSV. The files are real browser downloads, read back from disk.
import type { Locator, Page } from '@playwright/test';
import { formatCents } from '../src/shared/money';
import { merchantApi } from '../test/support/sandboxHttp';
import { download, goTo, openApp, parseCsv, screenshot, TRADE_URL } from './support/app';
import { expect, test, useStack } from './support/stack';

interface Listing {
  itemId: number;
  assetId: string;
  market_hash_name: string;
  price: number;
  externalId: string;
  /** Where the sandbox moves the trade before the app starts. */
  moves: { status: string; errorCode?: number }[];
  status: string;
}

const LISTINGS: Listing[] = [
  {
    itemId: 8_000_001,
    assetId: '80000001',
    market_hash_name: 'USP-S | Harbor Lights (Field-Tested)',
    price: 1500,
    externalId: 'ORD-1001',
    moves: [{ status: 'SENT' }, { status: 'COMPLETED' }],
    status: 'COMPLETED',
  },
  {
    itemId: 8_000_002,
    assetId: '80000002',
    market_hash_name: 'AK-47 | Copper Vale (Minimal Wear)',
    price: 2500,
    externalId: 'ORD-1002',
    moves: [{ status: 'SENT' }, { status: 'CANCELLED', errorCode: 504 }],
    status: 'CANCELLED',
  },
  {
    itemId: 8_000_003,
    assetId: '80000003',
    market_hash_name: 'AWP | Silent Orchard (Field-Tested)',
    // A merchant's price: the money columns must show it whole.
    price: 9_999_999,
    externalId: 'ORD-1003',
    moves: [],
    status: 'PENDING',
  },
  {
    itemId: 8_000_004,
    assetId: '80000004',
    market_hash_name: 'Desert Eagle | Night Ferry (Factory New)',
    price: 900,
    externalId: 'ORD-1004',
    moves: [{ status: 'SENT' }],
    status: 'SENT',
  },
];
const tradeIds = new Map<string, string>(); // externalId → tradeId

const TRADES_HEADER = [
  'tradeId',
  'externalId',
  'status',
  'price',
  'itemId',
  'assetId',
  'offerId',
  'market_hash_name',
  'phase',
  'float',
  'webhookStatus',
  'errorCode',
  'failReason',
  'createdAt',
  'updatedAt',
  'completedAt',
  'cancelledAt',
  'endProtection',
  'rollbackAt',
  'stage',
];
const LEDGER_HEADER = [
  'id',
  'createdAt',
  'type',
  'amount',
  'balanceBefore',
  'balanceAfter',
  'tradeId',
  'market_hash_name',
  'phase',
  'note',
];

const stack = useStack({
  items: 2000,
  seed: 3,
  merchant: { balance: 10_050_000 },
  async prepare({ sandbox, admin, merchant }) {
    const listed = await admin.post('/admin/items', {
      items: LISTINGS.map(({ itemId, assetId, market_hash_name, price }) => ({
        itemId,
        assetId,
        market_hash_name,
        price,
      })),
    });
    if (listed.status >= 300) throw new Error(`listing: ${listed.status} ${JSON.stringify(listed.body)}`);
    const api = merchantApi(sandbox, merchant);
    for (const l of LISTINGS) {
      const bought = await api.post<{ tradeId: string }>('/Items/Buy', {
        itemId: l.itemId,
        assetId: l.assetId,
        price: l.price,
        tradeUrl: TRADE_URL,
        externalId: l.externalId,
      });
      if (bought.status !== 200)
        throw new Error(`buy ${l.externalId}: ${bought.status} ${JSON.stringify(bought.body)}`);
      tradeIds.set(l.externalId, bought.body.tradeId);
      for (const move of l.moves) await admin.transition(bought.body.tradeId, move);
    }
  },
});

test.describe.configure({ timeout: 90_000 });

function listing(externalId: string): Listing {
  const found = LISTINGS.find((l) => l.externalId === externalId);
  if (!found) throw new Error(externalId);
  return found;
}

function tradeBodyRows(page: Page) {
  return page.getByRole('table', { name: 'Trades' }).locator('tbody tr');
}

async function openHistory(page: Page) {
  await openApp(page, stack());
  await goTo(page, 'Trades');
  await page.getByRole('tab', { name: 'History' }).click();
  await expect(page.getByRole('tab', { name: 'History' })).toHaveAttribute('aria-selected', 'true');
  await expect(tradeBodyRows(page)).toHaveCount(LISTINGS.length, { timeout: 30_000 });
}

test('filters trades by status and order id', async ({ page }) => {
  await openHistory(page);
  const filters = page.getByRole('group', { name: 'Trade filters' });
  const rows = tradeBodyRows(page);

  // Status: Completed only, then Completed + Cancelled.
  await filters.getByRole('button', { name: 'Completed', exact: true }).click();
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(listing('ORD-1001').market_hash_name);
  await expect(rows.first()).toContainText('ORD-1001');
  await expect(rows.first().locator('.status-badge')).toHaveText(/^completed$/i);
  await filters.getByRole('button', { name: 'Cancelled', exact: true }).click();
  await expect(rows).toHaveCount(2);
  await expect(rows.locator('.status-badge')).toHaveText([/^(completed|cancelled)$/i, /^(completed|cancelled)$/i]);
  await filters.getByRole('button', { name: 'Clear' }).click();
  await expect(rows).toHaveCount(LISTINGS.length);

  // Order id (externalId): exactly that trade.
  await filters.getByRole('textbox', { name: 'Order ID' }).fill('ORD-1004');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(listing('ORD-1004').market_hash_name);
  await expect(rows.first().locator('.status-badge')).toHaveText(/^sent$/i);
  await filters.getByRole('textbox', { name: 'Order ID' }).fill('ORD-9999');
  await expect(page.getByText('No trades match these filters')).toBeVisible();
  await filters.getByRole('button', { name: 'Clear' }).click();
  await expect(rows).toHaveCount(LISTINGS.length);

  // The Active tab lists only what is still moving.
  await page.getByRole('tab', { name: 'Active' }).click();
  await expect(rows).toHaveCount(2);
  await expect(rows.locator('.status-badge')).toHaveText([/^(pending|sent)$/i, /^(pending|sent)$/i]);
});

test('trade id and order id filters take the start of an id (the table shows ids shortened); over-long input is refused by the field', async ({
  page,
}) => {
  await openHistory(page);
  const filters = page.getByRole('group', { name: 'Trade filters' });
  const rows = tradeBodyRows(page);
  const declinedId = tradeIds.get('ORD-1002') ?? '';
  const declinedRow = rows.filter({ has: page.locator(`td[title="${declinedId}"]`) });
  const shown = ((await declinedRow.locator(`td[title="${declinedId}"]`).textContent()) ?? '').trim();
  expect(shown).toMatch(/^[0-9a-f]{8}…[0-9a-f]{2}$/);

  // The shortened id as the table shows it, its head, and its head in capitals: that trade.
  for (const typed of [shown, shown.slice(0, 8), shown.slice(0, 8).toUpperCase()]) {
    await filters.getByRole('textbox', { name: 'Trade ID' }).fill(typed);
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText(listing('ORD-1002').market_hash_name);
  }
  await filters.getByRole('button', { name: 'Clear' }).click();
  await expect(rows).toHaveCount(LISTINGS.length);

  // The start of an order id: every trade it begins.
  await filters.getByRole('textbox', { name: 'Order ID' }).fill('ORD-100');
  await expect(rows).toHaveCount(LISTINGS.length);
  await filters.getByRole('textbox', { name: 'Order ID' }).fill('ORD-1003');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(listing('ORD-1003').market_hash_name);
  await filters.getByRole('button', { name: 'Clear' }).click();

  // Over-long input: the fields keep what the engine accepts, and no raw validation error shows.
  for (const name of ['Order ID', 'Trade ID']) {
    const field = filters.getByRole('textbox', { name });
    await field.fill('x'.repeat(400));
    expect((await field.inputValue()).length).toBeLessThanOrEqual(128);
    await expect(page.getByText('No trades match these filters')).toBeVisible();
    await expect(page.getByText(/Too big|trades\.query/)).toHaveCount(0);
    await filters.getByRole('button', { name: 'Clear' }).click();
  }
  // The catalog's text filters too.
  await goTo(page, 'Catalog');
  for (const name of ['Search items', 'Sticker name']) {
    const field = page.getByRole(name === 'Search items' ? 'searchbox' : 'textbox', { name });
    await field.fill('y'.repeat(400));
    expect((await field.inputValue()).length).toBeLessThanOrEqual(256);
    await expect(page.getByText('No items match')).toBeVisible();
    await expect(page.getByText(/Too big|catalog\.query/)).toHaveCount(0);
    await field.fill('');
  }
  // A price beyond what the engine takes is marked on the field, not sent.
  const maxPrice = page.getByRole('textbox', { name: 'Maximum price' });
  await maxPrice.fill('99999999999');
  await expect(maxPrice).toHaveAttribute('aria-invalid', 'true');
  await expect(
    page.getByRole('alert').filter({ hasText: 'Maximum price: At most $10,000,000,000 — not applied.' }),
  ).toBeVisible();
  await expect(page.getByText(/Too big|catalog\.query/)).toHaveCount(0);
  // A minimum above the maximum would match nothing: said on the field, and left out of the query.
  const minPrice = page.getByRole('textbox', { name: 'Minimum price' });
  await maxPrice.fill('10');
  await minPrice.fill('50');
  await expect(minPrice).toHaveAttribute('aria-invalid', 'true');
  await expect(
    page
      .getByRole('alert')
      .filter({ hasText: 'Minimum price: Above the maximum price ($10.00): nothing would match — not applied.' }),
  ).toBeVisible();
  await expect(maxPrice).not.toHaveAttribute('aria-invalid', 'true');
  await minPrice.fill('');
  await maxPrice.fill('');
  // And the ledger's trade id filter.
  await goTo(page, 'Wallet');
  const ledgerTradeId = page.getByRole('group', { name: 'Ledger filters' }).getByRole('textbox', { name: 'Trade ID' });
  await ledgerTradeId.fill('z'.repeat(400));
  expect((await ledgerTradeId.inputValue()).length).toBeLessThanOrEqual(128);
  await expect(page.getByText(/Too big|wallet\.ledger/)).toHaveCount(0);
});

test('exports trades as CSV, all of them and filtered', async ({ page }, testInfo) => {
  await openHistory(page);
  const exportButton = page.getByRole('button', { name: 'Export CSV' });

  const all = await download(page, exportButton, testInfo);
  expect(all.name).toMatch(/^trades-.+\.csv$/);
  const [header, ...rows] = parseCsv(all.text);
  expect(header).toEqual(TRADES_HEADER);
  expect(rows).toHaveLength(LISTINGS.length);
  const col = (name: string) => TRADES_HEADER.indexOf(name);
  for (const l of LISTINGS) {
    const row = rows.find((r) => r[col('externalId')] === l.externalId);
    expect(row, l.externalId).toBeDefined();
    expect(row?.[col('tradeId')]).toBe(tradeIds.get(l.externalId));
    expect(row?.[col('status')]).toBe(l.status);
    expect(row?.[col('price')]).toBe((l.price / 100).toFixed(2));
    expect(row?.[col('itemId')]).toBe(String(l.itemId));
    expect(row?.[col('assetId')]).toBe(l.assetId);
    expect(row?.[col('market_hash_name')]).toBe(l.market_hash_name);
  }
  const cancelled = rows.find((r) => r[col('externalId')] === 'ORD-1002');
  expect(cancelled?.[col('errorCode')]).toBe('504');
  expect(cancelled?.[col('offerId')]).toMatch(/^\d{10}$/);

  // The export follows the filters on screen.
  await page
    .getByRole('group', { name: 'Trade filters' })
    .getByRole('button', { name: 'Completed', exact: true })
    .click();
  await expect(tradeBodyRows(page)).toHaveCount(1);
  const filtered = await download(page, exportButton, testInfo);
  const [, ...completed] = parseCsv(filtered.text);
  expect(completed.map((r) => r[col('externalId')])).toEqual(['ORD-1001']);
});

test('the ledger shows FREEZE then BUY COMPLETED for a completed trade, and exports as CSV', async ({
  page,
}, testInfo) => {
  const completed = listing('ORD-1001');
  const tradeId = tradeIds.get(completed.externalId) ?? '';
  await openApp(page, stack());
  await goTo(page, 'Wallet');

  // Balance cards agree with the sandbox.
  const balance = (await stack().api.get<{ balance: number; total_available: number }>('/Wallet/GetBalance')).body;
  await expect(page.locator('.card', { hasText: 'Balance' }).first()).toContainText(formatCents(balance.balance));
  await expect(page.locator('.card', { hasText: 'Total available' })).toContainText(
    formatCents(balance.total_available),
  );

  // The completed trade's ledger: its freeze, then the completion (newest first on screen).
  const ledger = page.getByRole('table', { name: 'Ledger' });
  await expect(ledger.locator('tbody tr').first()).toBeVisible({ timeout: 30_000 });
  await page.getByRole('group', { name: 'Ledger filters' }).getByRole('textbox', { name: 'Trade ID' }).fill(tradeId);
  const rows = ledger.locator('tbody tr');
  await expect(rows).toHaveCount(2);
  await expect(rows.locator('.type-tag')).toHaveText(['BUY COMPLETED', 'FREEZE']);
  const ids = (await rows.locator('td:last-child').allTextContents()).map(Number);
  expect(ids[1]).toBeLessThan(ids[0] ?? 0); // FREEZE came first
  await expect(rows.nth(1)).toContainText(`-${formatCents(completed.price)}`);
  await expect(rows.nth(1)).toContainText(completed.market_hash_name);
  await expect(rows.nth(0)).toContainText(completed.market_hash_name);
  await page.getByRole('group', { name: 'Ledger filters' }).getByRole('button', { name: 'Clear' }).click();

  // Every transaction, as the sandbox has them.
  const history = (
    await stack().api.get<{
      transactions: { id: number; type: string; amount: number; tradeId: string | null }[];
      total: number;
    }>('/Wallet/BalanceHistory?limit=500')
  ).body;
  await expect(rows).toHaveCount(history.transactions.length);
  const file = await download(page, page.getByRole('button', { name: 'Export CSV' }), testInfo);
  expect(file.name).toMatch(/^ledger-.+\.csv$/);
  const [header, ...lines] = parseCsv(file.text);
  expect(header).toEqual(LEDGER_HEADER);
  expect(lines).toHaveLength(history.transactions.length);
  const col = (name: string) => LEDGER_HEADER.indexOf(name);
  for (const t of history.transactions) {
    const line = lines.find((l) => l[col('id')] === String(t.id));
    expect(line, `ledger entry ${t.id}`).toBeDefined();
    expect(line?.[col('type')]).toBe(t.type);
    // Plain decimals a spreadsheet reads as numbers (negative ones too).
    expect(line?.[col('amount')]).toBe(`${t.amount < 0 ? '-' : ''}${(Math.abs(t.amount) / 100).toFixed(2)}`);
    expect(line?.[col('tradeId')]).toBe(t.tradeId ?? '');
  }
  const forTrade = lines
    .filter((l) => l[col('tradeId')] === tradeId)
    .sort((a, b) => Number(a[col('id')]) - Number(b[col('id')]));
  expect(forTrade.map((l) => l[col('type')])).toEqual(['FREEZE', 'BUY COMPLETED']);
});

test('at 1440 px the Trades and Wallet times show whole, and amounts and changes use one minus sign', async ({
  page,
}, testInfo) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await openHistory(page);
  /** The texts of cells cut short (an ellipsis instead of the end). */
  const cut = (cells: Locator) =>
    cells.evaluateAll((tds) => tds.filter((td) => td.scrollWidth > td.clientWidth).map((td) => td.textContent));
  const created = tradeBodyRows(page).locator('td:first-child');
  await expect(created.first()).toHaveText(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  expect(await cut(created)).toEqual([]);
  const prices = tradeBodyRows(page).locator('td:nth-child(3)');
  await expect(prices.filter({ hasText: '$99,999.99' })).toHaveCount(1);
  expect(await cut(prices)).toEqual([]);
  // The detail open narrows the table; the time and the money stay whole.
  await tradeBodyRows(page).first().click();
  await expect(page.getByRole('complementary', { name: 'Trade detail' })).toBeVisible();
  expect(await cut(created)).toEqual([]);
  expect(await cut(prices)).toEqual([]);
  await screenshot(page, testInfo, 'trades-1440');

  await goTo(page, 'Wallet');
  const ledgerTimes = page.getByRole('table', { name: 'Ledger' }).locator('tbody tr td:first-child');
  await expect(ledgerTimes.first()).toHaveText(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/, { timeout: 30_000 });
  expect(await cut(ledgerTimes)).toEqual([]);
  // Amount, before and after: six-figure balances and buys show whole.
  const money = page
    .getByRole('table', { name: 'Ledger' })
    .locator('tbody tr td:is(:nth-child(3), :nth-child(4), :nth-child(5))');
  await expect(money.filter({ hasText: '$100,500.00' }).first()).toBeVisible();
  expect(await cut(money)).toEqual([]);
  // Debits in the ledger and the chart's change over the range: "-$…" alike, never a second kind of minus.
  await expect(page.locator('.chart-foot')).toContainText(/-\$[\d,]+\.\d\d over the range/);
  await expect(page.getByRole('table', { name: 'Ledger' })).toContainText(/-\$[\d,]+\.\d\d/);
  expect(await page.locator('main').textContent()).not.toContain('\u2212');
  await screenshot(page, testInfo, 'wallet-1440');
});
