// The balance runway on the Wallet screen: the line beside the balance, the recent top-ups and deposits, and the
// threshold set from the keyboard (a bad one refused, a good one raising the notification once); axe in both themes.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { merchantApi } from '../test/support/sandboxHttp';
import { goTo, openApp, screenshot, TRADE_URL } from './support/app';
import { expect, test, useStack } from './support/stack';

const PRICE = 10_000;

const stack = useStack({
  items: 200,
  seed: 35,
  // $1,000, then a $500 deposit; three $100 buys: $1,200 left at $300 an hour: 4 h (4 d at the last day's rate).
  merchant: { balance: 100_000 },
  async prepare({ sandbox, admin, merchant }) {
    const items = [0, 1, 2].map((i) => ({ itemId: 8_350_000 + i, assetId: `835000${i}`, price: PRICE }));
    const listed = await admin.post('/admin/items', { items });
    if (listed.status >= 300) throw new Error(`listing: ${listed.status} ${JSON.stringify(listed.body)}`);
    const deposit = await admin.post(`/admin/merchants/${merchant.merchantId}/balance`, {
      type: 'CRYPTO DEPOSIT',
      amount: 50_000,
      note: 'USDT deposit',
    });
    if (deposit.status !== 201) throw new Error(`deposit: ${deposit.status}`);
    const api = merchantApi(sandbox, merchant);
    for (const item of items) {
      const bought = await api.post('/Items/Buy', { ...item, tradeUrl: TRADE_URL });
      if (bought.status !== 200) throw new Error(`buy: ${bought.status} ${JSON.stringify(bought.body)}`);
    }
  },
});

test.describe.configure({ timeout: 120_000 });

async function axeFindings(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .include('.runway-panel')
    .analyze();
  return result.violations.flatMap((v) => v.nodes.map((node) => `${v.id}: ${node.target.join(' ')}`));
}

test('the runway beside the balance, recent top-ups, the threshold from the keyboard, axe in both themes', async ({
  page,
}, testInfo) => {
  await openApp(page, stack());
  // The keyboard path to the Wallet: G then W.
  await page.keyboard.press('g');
  await page.keyboard.press('w');
  await expect(page.getByRole('heading', { level: 1, name: 'Wallet' })).toBeVisible();

  const panel = page.getByRole('region', { name: 'Balance runway' });
  await expect(panel.getByTestId('runway-line')).toHaveText(
    "About 4 h of buying left at the last hour's rate (4 d at the last day's)",
    { timeout: 30_000 },
  );
  await expect(panel).toContainText('$1,200.00 available');
  await expect(panel).toContainText('spent $300.00 in the last hour');
  const topUps = panel.getByRole('table', { name: /Top-ups and deposits/ });
  await expect(topUps.locator('tbody tr')).toHaveCount(2, { timeout: 30_000 }); // the deposit and the opening top-up
  await expect(topUps.locator('tbody tr').first()).toContainText('crypto deposit');
  await expect(topUps.locator('tbody tr').first()).toContainText('+$500.00');
  expect(await axeFindings(page), 'axe, dark theme').toEqual([]);

  // The threshold from the keyboard: a bad value is refused where it is typed and nothing is saved.
  const hours = panel.getByRole('textbox', { name: 'Notify when under' });
  await hours.focus();
  await page.keyboard.type('-2');
  await page.keyboard.press('Enter');
  await expect(panel.getByRole('alert')).toHaveText('More than 0 hours');
  await expect(panel.getByRole('status')).toHaveCount(0);
  await expect(panel.getByRole('button', { name: 'Turn off' })).toBeDisabled();
  expect(await axeFindings(page), 'axe with the field error').toEqual([]);

  // 6 h is above the 4 h runway: under the threshold, one notification.
  await hours.fill('');
  await page.keyboard.type('6');
  await page.keyboard.press('Enter');
  await expect(panel.getByRole('status')).toContainText('Under your 6 h threshold', { timeout: 15_000 });
  await expect(page.getByText('Balance runway under 6 h').first()).toBeVisible({ timeout: 15_000 });
  expect(await axeFindings(page), 'axe under the threshold, dark theme').toEqual([]);
  await screenshot(page, testInfo, 'wallet-runway');

  await goTo(page, 'Settings');
  await page.getByRole('radio', { name: /light/i }).check();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await goTo(page, 'Wallet');
  await expect(panel.getByTestId('runway-line')).toBeVisible();
  await expect(panel.getByRole('status')).toBeVisible();
  expect(await axeFindings(page), 'axe, light theme').toEqual([]);
  await screenshot(page, testInfo, 'wallet-runway-light');

  // Turned off from the keyboard: Tab from the field reaches Save, then Turn off.
  await hours.focus();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect(panel.getByRole('button', { name: 'Turn off' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(panel.locator('.runway-message')).toHaveText('Off');
  await expect(panel.getByRole('status')).toHaveCount(0);
});
