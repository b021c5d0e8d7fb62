// The balance runway's other states on the Wallet screen, against the real sandbox: nothing spent yet (it says so,
// never NaN or "0 h"), then a buy made elsewhere giving it a rate, then offline (the marketplace gone: the figures
// say they come from the cached balance). Reached from the keyboard; axe in both themes.
import type { Item } from '../src/shared/api';
import { goOffline, openApp, TRADE_URL } from './support/app';
import { expectAxeClean } from './support/axe';
import { expect, test, useStack } from './support/stack';

const stack = useStack({ items: 100, seed: 35, merchant: { balance: 100_000 } });

test.describe.configure({ timeout: 150_000 });

test('the runway with no recent spending, then with a rate, then offline; axe in both themes', async ({ page }) => {
  await openApp(page, stack());
  await page.keyboard.press('g');
  await page.keyboard.press('w');
  await expect(page.getByRole('heading', { level: 1, name: 'Wallet' })).toBeVisible();
  const panel = page.getByRole('region', { name: 'Balance runway' });
  const line = panel.getByTestId('runway-line');

  // Nothing bought yet: no rate, so no runway figure, and no NaN, Infinity or "0 h".
  await expect(line).toHaveText('No recent spending: nothing bought in the last day', { timeout: 30_000 });
  await expect(panel).toContainText('$1,000.00 available');
  await expect(panel).toContainText('spent $0.00 in the last hour, $0.00 in the last day');
  await expect(panel).not.toContainText(/NaN|Infinity|\b0 h\b/);
  await expectAxeClean(page, 'dark: runway, no recent spending', '.runway-panel');

  // A $250 buy by the merchant's back end: $750 left at $250 an hour is 3 h.
  const item = (
    await stack().admin.post<{ items: Item[] }>('/admin/items', { items: [{ itemId: 9_400_001, price: 25_000 }] })
  ).body.items[0] as Item;
  const bought = await stack().api.post('/Items/Buy', {
    itemId: item.itemId,
    assetId: item.assetId,
    price: item.price,
    tradeUrl: TRADE_URL,
  });
  expect(bought.status).toBe(200);
  await expect(line).toHaveText("About 3 h of buying left at the last hour's rate (3 d at the last day's)", {
    timeout: 30_000,
  });
  await expect(panel).not.toContainText('cached');

  // The light theme.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
  await page.getByRole('radio', { name: /light/i }).check();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await page.keyboard.press('g');
  await page.keyboard.press('w');
  await expect(line).toHaveText(/^About 3 h of buying left/);
  await expectAxeClean(page, 'light: runway with a rate', '.runway-panel');

  // A deposit made elsewhere (no frame tells of it: the desk's idle balance read, every 30 s, finds it) lengthens the
  // runway and shows whole among the recent top-ups (nothing cut off).
  const deposit = await stack().admin.post(`/admin/merchants/${stack().merchant.merchantId}/balance`, {
    type: 'CRYPTO DEPOSIT',
    amount: 5_947_453,
    note: 'USDT deposit',
  });
  expect(deposit.status).toBe(201);
  const amount = panel.getByRole('table', { name: /Top-ups and deposits/ }).locator('td', { hasText: '+$59,474.53' });
  await expect(amount).toBeVisible({ timeout: 60_000 });
  expect(await amount.evaluate((cell) => cell.scrollWidth <= cell.clientWidth), 'the amount fits its cell').toBe(true);
  const longer = "About 10 d of buying left at the last hour's rate (241 d at the last day's)";
  await expect(line).toHaveText(longer, { timeout: 30_000 });

  // Offline: the figures are the cached balance's, and the panel says so.
  await goOffline(page, stack());
  await expect(line).toHaveText(longer);
  await expect(panel).toContainText(/from the balance cached at/);
  await expectAxeClean(page, 'light: runway offline', '.runway-panel');
});
