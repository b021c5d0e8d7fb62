// Where npm could not build keytar (no libsecret), the web host has no OS keychain. It says in one line
// where the API key lives, and Settings tells the same truth instead of promising the keychain.
import { goTo, openApp } from './support/app';
import { expect, test, useStack } from './support/stack';

const stack = useStack({ hostInDemo: true, withoutKeytar: true, items: 300, seed: 4 });

test('without keytar: one start-up line and Settings both say the key is kept in memory only', async ({ page }) => {
  const startLines = stack()
    .hostLog()
    .split('\n')
    .filter((line) => /keychain|API keys are/i.test(line));
  expect(startLines).toEqual([
    expect.stringMatching(
      /OS keychain unavailable: keytar is not installed \(its build needs libsecret-1-dev on Linux\)\. API keys are kept in memory only and must be entered again after a restart \(or set MERCHANT_API_KEY and MERCHANT_ID\)\.$/,
    ),
  ]);

  await openApp(page, stack());
  await goTo(page, 'Settings');
  const form = page.getByRole('form', { name: 'Marketplace account' });
  await expect(
    form.getByText('Stored in memory only: enter it again after a restart; never shown again.'),
  ).toBeVisible();
  await expect(page.getByText(/OS keychain/)).toHaveCount(0);

  // Saved in memory: the form says where the key now is.
  const { merchantId, apiKey } = stack().merchant;
  await form.getByLabel('Base URL').fill(stack().sandbox.baseUrl);
  await form.getByLabel('WebSocket URL').fill(stack().sandbox.wsUrl);
  await form.getByLabel('Merchant ID').fill(merchantId);
  await form.getByLabel('API key').fill(apiKey);
  await form.getByRole('button', { name: 'Save and connect' }).click();
  await expect(
    form.getByText('A key is stored in memory only: enter it again after a restart. Leave blank to keep it.'),
  ).toBeVisible({ timeout: 30_000 });

  // Another address is another destination: the stored key is not offered for it; the form asks for the key.
  await form.getByLabel('Base URL').fill('http://127.0.0.1:9/');
  await form.getByRole('button', { name: 'Test connection' }).click();
  await expect(
    form.getByRole('alert').filter({ hasText: 'Required: the stored key is only sent to the saved addresses' }),
  ).toBeVisible();
  await form.getByLabel('Base URL').fill(`${stack().sandbox.baseUrl}/`);
  await expect(
    form.getByText('A key is stored in memory only: enter it again after a restart. Leave blank to keep it.'),
  ).toBeVisible();
});
