// The marketplace goes away and comes back: the sandbox is closed under the running app
// (cached browsing keeps working, the status bar says so), then a new sandbox starts on
// the same port with the same database and the app recovers by itself.
import { merchantApi } from '../test/support/sandboxHttp';
import {
  catalogGrid,
  dataRows,
  expectEveryRow,
  expectFeedLive,
  expectRowsRendered,
  goTo,
  openApp,
  rowName,
  statusBar,
  TRADE_URL,
} from './support/app';
import { expect, test, useStack } from './support/stack';

const ITEM = {
  itemId: 7_000_001,
  assetId: '70000001',
  market_hash_name: 'Five-SeveN | Lantern Watch (Minimal Wear)',
  price: 777,
};
/** Bought before the app starts and left active: it completes while the marketplace is away from the app. */
const OPEN_ITEM = {
  itemId: 7_000_003,
  assetId: '70000003',
  market_hash_name: 'Five-SeveN | Lantern Dawn (Minimal Wear)',
  price: 444,
};
let openTradeId = '';

const stack = useStack({
  items: 2000,
  seed: 9,
  restartable: true,
  async prepare({ sandbox, admin, merchant }) {
    await admin.post('/admin/items', { items: [ITEM, OPEN_ITEM] });
    const open = await merchantApi(sandbox, merchant).post<{ tradeId: string }>('/Items/Buy', {
      itemId: OPEN_ITEM.itemId,
      assetId: OPEN_ITEM.assetId,
      price: OPEN_ITEM.price,
      tradeUrl: TRADE_URL,
      externalId: 'OFFLINE-OPEN',
    });
    if (open.status !== 200) throw new Error(`buy: ${open.status} ${JSON.stringify(open.body)}`);
    openTradeId = open.body.tradeId;
    const bought = await merchantApi(sandbox, merchant).post<{ tradeId: string }>('/Items/Buy', {
      itemId: ITEM.itemId,
      assetId: ITEM.assetId,
      price: ITEM.price,
      tradeUrl: TRADE_URL,
      externalId: 'OFFLINE-1',
    });
    if (bought.status !== 200) throw new Error(`buy: ${bought.status} ${JSON.stringify(bought.body)}`);
    await admin.transition(bought.body.tradeId, { status: 'SENT' });
    await admin.transition(bought.body.tradeId, { status: 'COMPLETED' });
  },
});

