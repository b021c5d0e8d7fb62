// No key store holds the API key after a restart (no keytar: keys were kept in memory only). The saved
// account still opens from its cache - catalog, trades - read-only and offline, and says how to go live;
// entering the key in Settings makes it live again on the same cache.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { merchantApi } from '../test/support/sandboxHttp';
import { dataRows, expectFeedLive, goTo, openApp, screenshot, statusBar, TRADE_URL } from './support/app';
import { expect, test, useStack } from './support/stack';

const ITEM = {
  itemId: 7_100_001,
  assetId: '71000001',
  market_hash_name: 'P250 | Cached Sand (Field-Tested)',
  price: 555,
};

const stack = useStack({
  hostInDemo: true,
  restartableHost: true,
  withoutKeytar: true,
  items: 400,
  seed: 12,
  async prepare({ sandbox, admin, merchant }) {
    await admin.post('/admin/items', { items: [ITEM] });
    const bought = await merchantApi(sandbox, merchant).post<{ tradeId: string }>('/Items/Buy', {
      itemId: ITEM.itemId,
      assetId: ITEM.assetId,
      price: ITEM.price,
      tradeUrl: TRADE_URL,
      externalId: 'CACHED-1',
    });
    if (bought.status !== 200) throw new Error(`buy: ${bought.status} ${JSON.stringify(bought.body)}`);
  },
});

const form = (page: Page) => page.getByRole('form', { name: 'Marketplace account' });
const tradeRows = (page: Page) => page.getByRole('table', { name: 'Trades' }).locator('tbody tr');

/** axe's WCAG 2.1 A/AA findings inside `selector`, one line each. */
async function axeFindings(page: Page, selector: string): Promise<string[]> {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .include(selector)
    .analyze();
  return result.violations.flatMap((v) => v.nodes.map((node) => `${v.id}: ${node.target.join(' ')}`));
}

test('after a restart without a key store the saved account opens from its cache, read-only, until its key is entered', async ({
  page,
}, testInfo) => {
  test.setTimeout(240_000);
  const { merchantId, apiKey } = stack().merchant;
  const { baseUrl, wsUrl } = stack().sandbox;
  await openApp(page, stack(), '#/settings');
  await expectFeedLive(page, 60_000);

  // Save the account (its key is kept in memory only) and let it fill its cache.
  await form(page).getByLabel('Base URL').fill(baseUrl);
  await form(page).getByLabel('WebSocket URL').fill(wsUrl);
  await form(page).getByLabel('Merchant ID').fill(merchantId);
  await form(page).getByLabel('API key').fill(apiKey);
  await form(page).getByRole('button', { name: 'Save and connect' }).click();
  await expect(page.getByRole('switch', { name: 'Demo sandbox' })).not.toBeChecked({ timeout: 30_000 });
  await expectFeedLive(page, 30_000);
  await goTo(page, 'Trades');
  await page.getByRole('tab', { name: 'History' }).click();
  await expect(tradeRows(page)).toHaveCount(1, { timeout: 30_000 });
  await goTo(page, 'Wallet');
  const availableCard = page.locator('.card', { hasText: 'Total available' });
  await expect(availableCard).toContainText('Balance + credit · updated');
  await goTo(page, 'Catalog');
  await expect(dataRows(page).first()).toBeVisible({ timeout: 30_000 });

  // Restart Merchant Desk: the key is gone with the process.
  const stoppedAt = Date.now();
  await stack().stopHost();
  await expect(page.getByRole('alert').filter({ hasText: 'Connection to Merchant Desk lost' })).toBeVisible({
    timeout: 15_000,
  });
  await stack().startHost();
  await expect(page.getByRole('alert').filter({ hasText: 'Connection to Merchant Desk lost' })).toBeHidden({
    timeout: 60_000,
  });

  // The account's cached data, offline, never the demo, with the way to go live.
  await expect(statusBar(page).locator('.conn-state strong')).toHaveText('Offline', { timeout: 30_000 });
  await expect(statusBar(page).getByText('DEMO', { exact: true })).toHaveCount(0);
  const banner = page.getByRole('status').filter({ hasText: 'Enter your API key' });
  await expect(banner).toBeVisible();
  expect(await axeFindings(page, '.banner')).toEqual([]);
  await expect(page.getByText('No account configured')).toHaveCount(0);
  await expect(dataRows(page).first()).toBeVisible({ timeout: 30_000 });
  await expect(dataRows(page).filter({ hasText: ITEM.market_hash_name })).toHaveCount(0); // bought: not on sale
  await goTo(page, 'Trades');
  await page.getByRole('tab', { name: 'History' }).click();
  await expect(tradeRows(page)).toHaveCount(1);
  await expect(tradeRows(page).first()).toContainText('$5.55');

  // The cached balance says so, with the time the server gave it (before the restart), never "just now".
  await goTo(page, 'Wallet');
  await expect(availableCard).toContainText(/Balance \+ credit · cached from \d{4}-\d\d-\d\d \d\d:\d\d:\d\d/);
  await expect(availableCard).not.toContainText('just now');
  const [, shown = ''] =
    /cached from (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)/.exec((await availableCard.textContent()) ?? '') ?? [];
  expect(new Date(shown.replace(' ', 'T')).getTime()).toBeLessThanOrEqual(stoppedAt);
  await expect(page.getByRole('navigation', { name: 'Main' }).getByText('Available · cached')).toBeVisible();
  await screenshot(page, testInfo, 'wallet-cached');

  // Buying says what is missing (the key, not the network) and leads to it.
  await goTo(page, 'Catalog');
  await page.getByRole('button', { name: 'Purchase by name' }).click();
  const byName = page.getByRole('dialog', { name: 'Buy by name' });
  await expect(byName.getByRole('status')).toContainText('Read-only: no API key for this account on this machine');
  await expect(byName.getByText('cannot be reached')).toHaveCount(0);
  await screenshot(page, testInfo, 'buy-by-name-read-only');
  await byName.getByRole('button', { name: 'Enter API key' }).click();
  await expect(byName).toBeHidden();
  await expect(form(page).getByLabel('API key')).toBeFocused();
  // Refresh cannot leave without the key either: it says so instead of "started".
  await goTo(page, 'Catalog');
  await page.getByRole('button', { name: 'Refresh', exact: true }).click();
  await expect(page.locator('.toast').filter({ hasText: 'Catalog refresh not started' })).toContainText(
    'Enter your API key',
  );

  // The banner's action leads to the key field, focused: the key typed goes into it, and none of its letters is a
  // shortcut (b: buy, n: buy by name, g s: Settings); the key entered, the same account is live again.
  await page.getByRole('button', { name: 'Enter API key' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
  await expect(form(page).getByLabel('API key')).toBeFocused();
  const notice = page.getByRole('region', { name: 'Read-only: cached data' });
  await expect(notice).toContainText(`${merchantId}`);
  expect(await axeFindings(page, 'section[aria-labelledby="settings-connection"]')).toEqual([]);
  await notice.getByRole('button', { name: 'Enter your API key to go live' }).click();
  await expect(form(page).getByLabel('API key')).toBeFocused();
  await page.keyboard.type(`bngn/${apiKey}`);
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(form(page).getByLabel('API key')).toHaveValue(`bngn/${apiKey}`);
  await form(page).getByLabel('API key').fill(apiKey);
  await form(page).getByRole('button', { name: 'Save and go live' }).click();
  await expectFeedLive(page, 30_000);
  await expect(notice).toHaveCount(0);
  await goTo(page, 'Trades');
  await expect(tradeRows(page)).toHaveCount(1);
});
