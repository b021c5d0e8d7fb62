// Alerts driven from the keyboard and the palette (acknowledge, re-arm), auto-buy within its
// caps; Settings (test connection, notifications per status, theme) surviving a reload; and
// the status bar: rate-limit meters and marketplace maintenance (the sync progress bar: catalog.spec).
import type { Page } from '@playwright/test';
import { formatCents } from '../src/shared/money';
import { tradeUrlFor } from '../test/support/sandboxHttp';
import { expectFeedLive, goTo, openApp, screenshot, statusBar } from './support/app';
import { expect, test, useStack } from './support/stack';

const OKAPIS = [
  { itemId: 3_000_001, assetId: '30000001', market_hash_name: 'Five-SeveN | Okapi Glow (Field-Tested)', price: 500 },
  { itemId: 3_000_002, assetId: '30000002', market_hash_name: 'Tec-9 | Okapi Glow (Field-Tested)', price: 600 },
];
const BARGAINS = [
  { itemId: 3_000_011, assetId: '30000011', market_hash_name: 'MP7 | Okapi Bargain (Field-Tested)', price: 700 },
  { itemId: 3_000_012, assetId: '30000012', market_hash_name: 'MP7 | Okapi Bargain (Minimal Wear)', price: 500 },
];

const stack = useStack({
  items: 6000,
  seed: 17,
  merchant: { balance: 100_000 },
  async prepare({ admin }) {
    await admin.post('/admin/items', { items: OKAPIS });
  },
});

test.describe.configure({ timeout: 90_000 });

const firingRows = (page: Page) => page.getByRole('table', { name: 'Alert firings' }).locator('tbody tr');
const unacknowledged = (page: Page) => statusBar(page).getByRole('button', { name: /unacknowledged alert/ });

async function newRule(page: Page, fill: (dialog: ReturnType<Page['getByRole']>) => Promise<void>): Promise<void> {
  await page.getByRole('button', { name: 'New rule' }).click();
  const dialog = page.getByRole('dialog', { name: 'New alert rule' });
  await fill(dialog);
  await dialog.getByRole('button', { name: 'Save rule' }).click();
  await expect(dialog).toBeHidden();
}

