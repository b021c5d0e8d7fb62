// Operations against the real sandbox, keyboard only: ten declines block a recipient by the sandbox's own rule; the
// desk's buy for them is refused `partner_blocked`, so Recipients shows the block's countdown ticking and the
// failures board a refusal column. Today's hour cell of the declines opens the trades behind it, the refusal cell
// lists its refusal. Offline, the board and the block are still read from the cache. axe in both themes.
import type { Page } from '@playwright/test';
import { dataRows, goOffline, openApp } from './support/app';
import { expectAxeClean } from './support/axe';
import { buyFor, goToOperations, tradeUrlOf } from './support/operations';
import { expect, test, useStack } from './support/stack';

const PARTNER = 6_363_636;
const ITEM = { itemId: 9_300_001, market_hash_name: 'P90 | Blocked Courier (Field-Tested)', price: 777 };

const stack = useStack({
  items: 100,
  seed: 35,
  merchant: { balance: 1_000_000 },
  async prepare({ admin }) {
    const listed = await admin.post('/admin/items', { items: [ITEM] });
    if (listed.status >= 300) throw new Error(`listing: ${listed.status} ${JSON.stringify(listed.body)}`);
  },
});

test.describe.configure({ timeout: 180_000 });

/** The desk's own buy of ITEM for PARTNER, from the keyboard: search, select, B, the trade URL, review, confirm. */
async function buyFromKeyboard(page: Page): Promise<void> {
  await page.keyboard.press('g');
  await page.keyboard.press('c');
  await expect(page.getByRole('heading', { level: 1, name: 'Catalog' })).toBeVisible();
  await page.keyboard.press('/');
  await page.keyboard.type('Blocked Courier');
  await expect(dataRows(page)).toHaveCount(1, { timeout: 15_000 });
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await expect(dataRows(page).first()).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('b');
  const dialog = page.getByRole('dialog', { name: 'Buy item' });
  await expect(dialog).toBeVisible();
  const url = dialog.getByLabel('Recipient trade URL');
  await url.focus();
  await page.keyboard.type(tradeUrlOf(PARTNER));
  await page.keyboard.press('Enter');
  const confirm = dialog.getByRole('button', { name: 'Confirm buy' });
  await expect(confirm).toBeEnabled({ timeout: 15_000 });
  await confirm.focus();
  await page.keyboard.press('Enter');
  await expect(dialog.getByRole('alert').filter({ hasText: 'partner_blocked' })).toBeVisible({ timeout: 15_000 });
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
}

test('a blocked recipient: its countdown ticks; today’s hour cell opens its trades, the refusal cell its refusals; offline', async ({
  page,
}) => {
  await openApp(page, stack());
  await goToOperations(page);
  const failures = page.getByRole('region', { name: 'Failures', exact: true });
  await expect(failures.getByText('No failures in this range')).toBeVisible({ timeout: 30_000 });

  // Ten offers declined within 24 hours: the sandbox blocks the recipient.
  const declined = await buyFor(stack(), PARTNER, 10, 9_300_101, 300, { send: true });
  for (const tradeId of declined) await stack().admin.transition(tradeId, { status: 'CANCELLED', errorCode: 504 });
  const recipients = page.getByRole('region', { name: 'Recipients' });
  const row = recipients
    .getByRole('table', { name: 'Recipients' })
    .getByRole('row', { name: new RegExp(`${PARTNER}`) });
  await expect(row).toContainText('10 / 10', { timeout: 15_000 });

  // The desk learns of the block from the marketplace's refusal of its own buy, with the block's end.
  await buyFromKeyboard(page);
  await goToOperations(page);
  await expect(row).toContainText('Blocked', { timeout: 15_000 });
  const countdown = row.getByText(/^until .+ \((\d+d )?\d{1,2}:\d{2}(:\d{2})? left\)$/);
  await expect(countdown).toBeVisible();
  const first = await countdown.textContent();
  // A day-long block: between 23 and 24 hours left, counting down each second.
  expect(first).toMatch(/\(23:\d{2}:\d{2} left\)$/);
  await expect(countdown).not.toHaveText(first ?? '', { timeout: 5_000 });
  await expectAxeClean(page, 'dark: Operations, a blocked recipient');

  // Today's hours: the declines and the refusal, one row for this hour.
  const now = new Date().toISOString();
  const hour = `${now.slice(11, 13)}:00`;
  const byHour = failures.getByRole('table', { name: /Today by hour/ });
  const declines = byHour.getByRole('button', { name: `10 trades: Declined (504), ${hour}, $30.00. Open the trades` });
  const refused = byHour.getByRole('button', {
    name: `1 refusals: Recipient blocked, ${hour}, $7.77. Open the refusals`,
  });
  await expect(declines).toBeVisible({ timeout: 15_000 });
  await expect(refused).toBeVisible();
  await expectAxeClean(page, 'dark: Failures, an hour with declines and a refusal');

  // Keyboard: from the declines (the second of the outcome codes) → across to the refusal's column (the sixth of the
  // buy refusals, after the five outcome codes); Enter lists them.
  await declines.focus();
  for (let i = 0; i < 9; i++) await page.keyboard.press('ArrowRight');
  await expect(refused).toBeFocused();
  await page.keyboard.press('Enter');
  const list = failures.getByRole('region', { name: `Refusals: Recipient blocked, ${now.slice(0, 10)} ${hour} UTC` });
  await expect(list.locator('tbody tr')).toHaveCount(1, { timeout: 15_000 });
  await expect(list.locator('tbody tr').first()).toContainText(ITEM.market_hash_name);
  await expect(list.locator('tbody tr').first()).toContainText(String(PARTNER));
  await expect(list.locator('tbody tr').first()).toContainText('$7.77');
  await expectAxeClean(page, 'dark: Failures, the refusals of an hour');

  // Home, then → to the declines; Enter opens Trades filtered to them in this hour.
  await refused.focus();
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  await expect(declines).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Trades' })).toBeVisible();
  await expect(
    page.getByRole('button', {
      name: `Remove the failures board filter: Outcome 504 · ${now.slice(0, 10)} ${hour} UTC`,
    }),
  ).toBeVisible();
  const trades = page.getByRole('table', { name: 'Trades' }).locator('tbody tr');
  await expect(trades).toHaveCount(10, { timeout: 15_000 });

  // The light theme.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
  await page.getByRole('radio', { name: /light/i }).check();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await goToOperations(page);
  await expect(declines).toBeVisible({ timeout: 15_000 });
  await expect(countdown).toBeVisible();
  await expectAxeClean(page, 'light: Operations, a blocked recipient and its failures');

  // Offline: the marketplace goes away; the board and the block are read from the cache.
  await goOffline(page, stack(), { reload: true });
  await expect(declines).toBeVisible();
  await expect(refused).toBeVisible();
  await expect(row).toContainText('Blocked');
  const offline = await countdown.textContent();
  await expect(countdown).not.toHaveText(offline ?? '', { timeout: 5_000 });
  await refused.focus();
  await page.keyboard.press('Enter');
  await expect(list.locator('tbody tr')).toHaveCount(1, { timeout: 15_000 });
  await expectAxeClean(page, 'light: Operations, offline');
});
