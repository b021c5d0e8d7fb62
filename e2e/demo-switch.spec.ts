// Demo mode is a real on/off switch. A first run starts on the embedded demo; the user saves
// their account (leaving the demo), goes back to the demo, and back again; each choice
// survives a restart of Merchant Desk. Settings always shows the saved account (never the
// demo's internals), and "Test connection" tests it even while the demo runs.
import type { Page } from '@playwright/test';
import { formatCents } from '../src/shared/money';
import { catalogGrid, dataRows, expectFeedLive, goTo, openApp, statusBar } from './support/app';
import { expect, test, useStack } from './support/stack';

const stack = useStack({
  hostInDemo: true,
  restartableHost: true,
  items: 500,
  seed: 6,
  merchant: { balance: 123_456 },
});

const demoBadge = (page: Page) => statusBar(page).getByText('DEMO', { exact: true });
const demoSwitch = (page: Page) => page.getByRole('switch', { name: 'Demo sandbox' });
const accountForm = (page: Page) => page.getByRole('form', { name: 'Marketplace account' });

async function restart(page: Page): Promise<void> {
  await stack().stopHost();
  // The banner (a refresh under way when the host went may also say it in a toast).
  await expect(
    page.getByRole('alert').filter({ hasText: 'Connection to Merchant Desk lost — reconnecting' }),
  ).toBeVisible({
    timeout: 15_000,
  });
  await stack().startHost();
  await expect(page.getByRole('alert').filter({ hasText: 'Connection to Merchant Desk lost' })).toBeHidden({
    timeout: 60_000,
  });
  await expectFeedLive(page, 60_000);
}

test('demo on, off and on again, each choice kept across a restart; Settings shows and tests the saved account', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const { merchantId, apiKey } = stack().merchant;
  const { baseUrl, wsUrl } = stack().sandbox;
  await openApp(page, stack(), '#/settings');
  await expectFeedLive(page, 60_000);

  // First run: the demo, nothing saved. The form does not show the demo's own address or merchant.
  await expect(demoBadge(page)).toBeVisible();
  await expect(demoSwitch(page)).toBeChecked();
  await expect(demoSwitch(page)).toBeDisabled();
  await expect(page.getByText('Save an account below to leave the demo.')).toBeVisible();
  const form = accountForm(page);
  await expect(form.getByLabel('Base URL')).toHaveValue('');
  await expect(form.getByLabel('Merchant ID')).toHaveValue('');
  await expect(form.getByText('not configured', { exact: true })).toBeVisible();

  // Enter the account and test it without leaving the demo.
  await form.getByLabel('Base URL').fill(baseUrl);
  await form.getByLabel('WebSocket URL').fill(wsUrl);
  await form.getByLabel('Merchant ID').fill(merchantId);
  await form.getByLabel('API key').fill(apiKey);
  await form.getByRole('button', { name: 'Test connection' }).click();
  await expect(form.getByRole('status')).toContainText(
    `Connection works. Connected as ${merchantId}: ${formatCents(123_456)} available`,
  );
  await expect(form.getByRole('status')).toContainText('Still on the demo sandbox');
  await expect(demoBadge(page)).toBeVisible();

  // Save: connected to the account, the demo is off.
  await form.getByRole('button', { name: 'Save and connect' }).click();
  await expect(demoSwitch(page)).not.toBeChecked({ timeout: 30_000 });
  await expect(demoBadge(page)).toBeHidden();
  await expect(page.getByRole('navigation', { name: 'Main' }).getByText('DEMO SANDBOX')).toBeHidden();
  await expect(accountForm(page).getByLabel('Merchant ID')).toHaveValue(merchantId);
  await expect(accountForm(page).getByText('configured', { exact: true })).toBeVisible();

  // Demo on again: the form still shows the saved account, and tests it with the stored key.
  await demoSwitch(page).click(); // (the switch turns on once the engine has switched)
  await expect(demoBadge(page)).toBeVisible({ timeout: 30_000 });
  await expect(demoSwitch(page)).toBeChecked();
  await expect(accountForm(page).getByLabel('Merchant ID')).toHaveValue(merchantId);
  await expect(accountForm(page).getByLabel('Base URL')).toHaveValue(baseUrl);
  await expect(accountForm(page).getByText('configured', { exact: true })).toBeVisible();
  await accountForm(page).getByRole('button', { name: 'Test connection' }).click();
  await expect(accountForm(page).getByRole('status')).toContainText(`Connection works. Connected as ${merchantId}`);
  const back = page.getByRole('button', { name: `Back to ${merchantId}` });
  await expect(back).toBeVisible();

  // The choice survives a restart of Merchant Desk (a saved account with a key does not override it).
  const pictures = catalogGrid(page).locator('.item-img img');
  const loadedPictures = () =>
    pictures.evaluateAll((images) =>
      images.flatMap((img) =>
        img instanceof HTMLImageElement && img.complete && img.naturalWidth > 0 ? [img.src] : [],
      ),
    );
  await goTo(page, 'Catalog');
  await expect(dataRows(page).first()).toBeVisible({ timeout: 30_000 });
  await expect.poll(async () => (await loadedPictures()).length, { timeout: 15_000 }).toBeGreaterThanOrEqual(5);
  const [picture] = await loadedPictures();
  await restart(page);
  // The demo kept its address: the cached pictures' URLs still answer, and a fresh window shows them at once.
  expect((await fetch(picture as string)).status).toBe(200);
  await page.reload();
  await expect(dataRows(page).first()).toBeVisible({ timeout: 30_000 });
  await expect.poll(async () => (await loadedPictures()).length, { timeout: 15_000 }).toBeGreaterThanOrEqual(5);
  expect(new Set((await loadedPictures()).map((src) => new URL(src).origin))).toEqual(
    new Set([new URL(picture as string).origin]),
  );
  await goTo(page, 'Settings');
  await expect(demoBadge(page)).toBeVisible();
  await expect(demoSwitch(page)).toBeChecked();
  await expect(accountForm(page).getByLabel('Merchant ID')).toHaveValue(merchantId);

  // Back to the account; that survives a restart too.
  await back.click();
  await expect(demoSwitch(page)).not.toBeChecked({ timeout: 30_000 });
  await expect(demoBadge(page)).toBeHidden();
  await restart(page);
  await goTo(page, 'Wallet');
  await expect(demoBadge(page)).toBeHidden();
  await expect(page.locator('.card', { hasText: 'Total available' })).toContainText(formatCents(123_456));
});
