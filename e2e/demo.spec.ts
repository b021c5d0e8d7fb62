// First run in demo mode: no account, a fresh data dir, no --base-url. The web host starts
// its embedded demo sandbox (simulated market) and the catalog fills by itself.
import AxeBuilder from '@axe-core/playwright';
import { catalogGrid, expectFeedLive, expectRowsRendered, goTo, openApp, screenshot, statusBar } from './support/app';
import { expect, test, useStack } from './support/stack';

const stack = useStack({ demo: true });

test('first run in demo mode fills the catalog over a live feed', async ({ page }, testInfo) => {
  test.setTimeout(90_000);
  await openApp(page, stack());

  // The catalog fills from the demo sandbox (20,000 generated items).
  await expect(catalogGrid(page)).toBeVisible();
  // (The simulator's first new listings can arrive over the feed before the first sync ends.)
  await expectRowsRendered(page, 15, 60_000);
  await expect(page.getByLabel('Catalog summary')).toContainText(/\b(19|20),\d{3} items/);

  // Live feed, and it says plainly this is the demo.
  await expectFeedLive(page);
  await expect(statusBar(page)).toContainText('Live feed connected');
  await expect(statusBar(page).getByText('DEMO', { exact: true })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' }).getByText('DEMO SANDBOX')).toBeVisible();

  await screenshot(page, testInfo, 'demo-first-run');

  // Settings in the light theme, the demo switch on (its DEMO tag on the switch's warm tint): WCAG AA contrast.
  await goTo(page, 'Settings');
  await page.getByRole('radio', { name: /light/i }).check();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await expect(page.getByRole('switch', { name: 'Demo sandbox' })).toBeChecked();
  // The web host has no updates: no Settings → Updates, and nothing about them in the status bar.
  await expect(page.getByRole('heading', { name: 'Appearance' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Updates' })).toHaveCount(0);
  await expect(page.getByRole('switch', { name: 'Check for updates' })).toHaveCount(0);
  await expect(statusBar(page).getByText(/update/i)).toHaveCount(0);
  // Choosing the theme scrolled to Appearance: back to the switch (axe judges what is in view).
  await page.getByRole('switch', { name: 'Demo sandbox' }).scrollIntoViewIfNeeded();
  // axe reads computed colours: let the theme's transitions end first.
  await page.evaluate(() =>
    Promise.all(document.getAnimations().map((animation) => animation.finished.catch(() => undefined))),
  );
  const axe = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .include('.settings-screen')
    .analyze();
  expect(
    axe.violations.flatMap((v) =>
      v.nodes.map((node) => `${v.id}: ${node.target.join(' ')} ${node.failureSummary ?? ''}`),
    ),
  ).toEqual([]);
});
