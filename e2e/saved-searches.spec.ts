// Saved searches: the catalog's search, filters and sort saved under a name from the header, listed in the
// sidebar, kept across a reload (they live in the account's store), opened from the command palette, and
// turned into a watch (an alert rule) that carries every filter of it.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { catalogGrid, dataRows, expectFeedLive, openApp } from './support/app';
import { expect, test, useStack } from './support/stack';

const SPIRES = [
  { itemId: 3_100_001, assetId: '31000001', market_hash_name: 'Glock-18 | Savedspire (Field-Tested)', price: 500 },
  { itemId: 3_100_002, assetId: '31000002', market_hash_name: 'P250 | Savedspire (Minimal Wear)', price: 900 },
  { itemId: 3_100_003, assetId: '31000003', market_hash_name: 'USP-S | Savedspire (Factory New)', price: 4_500 },
];

const stack = useStack({
  items: 3000,
  seed: 23,
  merchant: { balance: 100_000 },
  async prepare({ admin }) {
    await admin.post('/admin/items', { items: SPIRES });
  },
});

test.describe.configure({ timeout: 90_000 });

const savedList = (page: Page) => page.getByRole('navigation', { name: 'Main' }).getByRole('list', { name: 'Saved searches' });
const priceHeader = (page: Page) => catalogGrid(page).getByRole('columnheader', { name: 'Price' });

async function expectAxeClean(page: Page, include: string, where: string): Promise<void> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).include(include).analyze();
  expect.soft(result.violations.flatMap((v) => v.nodes.map((node) => `${v.id}: ${node.target.join(' ')}`)), `axe on ${where}`).toEqual([]);
}

test('a search saved from the catalog header is in the sidebar after a reload, opens from the palette with its filters and sort, and becomes a watch', async ({ page }) => {
  await openApp(page, stack());
  await expectFeedLive(page);
  await expect(dataRows(page).first()).toBeVisible({ timeout: 30_000 });

  // A search, a price range and a sort: the two Savedspires under $10, dearest first.
  await page.getByRole('searchbox', { name: 'Search items' }).fill('Savedspire');
  await page.getByRole('textbox', { name: 'Minimum price' }).fill('1');
  await page.getByRole('textbox', { name: 'Maximum price' }).fill('10');
  // Price is the default sort, ascending: one click turns it.
  await priceHeader(page).getByRole('button').click();
  await expect(priceHeader(page)).toHaveAttribute('aria-sort', 'descending');
  await expect(dataRows(page)).toHaveCount(2, { timeout: 15_000 });
  await expect(dataRows(page).first()).toContainText('P250 | Savedspire');

  // Save it: the header's button, a name, Enter.
  await page.getByRole('button', { name: 'Save search' }).click();
  const saveDialog = page.getByRole('dialog', { name: 'Save search' });
  await expect(saveDialog.getByLabel('Name')).toBeFocused();
  await expectAxeClean(page, 'dialog[open]', 'the save dialog');
  // An empty name is refused in words.
  await page.keyboard.press('Enter');
  await expect(saveDialog.getByRole('alert')).toHaveText('Name the search');
  await page.keyboard.type('Spire deals');
  await page.keyboard.press('Enter');
  await expect(saveDialog).toBeHidden();
  await expect(savedList(page).getByRole('button', { name: 'Spire deals', exact: true })).toBeVisible();

  // Saving again under the same name (any case) replaces that search, never makes a second one.
  await page.getByRole('button', { name: 'Save search' }).click();
  await page.keyboard.type('spire DEALS');
  await expect(saveDialog.getByRole('button', { name: 'Replace “Spire deals”' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(saveDialog).toBeHidden();

  // A reload starts from an empty catalog query; the saved search is still listed (the account's store keeps it).
  await page.reload();
  await expect(page.getByRole('searchbox', { name: 'Search items' })).toHaveValue('');
  await expect(savedList(page).getByRole('button', { name: 'Spire deals', exact: true })).toBeVisible({ timeout: 15_000 });
  await expect(dataRows(page).first()).toBeVisible({ timeout: 30_000 });
  await expect(priceHeader(page)).toHaveAttribute('aria-sort', 'ascending');

  // Open it from the palette, keyboard only: the catalog shows the saved filters and sort.
  await page.getByRole('heading', { level: 1, name: 'Catalog' }).click();
  await page.keyboard.press('Control+k');
  await page.keyboard.type('Open saved search: Spire');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('searchbox', { name: 'Search items' })).toHaveValue('Savedspire');
  await expect(page.getByRole('textbox', { name: 'Minimum price' })).toHaveValue('1.00');
  await expect(page.getByRole('textbox', { name: 'Maximum price' })).toHaveValue('10.00');
  await expect(priceHeader(page)).toHaveAttribute('aria-sort', 'descending');
  await expect(dataRows(page)).toHaveCount(2, { timeout: 15_000 });
  await expect(dataRows(page).first()).toContainText('P250 | Savedspire');
  await expect(dataRows(page).nth(1)).toContainText('Glock-18 | Savedspire');

  // Watch it from the sidebar item's menu: the dialog says what the rule matches, every filter of the search.
  await savedList(page).getByRole('button', { name: 'Actions for saved search “Spire deals”' }).click();
  await savedList(page).getByRole('button', { name: 'Watch' }).click();
  const watchDialog = page.getByRole('dialog', { name: 'Watch “Spire deals”' });
  await expect(watchDialog).toContainText('The watch matches: “Savedspire” · price $1.00–$10.00.');
  await expect(watchDialog).toContainText('Every filter of this search carries over');
  await expectAxeClean(page, 'dialog[open]', 'the watch dialog');
  await watchDialog.getByRole('button', { name: 'Create watch' }).click();
  await expect(watchDialog).toBeHidden();
  await expect(page.getByRole('heading', { level: 1, name: 'Alerts' })).toBeVisible();
  const rule = page.getByRole('table', { name: 'Alert rules' }).locator('tbody tr', { hasText: 'Spire deals' });
  await expect(rule).toContainText('“Savedspire” · price $1.00–$10.00 · ≤ $10.00 each');
  // The rule is checked against the catalog at once: the two under $10 fire, the $45 one does not.
  const firings = page.getByRole('table', { name: 'Alert firings' }).locator('tbody tr');
  await expect(firings).toHaveCount(2, { timeout: 20_000 });
  await expect(firings.filter({ hasText: 'USP-S | Savedspire' })).toHaveCount(0);

  // Rename, then delete, from the same menu.
  await savedList(page).getByRole('button', { name: 'Actions for saved search “Spire deals”' }).click();
  await savedList(page).getByRole('button', { name: 'Rename' }).click();
  const renameDialog = page.getByRole('dialog', { name: 'Rename “Spire deals”' });
  await renameDialog.getByLabel('Name').fill('Cheap spires');
  await page.keyboard.press('Enter');
  await expect(renameDialog).toBeHidden();
  await expect(savedList(page).getByRole('button', { name: 'Cheap spires', exact: true })).toBeVisible();
  await expectAxeClean(page, 'nav', 'the sidebar with a saved search');
  await savedList(page).getByRole('button', { name: 'Actions for saved search “Cheap spires”' }).click();
  await savedList(page).getByRole('button', { name: 'Delete', exact: true }).click();
  await savedList(page).getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(savedList(page)).toBeHidden();
});
