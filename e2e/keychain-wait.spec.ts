// A keychain slow to answer, on screen: the real gnome-keyring-daemon (a private bus) stopped with SIGSTOP while the
// web host opens the saved account whose key it holds. The page says it waits for the keychain, neither read-only
// nor asking for the key; a key being typed meanwhile stays in its field; the account goes live when it answers.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Sandbox } from '../src/server/sandbox';
import { startSandbox } from '../src/server/sandbox';
import { type PrivateKeyring, startPrivateKeyring } from '../test/support/privateKeyring';
import { adminApi } from '../test/support/sandboxHttp';
import { webCli, type WebCliRun, webHostUrl } from '../test/support/webCli';
import { expectFeedLive, goTo, openApp, statusBar } from './support/app';
import { ensureRendererBuilt, expect, test } from './support/stack';

let sb: Sandbox;
let keyring: PrivateKeyring;
let host: WebCliRun;
let url: URL;
let dataDir = '';

/** axe's WCAG 2.1 A/AA findings inside `selector`, one line each. */
async function axeFindings(page: Page, selector: string): Promise<string[]> {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .include(selector)
    .analyze();
  return result.violations.flatMap((v) => v.nodes.map((node) => `${v.id}: ${node.target.join(' ')}`));
}

// eslint-disable-next-line no-empty-pattern -- Playwright wants a destructuring pattern
test.beforeAll(async ({}, testInfo) => {
  testInfo.setTimeout(180_000);
  await ensureRendererBuilt();
  sb = await startSandbox({ items: 200, seed: 9 });
  const merchant = await adminApi(sb).createMerchant({ balance: 100_000 });
  keyring = await startPrivateKeyring();
  await keyring.store(merchant.merchantId, merchant.apiKey);
  dataDir = mkdtempSync(join(tmpdir(), 'md-e2e-keychain-'));
  writeFileSync(
    join(dataDir, 'config.json'),
    JSON.stringify({
      version: 1,
      account: { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, merchantId: merchant.merchantId },
      settings: { demoSandbox: false },
    }),
  );
  keyring.freeze();
  const env: NodeJS.ProcessEnv = { ...keyring.env };
  delete env['MERCHANT_ID'];
  delete env['MERCHANT_API_KEY'];
  host = webCli(['--data-dir', dataDir, '--port', '0'], env);
  url = await webHostUrl(host);
});

test.afterAll(async () => {
  await host?.stop();
  keyring?.close();
  await sb?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test('the page waits for a slow keychain, then goes live without a restart', async ({ page }) => {
  test.setTimeout(150_000);
  await openApp(page, { url: url.toString() });
  const feed = statusBar(page).locator('.conn-state');
  await expect(feed.locator('strong')).toHaveText('Waiting for the keychain…', { timeout: 60_000 });
  await expect(feed).toContainText('Waiting for the OS keychain to give the API key');
  await expect(page.getByText('Enter API key')).toHaveCount(0);
  expect(await axeFindings(page, '.statusbar')).toEqual([]);

  await goTo(page, 'Settings');
  const form = page.getByRole('form', { name: 'Marketplace account' });
  await expect(
    form.getByText('Waiting for the OS keychain to answer: the key stored there is used as soon as it does.'),
  ).toBeVisible();
  await expect(form.getByText('waiting for the keychain', { exact: true })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Read-only: cached data' })).toHaveCount(0);
  expect(await axeFindings(page, 'section[aria-labelledby="settings-connection"]')).toEqual([]);
  await form.getByLabel('API key').fill('typed-while-waiting');

  keyring.thaw();
  await expectFeedLive(page, 60_000);
  await expect(form.getByText('configured', { exact: true })).toBeVisible();
  await expect(form.getByLabel('API key')).toHaveValue('typed-while-waiting');
});
