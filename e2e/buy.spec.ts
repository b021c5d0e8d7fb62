// Buying through the UI against the sandbox: by id with the trade followed live to
// COMPLETED, a price_changed re-buy, buy by name with a max price, and a refused buy
// for lack of funds.
import type { Page } from '@playwright/test';
import { formatCents } from '../src/shared/money';
import { merchantApi } from '../test/support/sandboxHttp';
import { dataRows, goTo, openApp, screenshot, statusBar, TRADE_URL } from './support/app';
import { expect, test, useStack } from './support/stack';

const TARGET = { itemId: 9_000_001, market_hash_name: 'AK-47 | Tangerine Lattice (Field-Tested)', price: 1234 };
const MOVER = { itemId: 9_000_002, market_hash_name: 'M4A1-S | Zephyr Drift (Minimal Wear)', price: 2000 };
const BARGAINS = [
  { itemId: 9_000_013, market_hash_name: 'Glock-18 | Quillfeather (Field-Tested)', price: 600 },
  { itemId: 9_000_011, market_hash_name: 'Glock-18 | Quillfeather (Field-Tested)', price: 300 },
  { itemId: 9_000_012, market_hash_name: 'Glock-18 | Quillfeather (Field-Tested)', price: 450 },
];
const PRICEY = { itemId: 9_000_021, market_hash_name: 'AWP | Gilded Monsoon (Factory New)', price: 500_000 };
const KNIFE = {
  itemId: 9_000_031,
  market_hash_name: '★ StatTrak™ Karambit | Lore Drift (Factory New)',
  price: 900,
  phase: null,
};
const SPARE = { itemId: 9_000_041, market_hash_name: 'P250 | Outage Probe (Field-Tested)', price: 250 };
/** On sale in Phase 1 only: a buy by name in Phase 2 finds none. */
const PHASED = {
  itemId: 9_000_051,
  market_hash_name: '★ Bayonet | Doppler Quarry (Factory New)',
  phase: 'Phase 1',
  price: 800,
};
/** Bought before the app starts with the order id USED-ORDER-1. */
const USED = {
  itemId: 9_000_061,
  assetId: '90000061',
  market_hash_name: 'MAC-10 | Ledger Mark (Field-Tested)',
  price: 150,
};
const FRESH = { itemId: 9_000_062, market_hash_name: 'MAC-10 | Ledger Fresh (Field-Tested)', price: 160 };

const stack = useStack({
  items: 3000,
  seed: 5,
  // The last test stops the marketplace under the app and starts it again in place.
  restartable: true,
  // $100: enough for the cheap buys below, far from the $5,000 AWP.
  merchant: { balance: 10_000 },
  async prepare({ sandbox, admin, merchant }) {
    const answer = await admin.post('/admin/items', {
      items: [TARGET, MOVER, ...BARGAINS, PRICEY, KNIFE, SPARE, PHASED, USED, FRESH],
    });
    if (answer.status !== 200 && answer.status !== 201)
      throw new Error(`listing test items: ${answer.status} ${JSON.stringify(answer.body)}`);
    const used = await merchantApi(sandbox, merchant).post('/Items/Buy', {
      itemId: USED.itemId,
      assetId: USED.assetId,
      price: USED.price,
      tradeUrl: TRADE_URL,
      externalId: 'USED-ORDER-1',
    });
    if (used.status !== 200) throw new Error(`buy: ${used.status} ${JSON.stringify(used.body)}`);
  },
});

test.describe.configure({ timeout: 90_000 });