test('browses the cache while the marketplace is down and reconnects by itself', async ({ page }) => {
  test.setTimeout(120_000);
  await openApp(page, stack());
  await expectFeedLive(page);
  await expect(dataRows(page).first()).toBeVisible({ timeout: 30_000 });
  // A skin name to search for later ("AK-47 | Redline (Field-Tested)" → "Redline").
  const skin = (await rowName(dataRows(page).first())).split('|')[1]?.split('(')[0]?.trim() ?? '';
  expect(skin).not.toBe('');
  await goTo(page, 'Trades');
  await page.getByRole('tab', { name: 'History' }).click();
  const trades = page.getByRole('table', { name: 'Trades' });
  await expect(trades.locator('tbody tr')).toHaveCount(2, { timeout: 30_000 });
  await goTo(page, 'Catalog');

  // The marketplace disappears.
  await stack().stopSandbox();
  const feedState = statusBar(page).locator('.conn-state strong');
  await expect(feedState).toHaveText(/^(Offline|Reconnecting)$/, { timeout: 30_000 });
  await expect(feedState).toHaveText('Offline', { timeout: 30_000 });
  await expect(statusBar(page).getByText('OFFLINE', { exact: true })).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'Offline' })).toContainText('showing cached data');

  // Cached browsing: search, sort and scroll the local catalog.
  await page.getByRole('searchbox', { name: 'Search items' }).fill(skin);
  await expectEveryRow(page, async (row) => (await rowName(row)).includes(skin), `a ${skin}`);
  await page.getByRole('searchbox', { name: 'Search items' }).fill('');
  await catalogGrid(page).getByRole('button', { name: 'Name', exact: true }).click();
  await expect(catalogGrid(page).getByRole('columnheader', { name: 'Name' })).toHaveAttribute('aria-sort', 'ascending');
  await catalogGrid(page).evaluate((el) => {
    el.scrollTop = el.scrollHeight / 2;
  });
  await expectRowsRendered(page);
  // Refresh cannot reach the marketplace: not started, and said so.
  await page.getByRole('button', { name: 'Refresh', exact: true }).click();
  await expect(page.locator('.toast').filter({ hasText: 'Catalog refresh not started' })).toContainText(
    'cannot be reached',
  );

  // Cached trade history.
  await goTo(page, 'Trades');
  await page.getByRole('tab', { name: 'History' }).click();
  await expect(trades.locator('tbody tr')).toHaveCount(2);
  const done = trades.locator('tbody tr').filter({ hasText: ITEM.market_hash_name });
  await expect(done.locator('.status-badge')).toHaveText(/^completed$/i);
  await expect(feedState).not.toHaveText('Live');
  await page.getByRole('tab', { name: 'Active' }).click();
  await expect(trades.locator('tbody tr')).toHaveCount(1);
  await expect(trades.locator('tbody tr').first()).toContainText(OPEN_ITEM.market_hash_name);

  // The marketplace comes back on the same address with the same data, and the open trade completed meanwhile
  // (before the app reconnects): the Active tab on screen lets it go by itself, no reload.
  await stack().restartSandbox();
  await stack().admin.transition(openTradeId, { status: 'SENT' });
  await stack().admin.transition(openTradeId, { status: 'COMPLETED' });
  await expectFeedLive(page, 60_000);
  await expect(statusBar(page).getByText('OFFLINE', { exact: true })).toBeHidden();
  await expect(page.getByRole('status').filter({ hasText: 'Offline' })).toBeHidden();
  await expect(trades.locator('tbody tr').filter({ hasText: OPEN_ITEM.market_hash_name })).toHaveCount(0, {
    timeout: 15_000,
  });
  await expect(page.getByRole('tab', { name: 'Active' })).not.toContainText(/\d/);
  // And it is live again: a new trade made on the server shows up without a reload.
  const item2 = {
    itemId: 7_000_002,
    assetId: '70000002',
    market_hash_name: 'Five-SeveN | Lantern Dusk (Field-Tested)',
    price: 555,
  };
  await stack().admin.post('/admin/items', { items: [item2] });
  const bought = await stack().api.post<{ tradeId: string }>('/Items/Buy', {
    itemId: item2.itemId,
    assetId: item2.assetId,
    price: item2.price,
    tradeUrl: TRADE_URL,
  });
  expect(bought.status).toBe(200);
  await expect(trades.locator('tbody tr').filter({ hasText: item2.market_hash_name })).toBeVisible({ timeout: 15_000 });
});

test('"Retry now" (offline banner, command palette) reconnects at once instead of at the next backed-off attempt', async ({
  page,
}) => {
  test.setTimeout(150_000);
  await openApp(page, stack());
  await expectFeedLive(page);

  await stack().stopSandbox();
  const banner = page.getByRole('status').filter({ hasText: 'Offline' });
  const retryNow = banner.getByRole('button', { name: 'Retry now' });
  await expect(retryNow).toBeVisible({ timeout: 30_000 });
  // The palette offers it too while not live.
  await page.keyboard.press('Control+k');
  const palette = page.getByRole('dialog', { name: 'Command palette' });
  await palette.getByRole('combobox').fill('retry');
  await expect(palette.getByRole('option', { name: /Retry the connection now/ })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(palette).toBeHidden();

  // The feed backs off while nothing answers; from the 6th attempt on its next try is 16-32 s away.
  await expect(banner).toContainText(/\(attempt ([6-9]|\d\d)\)/, { timeout: 90_000 });
  await stack().restartSandbox();
  const clickedAt = Date.now();
  await retryNow.focus();
  await page.keyboard.press('Enter');
  await expectFeedLive(page, 12_000);
  expect(Date.now() - clickedAt).toBeLessThan(15_000);
  await expect(banner).toBeHidden();
});