test('alerts: firings acknowledged and re-armed from the keyboard and the palette; auto-buy within its caps', async ({
  page,
}) => {
  await openApp(page, stack());
  await expectFeedLive(page);

  // A recipient for auto-buy.
  await goTo(page, 'Settings');
  const recipients = page.getByRole('region', { name: 'Saved recipients' });
  await recipients.getByLabel('Label').fill('Desk');
  await recipients.getByLabel('Trade URL').fill(tradeUrlFor(31));
  await recipients.getByRole('button', { name: 'Add recipient' }).click();
  await expect(recipients.getByRole('list', { name: 'Saved recipients' })).toContainText('Desk');

  await goTo(page, 'Alerts');
  await expect(page.getByRole('status').filter({ hasText: /Nothing has fired yet|Loading firings/ })).toBeVisible();
  await newRule(page, async (d) => {
    await d.getByLabel('Rule name').fill('Okapi watch');
    await d.getByLabel('Name contains').fill('Okapi Glow');
  });
  // Checked against the catalog at once: both fire.
  await expect(firingRows(page)).toHaveCount(2, { timeout: 20_000 });
  await expect(unacknowledged(page)).toContainText('2 unacknowledged');
  const rules = page.getByRole('table', { name: 'Alert rules' });
  await expect(rules.locator('tbody tr', { hasText: 'Okapi watch' })).toContainText('Alert only');

  // Keyboard: ↓ selects the newest firing, A acknowledges it.
  await page.getByRole('heading', { level: 1, name: 'Alerts' }).click();
  await page.keyboard.press('ArrowDown');
  await expect(firingRows(page).nth(0)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('a');
  await expect(firingRows(page).nth(0)).toContainText('acknowledged');
  await expect(unacknowledged(page)).toContainText('1 unacknowledged');

  // The palette acknowledges the next selected one.
  await page.keyboard.press('j');
  await expect(firingRows(page).nth(1)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Control+k');
  await page.keyboard.type('acknowledge the selected');
  await page.keyboard.press('Enter');
  await expect(firingRows(page).nth(1)).toContainText('acknowledged');
  await expect(unacknowledged(page)).toContainText('0 unacknowledged');

  // R re-arms the selected firing's rule: its firings are forgotten and the items fire again.
  await page.keyboard.press('r');
  await expect(page.getByRole('status').filter({ hasText: 'Rule re-armed' })).toBeVisible();
  await expect(unacknowledged(page)).toContainText('2 unacknowledged', { timeout: 20_000 });
  await expect(firingRows(page).filter({ hasText: 'acknowledged' }).filter({ hasNotText: 'Acknowledge' })).toHaveCount(
    0,
  );

  // Auto-buy with a $10 total cap and an $8 daily cap.
  await newRule(page, async (d) => {
    await d.getByLabel('Rule name').fill('Okapi auto');
    await d.getByLabel('Name contains').fill('Okapi Bargain');
    await d.getByRole('checkbox', { name: 'Buy matching items automatically' }).check();
    await d.getByLabel('Max price ($)').fill('10');
    await d
      .getByRole('combobox', { name: 'Recipient' })
      .selectOption({ label: `Desk — ${tradeUrlFor(31).replace('AbCd1234', 'Ab******')}` });
    await d.getByLabel('Total spend cap ($)').fill('10');
    await d.getByLabel('Daily cap ($)').fill('8');
  });
  const autoRule = rules.locator('tbody tr', { hasText: 'Okapi auto' });
  await expect(autoRule).toContainText(`${formatCents(0)} / ${formatCents(1000)}`);
  await expect(autoRule).toContainText(`at most ${formatCents(800)} a day`);
  // A $7 listing is bought at once; a $5 one would pass the caps ($10 in all, checked first, and $8 a day): skipped,
  // on the rule's one line for the day.
  await stack().admin.post('/admin/items', { items: [BARGAINS[0]] });
  await expect(firingRows(page).filter({ hasText: BARGAINS[0]?.market_hash_name ?? '' })).toContainText(
    'bought · open trade',
    { timeout: 20_000 },
  );
  await expect(autoRule).toContainText(`${formatCents(700)} / ${formatCents(1000)}`);
  await stack().admin.post('/admin/items', { items: [BARGAINS[1]] });
  await expect(
    page
      .getByRole('list', { name: 'Auto-buy skips by rule and day' })
      .getByRole('listitem')
      .filter({ hasText: 'Okapi auto' }),
  ).toContainText('1 match not bought: the rule would exceed its spend cap', { timeout: 20_000 });
  await expect(firingRows(page).filter({ hasText: BARGAINS[1]?.market_hash_name ?? '' })).toHaveCount(0);
  await expect(autoRule).toContainText(`${formatCents(700)} / ${formatCents(1000)}`);
  const trades = (await stack().api.get<{ trades: { itemId: number; price: number }[] }>('/Trades/History')).body
    .trades;
  expect(trades.map((t) => t.itemId)).toEqual([BARGAINS[0]?.itemId]);
});

test('settings: test connection, notifications per status and the theme, kept across a reload', async ({ page }) => {
  await openApp(page, stack(), '#/settings');
  const account = page.getByRole('form', { name: 'Marketplace account' });
  await expect(account.getByLabel('Merchant ID')).toHaveValue(stack().merchant.merchantId);
  await expect(page.getByRole('switch', { name: 'Demo sandbox' })).not.toBeChecked();

  // Test connection with the real key, then with a wrong one.
  await account.getByLabel('API key').fill(stack().merchant.apiKey);
  await account.getByRole('button', { name: 'Test connection' }).click();
  const balance = (await stack().api.get<{ total_available: number }>('/Wallet/GetBalance')).body.total_available;
  // Said once: no "Balance …, available …" after the same figure (this merchant has no credit).
  await expect(account.getByRole('status')).toHaveText(
    `Connection works. Connected as ${stack().merchant.merchantId}: ${formatCents(balance)} available.`,
  );
  await account.getByLabel('API key').fill('definitely-not-the-key');
  await account.getByRole('button', { name: 'Test connection' }).click();
  await expect(account.getByRole('alert')).toContainText('Connection failed.');
  await account.getByLabel('API key').fill('');

  // Notifications per status: Pending on, Sent off.
  const statuses = page.getByRole('group', { name: 'Notify on trade status' });
  await statuses.getByRole('checkbox', { name: 'Pending' }).check();
  await statuses.getByRole('checkbox', { name: 'Sent' }).uncheck();
  // Theme: light.
  await page.getByRole('radiogroup', { name: 'Theme' }).getByText('Light').click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');

  // Kept by the engine: a fresh page shows the same.
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
  await expect(statuses.getByRole('checkbox', { name: 'Pending' })).toBeChecked();
  await expect(statuses.getByRole('checkbox', { name: 'Sent' })).not.toBeChecked();
  await expect(statuses.getByRole('checkbox', { name: 'Completed' })).toBeChecked();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await expect(page.getByRole('radiogroup', { name: 'Theme' }).getByRole('radio', { name: 'Light' })).toBeChecked();
  await page.getByRole('radiogroup', { name: 'Theme' }).getByText('Dark').click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
});

test('status bar: rate-limit meters and maintenance', async ({ page }, testInfo) => {
  await openApp(page, stack());
  await expectFeedLive(page);
  const meters = statusBar(page).getByLabel('Rate-limit headroom');
  await expect(meters).toContainText(/API\s*\d+\/\d+/);
  const catalogLeft = async () => Number(/Catalog\s*(\d+)\/\d+/.exec((await meters.textContent()) ?? '')?.[1] ?? 'NaN');
  const before = await catalogLeft();

  await page.getByRole('button', { name: 'Refresh', exact: true }).click();
  // The refresh spent one catalog request: the meter shows it.
  await expect.poll(catalogLeft).toBeLessThan(before);

  // Maintenance: the next call answers 503; the status bar and a banner say so.
  await stack().admin.post('/admin/maintenance', { on: true });
  try {
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    await expect(statusBar(page).getByText('MAINTENANCE', { exact: true })).toBeVisible({ timeout: 20_000 });
    await expect(statusBar(page).locator('.conn-state strong')).toHaveText('Maintenance');
    const banner = page.getByRole('status').filter({ hasText: 'Marketplace maintenance' });
    await expect(banner).toContainText('Buying is unavailable until it ends');
    // A refresh now would be refused: it is not started, and the toast says why.
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    await expect(page.locator('.toast').filter({ hasText: 'Catalog refresh not started' })).toContainText(
      'under maintenance',
    );
    // One countdown to the next try (the feed's attempt, which ends the API's back-off), in the status bar and the
    // banner alike; also once the feed itself was closed for maintenance and waits for its next attempt.
    for (const feedClosed of [false, true]) {
      if (feedClosed) await expect(statusBar(page)).toContainText('Server under maintenance', { timeout: 20_000 });
      await expect(statusBar(page)).toContainText(/retry in \d+:\d\d/);
      await expect(statusBar(page).locator('time')).toHaveCount(1);
      await expect(statusBar(page).getByText(/Backing off/)).toHaveCount(0);
      await expect(banner.locator('time')).toHaveCount(2); // the cache's age, and the one countdown
      await expect(banner).toContainText(/next attempt in \d+:\d\d/);
    }
    await screenshot(page, testInfo, 'maintenance-one-countdown');
  } finally {
    await stack().admin.post('/admin/maintenance', { on: false });
  }
});
