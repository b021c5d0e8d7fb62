// Everything scoped to an account changes with it at once: after a switch (demo -> account -> demo) the
// page shows the new account's saved recipients only (a buy offers no recipient of the other account),
// and the catalog's filters, selection and open detail start afresh.
import type { Page } from '@playwright/test';
import { tradeUrlFor } from '../test/support/sandboxHttp';
import { dataRows, expectFeedLive, goTo, openApp, statusBar } from './support/app';
import { expect, test, useStack } from './support/stack';

const stack = useStack({ hostInDemo: true, items: 400, seed: 8 });

const recipientList = (page: Page) => page.getByRole('list', { name: 'Saved recipients' });
const demoSwitch = (page: Page) => page.getByRole('switch', { name: 'Demo sandbox' });
const demoBadge = (page: Page) => statusBar(page).getByText('DEMO', { exact: true });
const search = (page: Page) => page.getByRole('searchbox', { name: 'Search items' });
const itemDetail = (page: Page) => page.getByRole('complementary', { name: 'Item detail' });

async function addRecipient(page: Page, label: string, partner: number): Promise<void> {
  const section = page.locator('section[aria-labelledby="settings-recipients"]');
  await section.getByLabel('Label').fill(label);
  await section.getByLabel('Trade URL').fill(tradeUrlFor(partner));
  await section.getByRole('button', { name: 'Add recipient' }).click();
  await expect(recipientList(page)).toContainText(label);
}

/** The recipients a buy offers, from the Buy dialog of the first catalog row. */
async function buyDialogRecipients(page: Page): Promise<string[]> {
  await goTo(page, 'Catalog');
  await dataRows(page).first().click();
  await itemDetail(page).getByRole('button', { name: 'Buy', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Buy item' });
  await expect(dialog).toBeVisible();
  const options = (await dialog.getByLabel('Recipient').locator('option').allTextContents()).map(
    (text) => text.split(' — ')[0] ?? text,
  );
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  return options;
}

test('switching account changes its recipients, filters, selection and detail at once', async ({ page }) => {
  test.setTimeout(180_000);
  const { merchantId, apiKey } = stack().merchant;
  const { baseUrl, wsUrl } = stack().sandbox;
  await openApp(page, stack(), '#/settings');
  await expectFeedLive(page, 60_000);
  await expect(demoBadge(page)).toBeVisible();

  // On the demo: a saved recipient, a catalog search, a selected item with its detail open.
  await addRecipient(page, 'Demo storage', 1111);
  await goTo(page, 'Catalog');
  await search(page).fill('AK-47');
  await expect(dataRows(page).first()).toContainText('AK-47', { timeout: 30_000 });
  await dataRows(page).first().click();
  await expect(itemDetail(page)).toBeVisible();

  // Save the account: the page now shows the account's data only.
  await goTo(page, 'Settings');
  const form = page.getByRole('form', { name: 'Marketplace account' });
  await form.getByLabel('Base URL').fill(baseUrl);
  await form.getByLabel('WebSocket URL').fill(wsUrl);
  await form.getByLabel('Merchant ID').fill(merchantId);
  await form.getByLabel('API key').fill(apiKey);
  await form.getByRole('button', { name: 'Save and connect' }).click();
  await expect(demoSwitch(page)).not.toBeChecked({ timeout: 30_000 });
  await expect(demoBadge(page)).toBeHidden();
  await expect(page.getByText('Demo storage')).toHaveCount(0);

  await goTo(page, 'Catalog');
  await expect(search(page)).toHaveValue('');
  await expect(itemDetail(page)).toHaveCount(0);
  await expect(dataRows(page).first()).toBeVisible({ timeout: 30_000 });
  await expect(catalogSelection(page)).toHaveCount(0);

  await goTo(page, 'Settings');
  await addRecipient(page, 'Account storage', 2222);
  expect(await buyDialogRecipients(page)).toEqual(['Account storage', 'Paste a trade URL…']);

  // Back to the demo: its recipient again, not the account's.
  await goTo(page, 'Settings');
  await demoSwitch(page).click();
  await expect(demoBadge(page)).toBeVisible({ timeout: 30_000 });
  await expect(recipientList(page)).toContainText('Demo storage');
  await expect(page.getByText('Account storage')).toHaveCount(0);
  expect(await buyDialogRecipients(page)).toEqual(['Demo storage', 'Paste a trade URL…']);
});

function catalogSelection(page: Page) {
  return dataRows(page).and(page.locator('[aria-selected="true"]'));
}

test('a switch made in another window reaches this one at once', async ({ page, context }) => {
  test.setTimeout(120_000);
  const { merchantId } = stack().merchant;
  // Where the first test left it: the demo on, the account saved; each with its own recipient.
  await openApp(page, stack(), '#/settings');
  await expect(demoBadge(page)).toBeVisible({ timeout: 30_000 });
  await expect(recipientList(page)).toContainText('Demo storage');

  const other = await context.newPage();
  await openApp(other, stack(), '#/settings');
  await other.getByRole('button', { name: `Back to ${merchantId}` }).click();
  await expect(demoBadge(other)).toBeHidden({ timeout: 30_000 });

  // This window did nothing: it follows the engine's switch.
  await expect(demoBadge(page)).toBeHidden({ timeout: 10_000 });
  await expect(recipientList(page)).toContainText('Account storage');
  await expect(page.getByText('Demo storage')).toHaveCount(0);
  await other.close();
});
