// The order look-up's other states against the real sandbox, keyboard only: a text nothing matches says so and what
// it searched by; offline (the marketplace gone) the look-up still finds a trade in the local history, from the
// Operations screen and from the palette, and opens its detail. axe in both themes.
import type { Locator, Page } from '@playwright/test';
import { merchantApi } from '../test/support/sandboxHttp';
import { goOffline, openApp, TRADE_URL } from './support/app';
import { expectAxeClean } from './support/axe';
import { goToOperations } from './support/operations';
import { expect, test, useStack } from './support/stack';

const NAME = 'Five-SeveN | Lookup Offline (Minimal Wear)';

const stack = useStack({
  items: 100,
  seed: 35,
  merchant: { balance: 100_000 },
  async prepare({ sandbox, admin, merchant }) {
    const item = { itemId: 8_370_000, assetId: '8370000', price: 1_234, market_hash_name: NAME };
    const listed = await admin.post('/admin/items', { items: [item] });
    if (listed.status >= 300) throw new Error(`listing: ${listed.status} ${JSON.stringify(listed.body)}`);
    const bought = await merchantApi(sandbox, merchant).post('/Items/Buy', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      tradeUrl: TRADE_URL,
      externalId: 'PLAYER-77',
    });
    if (bought.status !== 200) throw new Error(`buy: ${bought.status} ${JSON.stringify(bought.body)}`);
  },
});

test.describe.configure({ timeout: 150_000 });

/** Types into the focused look-up box and presses Enter until the status says `status` (the first sync may lag). */
async function lookUp(page: Page, scope: Locator, text: string, status: RegExp): Promise<void> {
  const box = scope.getByRole('searchbox');
  await box.focus();
  await page.keyboard.press('Control+a');
  await page.keyboard.type(text);
  await expect(async () => {
    await page.keyboard.press('Enter');
    await expect(scope.getByRole('status')).toHaveText(status, { timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
}

test('the look-up: nothing matches, then offline from the Operations screen and the palette; axe in both themes', async ({
  page,
}) => {
  await openApp(page, stack());
  await goToOperations(page);
  const section = page.getByRole('region', { name: 'Order look-up' });
  const hits = section.getByRole('list', { name: 'Trades found' }).getByRole('button');

  // Found first (the history is synced), then a text nothing matches: said so, with what was searched, no list.
  await lookUp(page, section, 'PLAYER-77', /^1 trade\.$/);
  await lookUp(page, section, 'NO-SUCH-ORDER-123', /^No trade in the local history matches “NO-SUCH-ORDER-123”/);
  await expect(section.getByRole('status')).toContainText('searched by');
  await expect(section.getByRole('status')).toContainText('order id');
  await expect(hits).toHaveCount(0);
  await expect(section.getByRole('alert')).toHaveCount(0);
  await expectAxeClean(page, 'dark: look-up, nothing matches', '.order-lookup');

  // The light theme.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
  await page.getByRole('radio', { name: /light/i }).check();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await goToOperations(page);
  await lookUp(page, section, 'nothing-like-this', /^No trade in the local history matches “nothing-like-this”/);
  await expectAxeClean(page, 'light: look-up, nothing matches', '.order-lookup');

  // Offline: the marketplace goes away; the look-up reads the local history.
  await goOffline(page, stack());
  await lookUp(page, section, 'Lookup Offline', /^1 trade\.$/);
  await expect(hits.first()).toContainText(NAME);
  await expect(hits.first()).toContainText('by item name');
  await expectAxeClean(page, 'light: look-up offline', '.order-lookup');

  // From the palette too, offline; Enter on the hit opens the trade's detail.
  await page.keyboard.press('Control+k');
  const palette = page.getByRole('dialog', { name: 'Command palette' });
  await expect(palette).toBeVisible();
  await page.keyboard.type('Look up an order');
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Look up an order' });
  await expect(dialog.getByRole('searchbox')).toBeFocused();
  await page.keyboard.type('PLAYER-77');
  await page.keyboard.press('Enter');
  await expect(dialog.getByRole('status')).toHaveText('1 trade.');
  const hit = dialog.getByRole('list', { name: 'Trades found' }).getByRole('button').first();
  await expect(hit).toContainText('by order id');
  await hit.focus();
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  const detail = page.getByRole('complementary', { name: 'Trade detail' });
  await expect(detail).toContainText('PLAYER-77');
  await expect(detail).toContainText(NAME);
  await expectAxeClean(page, 'light: trade detail from the look-up, offline', '.trade-detail');
});
