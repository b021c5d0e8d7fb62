// The web host itself goes away under an open page (not the marketplace: Merchant Desk).
// The page says so at once, comes back by itself when the host returns with the same token
// (re-reading what it missed: the restarted engine counts its events from 1 again), and
// says "session expired" when the host returns with a new token, until the new URL is opened.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectFeedLive, goTo, openApp, statusBar, TRADE_URL } from './support/app';
import { expect, test, useStack } from './support/stack';

const ITEM = {
  itemId: 6_000_001,
  assetId: '60000001',
  market_hash_name: 'P250 | Harbor Mist (Field-Tested)',
  price: 640,
};

const stack = useStack({ items: 800, seed: 4, restartableHost: true });

const LOST = 'Connection to Merchant Desk lost — reconnecting…';
const EXPIRED = 'Session expired — open the URL printed by npm run web';

test('the page notices the web host going away, and recovers or says the session expired', async ({
  page,
  context,
}) => {
  test.setTimeout(120_000);
  await openApp(page, stack());
  await expectFeedLive(page);
  await goTo(page, 'Alerts');
  await expect(page.getByText('Alerts are paused')).toBeHidden();
  const banner = page.getByRole('alert').filter({ hasText: LOST });
  const feed = statusBar(page).locator('.conn-state');

  // Every feed state the status bar shows from here on, however briefly.
  await page.evaluate(() => {
    const shown: string[] = [];
    (window as unknown as { feedStatesShown: string[] }).feedStatesShown = shown;
    const bar = document.querySelector('section[aria-label="Status bar"]');
    const note = () => {
      const text =
        bar?.querySelector('.conn-state strong')?.textContent ??
        bar?.querySelector('.conn-state')?.textContent?.trim() ??
        '';
      if (shown.at(-1) !== text) shown.push(text);
    };
    if (bar) new MutationObserver(note).observe(bar, { subtree: true, childList: true, characterData: true });
  });
  const feedStatesShown = () =>
    page.evaluate(() => (window as unknown as { feedStatesShown: string[] }).feedStatesShown);

  // The host stops: the banner and the status bar say so (not "Live").
  await stack().stopHost();
  await expect(banner).toBeVisible({ timeout: 15_000 });
  await expect(feed.locator('strong')).toHaveText('Disconnected');
  await expect(feed).toContainText(LOST);
  await expect(statusBar(page).getByText('DISCONNECTED', { exact: true })).toBeVisible();

  // Meanwhile things change that only a fresh read shows: a setting edited on disk, a trade made elsewhere.
  const configFile = join(stack().dataDir, 'config.json');
  const config = (
    existsSync(configFile) ? JSON.parse(readFileSync(configFile, 'utf8')) : { version: 1, settings: {} }
  ) as { settings: Record<string, unknown> };
  config.settings['alertsPaused'] = true;
  writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
  await stack().admin.post('/admin/items', { items: [ITEM] });
  const bought = await stack().api.post<{ tradeId: string }>('/Items/Buy', {
    itemId: ITEM.itemId,
    assetId: ITEM.assetId,
    price: ITEM.price,
    tradeUrl: TRADE_URL,
  });
  expect(bought.status).toBe(200);

  // Back with the same token on the same port: no click, no reload.
  await stack().startHost();
  await expect(banner).toBeHidden({ timeout: 30_000 });
  await expectFeedLive(page);
  // What the feed was before the host went away is not shown as its state now: "Live" only once the new engine says so.
  const shown = await feedStatesShown();
  expect(shown).toContain('Disconnected');
  expect(shown.slice(shown.lastIndexOf('Disconnected') + 1)[0]).not.toBe('Live');
  await expect(page.getByText('Alerts are paused: no rule fires')).toBeVisible({ timeout: 15_000 });
  await expect(statusBar(page).getByRole('button', { name: /1 active trade\b/ })).toBeVisible({ timeout: 30_000 });
  // Still live: a change on the server arrives over the new engine's events.
  await stack().admin.transition(bought.body.tradeId, { status: 'SENT' });
  await goTo(page, 'Trades');
  await expect(
    page
      .getByRole('table', { name: 'Trades' })
      .locator('tbody tr')
      .filter({ hasText: ITEM.market_hash_name })
      .locator('.status-badge'),
  ).toHaveText(/^sent$/i, { timeout: 15_000 });

  // Back with a NEW token: this page's token is refused; it says what to do.
  await stack().stopHost();
  await expect(banner).toBeVisible({ timeout: 15_000 });
  const freshUrl = await stack().startHost({ token: `renewed-${Date.now().toString(36)}-0123456789` });
  const expired = page.getByRole('alert').filter({ hasText: EXPIRED });
  await expect(expired).toBeVisible({ timeout: 30_000 });
  await expect(feed.locator('strong')).toHaveText('Session expired');
  // Opening the newly printed URL (another tab) stores the new token for this address: this page comes back by itself.
  const other = await context.newPage();
  await openApp(other, { url: freshUrl });
  await expect(expired).toBeHidden({ timeout: 30_000 });
  await expectFeedLive(page);
  await other.close();
});
