// Accessibility of every screen, dialog and panel: axe-core (WCAG 2.1 A and AA, colour contrast
// included) in both themes, against the real app on a sandbox with a catalog, trades of every
// kind, an alert rule and a saved recipient.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { merchantApi, tradeUrlFor } from '../test/support/sandboxHttp';
import { dataRows, goTo, openApp, TRADE_URL } from './support/app';
import { expect, test, useStack } from './support/stack';

const DONE = {
  itemId: 6_000_001,
  assetId: '60000001',
  market_hash_name: 'USP-S | Axe Harbor (Field-Tested)',
  price: 1500,
};
const REVERSED = {
  itemId: 6_000_002,
  assetId: '60000002',
  market_hash_name: 'AWP | Axe Vale (Field-Tested)',
  price: 4000,
};
const OPEN = {
  itemId: 6_000_003,
  assetId: '60000003',
  market_hash_name: 'AK-47 | Axe Reef (Minimal Wear)',
  price: 2500,
};
const ON_SALE = {
  itemId: 6_000_004,
  assetId: '60000004',
  market_hash_name: 'M4A4 | Axe Spire (Field-Tested)',
  price: 3100,
};

const stack = useStack({
  items: 800,
  seed: 12,
  merchant: { balance: 500_000 },
  async prepare({ sandbox, admin, merchant }) {
    await admin.post('/admin/items', { items: [DONE, REVERSED, OPEN, ON_SALE] });
    const api = merchantApi(sandbox, merchant);
    const buy = async (l: typeof DONE, n: number) => {
      const answer = await api.post<{ tradeId: string }>('/Items/Buy', {
        itemId: l.itemId,
        assetId: l.assetId,
        price: l.price,
        tradeUrl: tradeUrlFor(30 + n),
        externalId: `A11Y-${n}`,
      });
      if (answer.status !== 200) throw new Error(`buy: ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer.body.tradeId;
    };
    const done = await buy(DONE, 1);
    await admin.transition(done, { status: 'SENT' });
    await admin.transition(done, { status: 'COMPLETED' });
    const reversed = await buy(REVERSED, 2);
    await admin.transition(reversed, { status: 'SENT' });
    await admin.transition(reversed, { status: 'COMPLETED' });
    await admin.transition(reversed, { status: 'REVERSED', errorCode: 512 });
    await buy(OPEN, 3);
  },
});

test.describe.configure({ timeout: 180_000 });

/** axe's WCAG 2.1 A/AA findings on what is on screen now, one line each (empty when clean). */
async function violations(page: Page, include?: string): Promise<string[]> {
  let builder = new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']);
  if (include) builder = builder.include(include);
  const result = await builder.analyze();
  return result.violations.flatMap((v) =>
    v.nodes.map(
      (node) =>
        `${v.id} (${v.impact ?? 'n/a'}): ${node.target.join(' ')} — ${node.failureSummary?.replace(/\s+/g, ' ') ?? v.help}`,
    ),
  );
}

async function expectClean(page: Page, where: string, include?: string): Promise<void> {
  // Let transitions and animations (a panel fading in, a theme change) finish: axe reads computed colours.
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((animation) => animation.effect?.getComputedTiming().iterations !== Infinity)
        .map((animation) => animation.finished.catch(() => undefined)),
    ),
  );
  // Soft: one run lists the findings of every screen.
  expect.soft(await violations(page, include), `axe on ${where}`).toEqual([]);
}

async function everyScreen(page: Page, theme: string): Promise<void> {
  // Catalog, then an item's detail panel.
  await goTo(page, 'Catalog');
  await expect(dataRows(page).first()).toBeVisible({ timeout: 30_000 });
  await expectClean(page, `${theme}: Catalog`);
  await page.getByRole('searchbox', { name: 'Search items' }).fill('Axe Spire');
  await dataRows(page).filter({ hasText: ON_SALE.market_hash_name }).first().click();
  const detail = page.getByRole('complementary', { name: 'Item detail' });
  await expect(detail.getByRole('heading', { level: 2 })).toHaveText(ON_SALE.market_hash_name);
  await expectClean(page, `${theme}: item detail panel`);

  // The buy dialog, its confirm step, and buy by name with its suggestions.
  await detail.getByRole('button', { name: 'Buy', exact: true }).click();
  const buy = page.getByRole('dialog', { name: 'Buy item' });
  await expect(buy).toBeVisible();
  await expectClean(page, `${theme}: buy dialog`);
  await buy.getByLabel('Recipient trade URL').fill(TRADE_URL);
  await buy.getByRole('button', { name: 'Review buy' }).click();
  await expect(buy.getByRole('button', { name: 'Confirm buy' })).toBeEnabled();
  await expectClean(page, `${theme}: buy confirm step`);
  await page.keyboard.press('Escape');
  await expect(buy).toBeHidden();
  await page.getByRole('button', { name: 'Purchase by name' }).click();
  const byName = page.getByRole('dialog', { name: 'Buy by name' });
  await byName.getByRole('combobox', { name: 'Market hash name' }).fill('axe');
  await expect(byName.getByRole('listbox', { name: 'Names on sale' }).getByRole('option').first()).toBeVisible();
  await expectClean(page, `${theme}: buy-by-name dialog with suggestions`);
  await page.keyboard.press('Escape');
  await page.keyboard.press('Escape');
  await expect(byName).toBeHidden();

  // The command palette.
  await page.keyboard.press('Control+k');
  const palette = page.getByRole('dialog', { name: 'Command palette' });
  await expect(palette).toBeVisible();
  await expectClean(page, `${theme}: command palette`);
  await page.keyboard.press('Escape');
  await expect(palette).toBeHidden();

  // Trades (active, history) and a reversed trade's detail.
  await goTo(page, 'Trades');
  await expect(page.getByRole('table', { name: 'Trades' }).locator('tbody tr').first()).toBeVisible({
    timeout: 30_000,
  });
  await expectClean(page, `${theme}: Trades (active)`);
  await page.getByRole('tab', { name: 'History' }).click();
  const reversedRow = page
    .getByRole('table', { name: 'Trades' })
    .getByRole('row')
    .filter({ hasText: REVERSED.market_hash_name });
  await reversedRow.click();
  await expect(page.getByRole('complementary', { name: 'Trade detail' })).toContainText(REVERSED.market_hash_name);
  await expectClean(page, `${theme}: trade detail`);

  await goTo(page, 'Wallet');
  await expectClean(page, `${theme}: Wallet`);
  await goTo(page, 'Alerts');
  await expectClean(page, `${theme}: Alerts`);
  await goTo(page, 'Notifications');
  await expect(
    page
      .getByRole('list', { name: 'Notifications' })
      .or(page.getByRole('status').filter({ hasText: 'No notifications' })),
  ).toBeVisible({ timeout: 15_000 });
  const grouped = page
    .getByRole('list', { name: 'Notifications' })
    .getByRole('button', { name: /^Show \d+$/ })
    .first();
  if (await grouped.isVisible()) await grouped.click();
  await expectClean(page, `${theme}: Notifications`);
  await goTo(page, 'Settings');
  await expectClean(page, `${theme}: Settings`);
}

test('every screen, panel and dialog passes axe (WCAG 2.1 AA) in the dark and the light theme', async ({ page }) => {
  await openApp(page, stack());
  await everyScreen(page, 'dark');
  await goTo(page, 'Settings');
  await page.getByRole('radio', { name: /light/i }).check();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await everyScreen(page, 'light');
});

test('typing in any text field of any screen types there: no single-key shortcut fires (b, n, /, e, a, r, g then a screen)', async ({
  page,
}) => {
  await openApp(page, stack());
  // Every screen with a text field (Notifications has none).
  const screens = ['Catalog', 'Trades', 'Wallet', 'Alerts', 'Settings'] as const;
  const typed = 'gtbn/ear';
  for (const screen of screens) {
    await goTo(page, screen);
    if (screen === 'Catalog') await expect(dataRows(page).first()).toBeVisible({ timeout: 30_000 });
    const fields = page.locator(
      'main input:visible:not([type=checkbox]):not([type=radio]):not([type=range]):not([disabled]), main textarea:visible',
    );
    const count = await fields.count();
    expect(count, `text fields on ${screen}`).toBeGreaterThan(0);
    for (let i = 0; i < count; i++) {
      const field = fields.nth(i);
      const before = await field.inputValue();
      await field.focus();
      await page.keyboard.type(typed);
      const where = `${screen}, field ${(await field.getAttribute('aria-label')) ?? (await field.getAttribute('id')) ?? i}`;
      await expect(page.getByRole('dialog'), where).toHaveCount(0);
      await expect(page.getByRole('heading', { level: 1 }), where).toHaveText(screen);
      await expect(field, where).toBeFocused();
      await field.fill(before);
    }
  }
});