/** Finds an item by a word of its name, opens its detail and the "Buy item" dialog. */
async function openBuyDialog(page: Page, word: string, name: string) {
  await page.getByRole('searchbox', { name: 'Search items' }).fill(word);
  const row = dataRows(page).filter({ hasText: name }).first();
  await row.click();
  const detail = page.getByRole('complementary', { name: 'Item detail' });
  await expect(detail.getByRole('heading', { level: 2 })).toHaveText(name);
  await detail.getByRole('button', { name: 'Buy', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Buy item' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText(name);
  return dialog;
}

/** The trade id of the trade the app opened after a successful buy (#/trades/<id>). */
async function openedTradeId(page: Page): Promise<string> {
  await expect(page).toHaveURL(/#\/trades\/[0-9a-f-]{36}$/);
  return decodeURIComponent(new URL(page.url()).hash.split('/')[2] ?? '');
}

/** Whether two element boxes share any area. */
function overlap(a: { x: number; y: number; width: number; height: number } | null, b: typeof a): boolean {
  if (!a || !b) throw new Error('an element has no box');
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

function tradeRow(page: Page, tradeId: string) {
  return page
    .getByRole('table', { name: 'Trades' })
    .getByRole('row')
    .filter({ has: page.locator(`td[title="${tradeId}"]`) });
}

test('buys by id and follows the trade live from PENDING to COMPLETED', async ({ page }) => {
  const { admin } = stack();
  await openApp(page, stack());
  const dialog = await openBuyDialog(page, 'Tangerine', TARGET.market_hash_name);
  await expect(dialog.locator('.buy-item-price')).toHaveText(formatCents(TARGET.price));

  await dialog.getByLabel('Recipient trade URL').fill(TRADE_URL);
  await dialog.getByRole('button', { name: 'Review buy' }).click();
  await expect(dialog.getByText('You pay')).toBeVisible();
  await dialog.getByRole('button', { name: 'Confirm buy' }).click();

  // Success: the dialog closes and the new trade opens in Trades.
  await expect(dialog).toBeHidden();
  const tradeId = await openedTradeId(page);
  await expect(page.getByRole('heading', { level: 1, name: 'Trades' })).toBeVisible();
  const row = tradeRow(page, tradeId);
  await expect(row).toContainText(TARGET.market_hash_name);
  await expect(row).toContainText(formatCents(TARGET.price));
  await expect(row.locator('.status-badge')).toHaveText(/^pending$/i);
  const detail = page.getByRole('complementary', { name: 'Trade detail' });
  await expect(detail.locator('.status-badge')).toHaveText(/^pending$/i);
  // The buy's toast says so beside the new trade's detail, never over it.
  const toast = page.locator('.toast').filter({ hasText: `Bought ${TARGET.market_hash_name}` });
  await expect(toast).toBeVisible();
  expect(overlap(await toast.boundingBox(), await detail.boundingBox())).toBe(false);

  // The sandbox moves it; the UI follows over the feed, no reload.
  await admin.transition(tradeId, { status: 'SENT' });
  await expect(row.locator('.status-badge')).toHaveText(/^sent$/i, { timeout: 15_000 });
  await expect(detail.locator('.status-badge')).toHaveText(/^sent$/i);
  await expect(detail.getByText(/^\d{10}$/)).toBeVisible(); // the offer id assigned on SENT

  // A finished trade leaves the Active tab: follow it on History, where it turns COMPLETED live.
  await page.getByRole('tab', { name: 'History' }).click();
  await expect(page.getByRole('tab', { name: 'History' })).toHaveAttribute('aria-selected', 'true');
  await expect(row.locator('.status-badge')).toHaveText(/^sent$/i);
  await admin.transition(tradeId, { status: 'COMPLETED' });
  await expect(row.locator('.status-badge')).toHaveText(/^completed$/i, { timeout: 15_000 });
  await expect(detail.locator('.status-badge')).toHaveText(/^completed$/i);
  await expect(detail.getByRole('region', { name: 'Status timeline' })).toContainText('Completed');
  await expect(detail.getByRole('region', { name: 'Status timeline' })).toContainText('Sent');
  await expect(detail.getByRole('region', { name: 'Status timeline' })).toContainText('Pending');
});

test('re-buys at the new price after price_changed', async ({ page }) => {
  const { admin } = stack();
  const newPrice = 2150;
  await openApp(page, stack());
  const dialog = await openBuyDialog(page, 'Zephyr', MOVER.market_hash_name);
  await expect(dialog.locator('.buy-item-price')).toHaveText(formatCents(MOVER.price));
  await dialog.getByLabel('Recipient trade URL').fill(TRADE_URL);
  await dialog.getByRole('button', { name: 'Review buy' }).click();
  await expect(dialog.getByRole('button', { name: 'Confirm buy' })).toBeEnabled();

  // The price moves on the marketplace while the dialog is open.
  const patched = await admin.patch(`/admin/items/${MOVER.itemId}`, { price: newPrice });
  expect(patched.status).toBe(200);
  await dialog.getByRole('button', { name: 'Confirm buy' }).click();

  const failure = dialog.getByRole('alert').filter({ hasText: 'The price changed' });
  await expect(failure).toBeVisible();
  await expect(failure.locator('.failure-code')).toHaveText('price_changed');
  await expect(failure).toContainText(
    `The price changed to ${formatCents(newPrice)} (you confirmed ${formatCents(MOVER.price)})`,
  );
  const rebuy = dialog.getByRole('button', { name: `Buy at ${formatCents(newPrice)}` });
  await expect(rebuy).toBeVisible();
  // Keyboard-first: the one-click re-buy has the focus, so Enter buys at the new price.
  await expect(rebuy).toBeFocused();
  await page.keyboard.press('Enter');

  await expect(dialog).toBeHidden();
  const tradeId = await openedTradeId(page);
  const row = tradeRow(page, tradeId);
  await expect(row).toContainText(MOVER.market_hash_name);
  await expect(row).toContainText(formatCents(newPrice));
  const trade = await stack().api.get<{ trades: { price: number; itemId: number }[] }>(
    `/Trades/History?tradeId=${tradeId}`,
  );
  expect(trade.body.trades[0]).toMatchObject({ price: newPrice, itemId: MOVER.itemId });
});

test('buys the cheapest listing by name under a max price, and refuses a max price below every listing', async ({
  page,
}) => {
  await openApp(page, stack());
  const name = BARGAINS[0]?.market_hash_name ?? '';

  // Max $5.00: the $3.00 listing is the cheapest match.
  await page.getByRole('button', { name: 'Purchase by name' }).click();
  let dialog = page.getByRole('dialog', { name: 'Buy by name' });
  await expect(dialog).toBeVisible();
  await dialog.getByLabel('Market hash name').fill(name);
  await dialog.getByLabel('Max price ($)').fill('5.00');
  await dialog.getByLabel('Recipient trade URL').fill(TRADE_URL);
  await dialog.getByRole('button', { name: 'Review buy' }).click();
  await expect(dialog.getByText('You pay at most')).toBeVisible();
  await expect(dialog.locator('.confirm-facts')).toContainText('$5.00');
  // The same pre-checks as a buy by id, against the listing it will most likely get.
  await expect(dialog.locator('.candidate')).toContainText(
    `Cheapest match in the local catalog: ${formatCents(300)} (item 9000011)`,
  );
  await expect(dialog.getByRole('list', { name: 'Warnings' })).toHaveCount(0);
  await dialog.getByRole('button', { name: 'Confirm buy' }).click();
  await expect(dialog).toBeHidden();
  const tradeId = await openedTradeId(page);
  await expect(tradeRow(page, tradeId)).toContainText('$3.00');
  const bought = await stack().api.get<{ trades: { price: number; itemId: number }[] }>(
    `/Trades/History?tradeId=${tradeId}`,
  );
  expect(bought.body.trades[0]).toMatchObject({ price: 300, itemId: 9_000_011 });

  // Max $2.00: now the cheapest is $4.50, above it → price_too_high, nothing bought.
  await goTo(page, 'Catalog');
  await page.getByRole('button', { name: 'Purchase by name' }).click();
  dialog = page.getByRole('dialog', { name: 'Buy by name' });
  await dialog.getByLabel('Market hash name').fill(name);
  await dialog.getByLabel('Max price ($)').fill('2.00');
  await dialog.getByLabel('Recipient trade URL').fill(TRADE_URL);
  await dialog.getByRole('button', { name: 'Review buy' }).click();
  await expect(dialog.getByRole('list', { name: 'Warnings' })).toContainText(
    'The cheapest listing of this name in the local catalog costs $4.50, above $2.00',
  );
  await dialog.getByRole('button', { name: 'Confirm buy' }).click();
  const failure = dialog.getByRole('alert').filter({ hasText: 'Every match costs more than your maximum' });
  await expect(failure).toBeVisible();
  await expect(failure.locator('.failure-code')).toHaveText('price_too_high');
  await expect(failure).toContainText('Item price 450 ($4.50) exceeds maxPrice 200 ($2.00)');
  await expect(failure).toContainText('Raise the max price');
  const history = await stack().api.get<{ trades: unknown[] }>('/Trades/History');
  expect(history.body.trades.filter((t) => (t as { market_hash_name: string }).market_hash_name === name)).toHaveLength(
    1,
  );
});

test('review flags an order id already used, and a buy by name in a phase with no listing blames the phase, not the name', async ({
  page,
}) => {
  await openApp(page, stack());

  // By id, with the order id of a trade the app holds: said at review, before the marketplace refuses it.
  const dialog = await openBuyDialog(page, 'Ledger Fresh', FRESH.market_hash_name);
  await dialog.getByLabel('Recipient trade URL').fill(TRADE_URL);
  await dialog.getByLabel('Order ID (optional)').fill('USED-ORDER-1');
  await dialog.getByRole('button', { name: 'Review buy' }).click();
  await expect(dialog.getByRole('list', { name: 'Warnings' })).toContainText(
    `Order id USED-ORDER-1 is already used by trade`,
  );
  await expect(dialog.getByRole('list', { name: 'Warnings' })).toContainText(
    `(${USED.market_hash_name}, ${formatCents(USED.price)}, pending)`,
  );
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();

  // By name in Phase 2 while only Phase 1 is on sale: the review and the refusal both name the phase.
  await page.getByRole('button', { name: 'Purchase by name' }).click();
  const byName = page.getByRole('dialog', { name: 'Buy by name' });
  await byName.getByLabel('Market hash name').fill(PHASED.market_hash_name);
  await byName.getByLabel('Phase').selectOption('Phase 2');
  await byName.getByLabel('Max price ($)').fill('20.00');
  await byName.getByLabel('Recipient trade URL').fill(TRADE_URL);
  await byName.getByRole('button', { name: 'Review buy' }).click();
  const warnings = byName.getByRole('list', { name: 'Warnings' });
  await expect(warnings).toContainText(
    'No listing of this name in Phase 2 in the local catalog; it is on sale in Phase 1: choose one of those, or Any phase.',
  );
  await expect(warnings).not.toContainText('check the name');
  await byName.getByRole('button', { name: 'Confirm buy' }).click();
  const failure = byName.getByRole('alert').filter({ hasText: 'No listing of this name in Phase 2 is on sale.' });
  await expect(failure).toBeVisible();
  await expect(failure.locator('.failure-code')).toHaveText('item_unavailable');
  await expect(failure).toContainText('Choose another phase, or Any phase');
  await expect(failure).not.toContainText('Check the name');
});

test('refuses a buy above the balance and says what is available', async ({ page }) => {
  await openApp(page, stack());
  const balance = await stack().api.get<{ total_available: number }>('/Wallet/GetBalance');
  const available = balance.body.total_available;
  expect(available).toBeLessThan(PRICEY.price);

  const dialog = await openBuyDialog(page, 'Monsoon', PRICEY.market_hash_name);
  await dialog.getByLabel('Recipient trade URL').fill(TRADE_URL);
  await dialog.getByRole('button', { name: 'Review buy' }).click();
  // The pre-check already warns…
  await expect(dialog.getByRole('list', { name: 'Warnings' })).toContainText(
    `Only ${formatCents(available)} available`,
  );
  await dialog.getByRole('button', { name: 'Confirm buy' }).click();
  // …and the refusal says plainly what is available and what is needed.
  const failure = dialog.getByRole('alert').filter({ hasText: 'Not enough balance' });
  await expect(failure).toBeVisible();
  await expect(failure.locator('.failure-code')).toHaveText('insufficient_balance');
  await expect(failure).toContainText(
    `Not enough funds: ${formatCents(available)} available, ${formatCents(PRICEY.price)} needed.`,
  );
  await expect(failure.locator('.failure-fact')).toHaveText(`Available to spend: ${formatCents(available)}`);
  await expect(dialog.getByRole('button', { name: /^Buy at/ })).toHaveCount(0);
  const after = await stack().api.get<{ total_available: number }>('/Wallet/GetBalance');
  expect(after.body.total_available).toBe(available);

  // Buy by name warns the same way before anything is sent.
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await page.getByRole('button', { name: 'Purchase by name' }).click();
  const byName = page.getByRole('dialog', { name: 'Buy by name' });
  await byName.getByLabel('Market hash name').fill(PRICEY.market_hash_name);
  await byName.getByLabel('Max price ($)').fill('6000');
  await byName.getByLabel('Recipient trade URL').fill(TRADE_URL);
  await byName.getByRole('button', { name: 'Review buy' }).click();
  await expect(byName.getByRole('list', { name: 'Warnings' })).toContainText(
    `Only ${formatCents(available)} available for a ${formatCents(PRICEY.price)} buy`,
  );
  await expect(byName.getByRole('button', { name: 'Confirm buy' })).toBeFocused();
});

test('buy by name suggests cached names as you type (without ★/™, any case), opens pre-filled from the row and the palette, and buys the name meant', async ({
  page,
}, testInfo) => {
  await openApp(page, stack());
  await expect(dataRows(page).first()).toBeVisible({ timeout: 30_000 }); // the cache holds the catalog
  await page.getByRole('button', { name: 'Purchase by name' }).click();
  const dialog = page.getByRole('dialog', { name: 'Buy by name' });
  const name = dialog.getByRole('combobox', { name: 'Market hash name' });
  await name.fill('karambit lore');
  const suggestions = dialog.getByRole('listbox', { name: 'Names on sale' });
  await expect(suggestions.getByRole('option')).toHaveCount(1);
  await expect(suggestions.getByRole('option').first()).toContainText(KNIFE.market_hash_name);
  await expect(suggestions.getByRole('option').first()).toContainText(formatCents(KNIFE.price));
  await screenshot(page, testInfo, 'buy-by-name-suggestions');
  // Keyboard: down to the suggestion, Enter takes it (and does not submit the form).
  await page.keyboard.press('ArrowDown');
  await expect(name).toHaveAttribute('aria-activedescendant', /.+/);
  await page.keyboard.press('Enter');
  await expect(name).toHaveValue(KNIFE.market_hash_name);
  await expect(suggestions).toBeHidden();
  await expect(dialog.getByText('You pay at most')).toHaveCount(0);

  // Typed without ★ and ™, lower case: the review names the listing it means, the pre-check finds it.
  await name.fill('stattrak karambit | lore drift (factory new)');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeVisible();
  await dialog.getByLabel('Max price ($)').fill('9.00');
  await dialog.getByLabel('Recipient trade URL').fill(TRADE_URL);
  await dialog.getByRole('button', { name: 'Review buy' }).click();
  await expect(dialog.locator('.confirm-facts')).toContainText(KNIFE.market_hash_name);
  await expect(dialog.locator('.candidate')).toContainText(
    `Cheapest match in the local catalog: ${formatCents(KNIFE.price)} (item ${KNIFE.itemId})`,
  );
  await expect(dialog.getByRole('list', { name: 'Warnings' })).toHaveCount(0);
  await dialog.getByRole('button', { name: 'Confirm buy' }).click();
  await expect(dialog).toBeHidden();
  const tradeId = await openedTradeId(page);
  await expect(tradeRow(page, tradeId)).toContainText(KNIFE.market_hash_name);

  // A name no listing has: the pre-check says so (not a price_too_high guess).
  await goTo(page, 'Catalog');
  await page.getByRole('button', { name: 'Purchase by name' }).click();
  await dialog.getByRole('combobox', { name: 'Market hash name' }).fill('Karambit | No Such Skin (Factory New)');
  await dialog.getByLabel('Max price ($)').fill('9.00');
  await dialog.getByLabel('Recipient trade URL').fill(TRADE_URL);
  await dialog.getByRole('button', { name: 'Review buy' }).click();
  const warnings = dialog.getByRole('list', { name: 'Warnings' });
  await expect(warnings).toContainText('No listing named Karambit | No Such Skin (Factory New) in the local catalog');
  await expect(warnings).not.toContainText('price_too_high');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();

  // Pre-filled from the selected row (N) and from the palette's "Buy by name".
  await page.getByRole('searchbox', { name: 'Search items' }).fill('Monsoon');
  const row = dataRows(page).filter({ hasText: PRICEY.market_hash_name }).first();
  await row.click();
  await page.keyboard.press('Escape'); // close the detail; the row stays selected
  await catalogGridFocus(page);
  await page.keyboard.press('n');
  await expect(dialog.getByRole('combobox', { name: 'Market hash name' })).toHaveValue(PRICEY.market_hash_name);
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await page.keyboard.press('Control+k');
  const palette = page.getByRole('dialog', { name: 'Command palette' });
  await expect(palette).toBeVisible();
  await page.keyboard.type('Buy by name');
  await page.keyboard.press('Enter');
  await expect(dialog.getByRole('combobox', { name: 'Market hash name' })).toHaveValue(PRICEY.market_hash_name);
  // Closing the dialog gives the focus back to where it was opened from (the catalog row), not to <body>.
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect.poll(() => page.evaluate(() => document.activeElement?.tagName ?? 'none')).not.toBe('BODY');
  await expect(row).toHaveAttribute('aria-selected', 'true');
});

test('the buy dialog says up front that the marketplace is in maintenance, and Review waits for it to end', async ({
  page,
}) => {
  test.setTimeout(150_000);
  const { admin } = stack();
  await openApp(page, stack());
  const dialog = await openBuyDialog(page, 'Outage', SPARE.market_hash_name);
  await dialog.getByLabel('Recipient trade URL').fill(TRADE_URL);
  const review = dialog.getByRole('button', { name: 'Review buy' });
  await expect(review).toBeEnabled();
  await admin.post('/admin/maintenance', { on: true });
  try {
    await expect(dialog.getByRole('status')).toContainText('under maintenance', { timeout: 30_000 });
    await expect(review).toBeDisabled();
  } finally {
    await admin.post('/admin/maintenance', { on: false });
  }
  // The sandbox's 503 says Retry-After: 60 and the desk waits that long from the last one, then catches up.
  await expect(review).toBeEnabled({ timeout: 90_000 });
  await expect(dialog.getByRole('status')).toHaveCount(0);
});

test('a buy that cannot reach the marketplace says it was not sent, and the form waits for the connection', async ({
  page,
}) => {
  test.setTimeout(150_000);
  await openApp(page, stack());
  const dialog = await openBuyDialog(page, 'Outage', SPARE.market_hash_name);
  await dialog.getByLabel('Recipient trade URL').fill(TRADE_URL);
  await dialog.getByRole('button', { name: 'Review buy' }).click();
  await expect(dialog.getByRole('button', { name: 'Confirm buy' })).toBeEnabled();
  await stack().stopSandbox();
  try {
    await dialog.getByRole('button', { name: 'Confirm buy' }).click();
    const failure = dialog.getByRole('alert').filter({ hasText: 'Not sent' });
    await expect(failure).toBeVisible({ timeout: 30_000 });
    await expect(failure.locator('.failure-code')).toHaveText('not_sent');
    await expect(failure).toContainText('nothing was sent');
    await expect(failure).not.toContainText('ECONNREFUSED');
    await expect(failure).toContainText('no trade was made');
    // Once the app knows it is offline, the form says so and Review waits.
    await expect(statusBar(page).locator('.conn-state strong')).toHaveText('Offline', { timeout: 60_000 });
    await dialog.getByRole('button', { name: 'Edit' }).click();
    await expect(dialog.getByRole('status')).toContainText('cannot be reached');
    await expect(dialog.getByRole('button', { name: 'Review buy' })).toBeDisabled();
  } finally {
    await stack().restartSandbox();
  }
  await expect(dialog.getByRole('button', { name: 'Review buy' })).toBeEnabled({ timeout: 60_000 });
});

async function catalogGridFocus(page: Page) {
  await page.getByRole('grid', { name: 'Catalog' }).focus();
}
