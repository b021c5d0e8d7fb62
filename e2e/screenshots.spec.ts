// Screenshots of every main screen at 1440×900, taken from the real app on the demo
// sandbox (simulated market) after a few real interactions, and of the operations views on a merchant with three
// days of history. Each is a test artifact (test-results/); with MERCHANT_DESK_SCREENSHOTS=1 it is also copied to
// docs/screenshots/<name>.png (the README shows several).
import type { Locator, Page } from '@playwright/test';
import {
  catalogGrid,
  dataRows,
  expectFeedLive,
  goTo,
  openApp,
  openFilterSection,
  rowPrice,
  screenshot,
  statusBar,
  TRADE_URL,
} from './support/app';
import { expect, test, useStack } from './support/stack';

test.use({ viewport: { width: 1440, height: 900 }, colorScheme: 'dark' });

/** A still page: no toasts, no hover, every image decoded. */
async function settle(page: Page): Promise<void> {
  const dismiss = page.getByRole('button', { name: 'Dismiss notification' });
  while ((await dismiss.count()) > 0) await dismiss.first().click();
  await page.mouse.move(1439, 450);
  await page.waitForFunction(() => Array.from(document.images).every((img) => img.complete));
}

async function shoot(page: Page, name: string): Promise<void> {
  await settle(page);
  await screenshot(page, test.info(), name, true);
}

/** Buys what the "Buy item" dialog shows, to the test trade URL. */
async function buyOpenDialog(page: Page, dialog: Locator, externalId?: string): Promise<void> {
  await dialog.getByLabel('Recipient trade URL').fill(TRADE_URL);
  if (externalId) await dialog.getByLabel('Order ID (optional)').fill(externalId);
  await dialog.getByRole('button', { name: 'Review buy' }).click();
  await dialog.getByRole('button', { name: 'Confirm buy' }).click();
  await expect(dialog).toBeHidden();
  await expect(page).toHaveURL(/#\/trades\//);
}

test.describe('the demo', () => {
  const stack = useStack({ demo: true });

  test('screenshots of every main screen', async ({ page }) => {
    test.setTimeout(150_000);
    await openApp(page, stack());
    await expectFeedLive(page, 60_000);
    await expect(dataRows(page).first()).toBeVisible({ timeout: 60_000 });
    const detail = page.getByRole('complementary', { name: 'Item detail' });

    await test.step('catalog: most expensive first, a row open in the detail panel', async () => {
      // The market has moved once items changed off-screen ("N new or changed — show").
      await expect(page.getByRole('button', { name: /new or changed/ })).toBeVisible({ timeout: 30_000 });
      await catalogGrid(page).getByRole('button', { name: 'Price', exact: true }).click();
      await expect(catalogGrid(page).getByRole('columnheader', { name: 'Price' })).toHaveAttribute(
        'aria-sort',
        'descending',
      );
      await expect.poll(async () => (await rowPrice(dataRows(page).first())) > 100_000).toBe(true);
      const row = dataRows(page).nth(2);
      await row.click();
      await expect(row).toHaveAttribute('aria-selected', 'true');
      await expect(detail.getByRole('region', { name: 'Properties' })).toContainText('Class ID');
      await expect(detail.getByRole('region', { name: 'Stickers' })).toBeVisible();
      await shoot(page, 'catalog');
    });

    await test.step('item detail: an item with stickers, scrolled to them', async () => {
      await openFilterSection(page, 'Sticker combos');
      await page.getByRole('combobox', { name: 'Stickers' }).selectOption('yes');
      await expect(page.getByLabel('Catalog summary')).toContainText('matching');
      await page.getByRole('button', { name: 'Sticker combos 1 set' }).click();
      const row = dataRows(page)
        .filter({ has: page.locator('.attach .count') })
        .first();
      await row.click();
      const stickers = detail.getByRole('region', { name: 'Stickers' });
      await expect(stickers.locator('.attach-list li').first()).toBeVisible();
      await stickers.scrollIntoViewIfNeeded();
      await shoot(page, 'detail');
    });

    await test.step('buy dialog', async () => {
      await detail.getByRole('button', { name: 'Buy', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Buy item' });
      await dialog.getByLabel('Recipient trade URL').fill(TRADE_URL);
      await dialog.getByLabel('Order ID (optional)').fill('ORD-10423');
      await expect(dialog.getByText('Valid trade URL')).toBeVisible();
      await shoot(page, 'buy');
      await dialog.getByRole('button', { name: 'Review buy' }).click();
      await dialog.getByRole('button', { name: 'Confirm buy' }).click();
      await expect(dialog).toBeHidden();
      await expect(page).toHaveURL(/#\/trades\//);
    });

    await test.step('trades: a few buys, one open in the detail panel', async () => {
      for (const [index, order] of [
        [0, 'ORD-10424'],
        [3, 'ORD-10425'],
        [6, null],
      ] as const) {
        await goTo(page, 'Catalog');
        const clear = page.getByRole('button', { name: /^Clear filters/ });
        if (await clear.isEnabled()) await clear.click();
        await expect(page.getByLabel('Catalog summary')).not.toContainText('matching');
        const row = dataRows(page).nth(index);
        await row.click();
        await expect(detail).toBeVisible();
        await detail.getByRole('button', { name: 'Buy', exact: true }).click();
        await buyOpenDialog(page, page.getByRole('dialog', { name: 'Buy item' }), order ?? undefined);
      }
      const table = page.getByRole('table', { name: 'Trades' });
      // The simulator sends offers within 2–6 s; show the list once one has moved on.
      await page.getByRole('tab', { name: 'History' }).click();
      await expect(table.locator('tbody tr')).toHaveCount(4);
      await expect(
        table
          .locator('.status-badge')
          .filter({ hasNotText: /pending/i })
          .first(),
      ).toBeVisible({ timeout: 30_000 });
      await table
        .locator('tbody tr')
        .filter({ hasNot: page.locator('.status-badge', { hasText: /pending/i }) })
        .first()
        .click();
      const tradeDetail = page.getByRole('complementary', { name: 'Trade detail' });
      await expect(tradeDetail.getByRole('region', { name: 'Status timeline' }).locator('li')).not.toHaveCount(0);
      await shoot(page, 'trades');
    });

    await test.step('wallet', async () => {
      await goTo(page, 'Wallet');
      // One freeze per buy (the ledger syncs in the background after each).
      const types = page.getByRole('table', { name: 'Ledger' }).locator('.type-tag');
      await expect
        .poll(async () => (await types.allTextContents()).filter((t) => t === 'FREEZE').length, { timeout: 30_000 })
        .toBe(4);
      await expect(page.getByRole('region', { name: 'Balance over time' }).locator('svg').first()).toBeVisible();
      await shoot(page, 'wallet');
    });

    await test.step('alerts: two watchlist rules, one buying automatically within its caps', async () => {
      // Auto-buy delivers to a saved recipient.
      await goTo(page, 'Settings');
      const recipients = page.getByRole('region', { name: 'Saved recipients' });
      await recipients.getByLabel('Label').fill('Main storage');
      await recipients.getByLabel('Trade URL').fill(TRADE_URL);
      await recipients.getByRole('button', { name: 'Add recipient' }).click();
      await expect(recipients.getByRole('list', { name: 'Saved recipients' })).toContainText('Main storage');

      await goTo(page, 'Alerts');
      for (const [name, pattern, max, auto] of [
        ['Asiimov under $10', 'Asiimov', '10', true],
        ['Howl watch', 'Howl', '', false],
      ] as const) {
        await page.getByRole('button', { name: 'New rule' }).click();
        const dialog = page.getByRole('dialog', { name: 'New alert rule' });
        await dialog.getByLabel('Rule name').fill(name);
        await dialog.getByLabel('Name contains').fill(pattern);
        if (max) await dialog.getByLabel('Max price ($)').fill(max);
        if (auto) {
          await dialog.getByRole('checkbox', { name: 'Buy matching items automatically' }).check();
          await dialog.getByRole('combobox', { name: 'Recipient' }).selectOption({ index: 1 });
          await dialog.getByLabel('Total spend cap ($)').fill('10000');
          await dialog.getByLabel('Daily cap ($)').fill('5000');
          // Auto-buy buys only new listings unless told to take the ones on sale now too.
          await dialog.getByRole('radio', { name: /^Also the \d+ listed now/ }).check();
        }
        await dialog.getByRole('button', { name: 'Save rule' }).click();
        await expect(dialog).toBeHidden();
      }
      await expect(page.getByRole('table', { name: 'Alert rules' }).locator('tbody tr')).toHaveCount(2);
      // A new rule is checked against the catalog at once: the Howls on sale fire, an Asiimov listed now is bought.
      const firings = page.getByRole('table', { name: 'Alert firings' }).locator('tbody tr');
      await expect(firings.first()).toBeVisible({ timeout: 30_000 });
      await expect(firings.filter({ hasText: 'bought · open trade' }).first()).toBeVisible({ timeout: 30_000 });
      // Keyboard-first: the newest firing selected, ready for A or R.
      await page.getByRole('heading', { level: 1, name: 'Alerts' }).click();
      await page.keyboard.press('ArrowDown');
      await expect(firings.first()).toHaveAttribute('aria-selected', 'true');
      await shoot(page, 'alerts');
    });

    await test.step('operations: the recipients of the buys above, the failures board, reversals, webhooks', async () => {
      await goTo(page, 'Operations');
      await expect(page.getByRole('region', { name: 'Recipients' }).locator('tbody tr').first()).toBeVisible({
        timeout: 30_000,
      });
      await shoot(page, 'operations');
    });

    await test.step('settings', async () => {
      await goTo(page, 'Settings');
      await expect(page.getByRole('radiogroup', { name: 'Theme' })).toBeVisible();
      await shoot(page, 'settings');
    });

    await test.step('light theme', async () => {
      await page.getByRole('radiogroup', { name: 'Theme' }).getByText('Light').click();
      await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
      await goTo(page, 'Catalog');
      await dataRows(page).nth(1).click();
      await expect(detail.getByRole('region', { name: 'Properties' })).toContainText('Class ID');
      await shoot(page, 'light');
    });
  });
});

/**
 * The operations views need what the demo lacks at first: a merchant's past. The sandbox writes three days of one
 * (`POST /admin/merchants/:id/history`: declines, expiries, sales elsewhere, reversals with their ledger rollback,
 * webhook deliveries missed while the merchant's endpoint was down), then the desk syncs it like any account.
 */
test.describe('a merchant with three days of history', () => {
  const stack = useStack({
    items: 2000,
    seed: 35,
    // A fixed id: the history's draws (its endpoint's outages among them) follow the merchant id and the seed.
    merchant: { balance: 5_000_000, merchantId: 'acme-ops' },
    startTimeoutMs: 120_000,
    async prepare({ admin, merchant }) {
      const seeded = await admin.post(`/admin/merchants/${merchant.merchantId}/history`, {
        days: 3,
        tradesPerDay: 800,
        recipients: 120,
        seed: 7,
      });
      if (seeded.status !== 201) throw new Error(`history: ${seeded.status} ${JSON.stringify(seeded.body)}`);
    },
  });

  /** Scrolls the Operations section named `name` to the top of the screen. */
  async function showSection(page: Page, name: string): Promise<Locator> {
    const section = page.getByRole('region', { name, exact: true });
    await section.evaluate((element) => element.scrollIntoView({ block: 'start' }));
    return section;
  }

  test('screenshots of reversals, webhook health, failures, recipients, the balance runway and an order chain', async ({
    page,
  }) => {
    test.setTimeout(240_000);
    await openApp(page, stack());
    await expectFeedLive(page, 90_000);

    await test.step('reversals: exposure, release schedule, the reversed trades and their rollbacks', async () => {
      await goTo(page, 'Operations');
      // Once the back-fill and the ledger are in: the exposure counted, each reversal beside its ledger rollback.
      await expect(statusBar(page).getByText('Trade history back-fill')).toBeHidden({ timeout: 90_000 });
      const reversals = page.getByRole('region', { name: 'Reversals', exact: true });
      await expect(reversals.locator('.card-value')).not.toHaveText('$0.00', { timeout: 90_000 });
      const reversed = reversals.getByRole('table', { name: /Reversed trades/ }).locator('tbody tr');
      await expect(reversed.first()).toContainText(/#\d+/, { timeout: 90_000 });
      await expect(reversals.getByText('Not in the cached ledger yet')).toHaveCount(0, { timeout: 90_000 });
      // The section below shows at the bottom of the shot: read by then too.
      const health = page.getByRole('region', { name: 'Webhook health', exact: true });
      await expect(health.getByRole('table', { name: /Failed deliveries/ })).toBeVisible({ timeout: 90_000 });
      await showSection(page, 'Reversals');
      await shoot(page, 'operations-reversals');
    });

    await test.step('webhook health: deliveries missed while the endpoint was down', async () => {
      await showSection(page, 'Webhook health');
      await shoot(page, 'operations-webhooks');
    });

    await test.step('the failures board: each day by outcome code and refusal, today by hour', async () => {
      const failures = page.getByRole('region', { name: 'Failures', exact: true });
      await expect(failures.getByRole('table').first()).toBeVisible({ timeout: 30_000 });
      await showSection(page, 'Failures');
      await shoot(page, 'operations-failures');
    });

    await test.step('recipients: the most declines and expiries in 24 h first, against the 10 that block', async () => {
      const recipients = page.getByRole('region', { name: 'Recipients', exact: true });
      await recipients.getByRole('button', { name: /^Declined or expired/ }).click();
      await expect(recipients.getByRole('columnheader', { name: /^Declined or expired/ })).toHaveAttribute(
        'aria-sort',
        'descending',
      );
      await expect(recipients.locator('tbody tr').first()).toBeVisible();
      await showSection(page, 'Recipients');
      await shoot(page, 'operations-recipients');
    });

    await test.step('the balance runway beside the balance', async () => {
      await goTo(page, 'Wallet');
      const runway = page.getByRole('region', { name: 'Balance runway' });
      await expect(runway.getByTestId('runway-line')).toHaveText(/^About /, { timeout: 30_000 });
      await expect(
        runway
          .getByRole('table', { name: /Top-ups and deposits/ })
          .locator('tbody tr')
          .first(),
      ).toBeVisible();
      await shoot(page, 'wallet-runway');
    });

    await test.step('an order sold elsewhere bought again: the chain in the trade detail', async () => {
      // The newest order of the history that ended sold elsewhere (505), and a cheaper listing of its name.
      const cancelled = await stack().api.get<{
        trades: {
          tradeId: string;
          errorCode: number | null;
          price: number;
          market_hash_name: string;
          phase: string | null;
        }[];
      }>('/Trades/History?status=CANCELLED&limit=500');
      const sold = cancelled.body.trades.find((trade) => trade.errorCode === 505);
      if (!sold) throw new Error('the history has no trade sold elsewhere');
      const listed = await stack().admin.post('/admin/items', {
        items: [
          {
            itemId: 9_500_001,
            market_hash_name: sold.market_hash_name,
            phase: sold.phase,
            price: Math.max(1, Math.round(sold.price * 0.96)),
          },
        ],
      });
      expect(listed.status).toBe(200);
      await openApp(page, stack(), `#/trades/${sold.tradeId}`);
      const detail = page.getByRole('complementary', { name: 'Trade detail' });
      await expect(detail.getByRole('region', { name: 'Order chain' })).toBeVisible({ timeout: 30_000 });
      await page.keyboard.press('Control+k');
      await page.keyboard.type('Buy the next one');
      await page.keyboard.press('Enter');
      const review = page.getByRole('dialog', { name: 'Buy the next one' });
      const confirm = review.getByRole('button', { name: 'Confirm buy' });
      await expect(confirm).toBeFocused({ timeout: 30_000 });
      await page.keyboard.press('Enter');
      await expect(review).toBeHidden({ timeout: 30_000 });
      const chain = detail.getByRole('region', { name: 'Order chain' });
      await expect(chain.getByRole('listitem')).toHaveCount(2, { timeout: 30_000 });
      await shoot(page, 'order-chain');
    });

    await test.step('webhook health in the light theme', async () => {
      await goTo(page, 'Settings');
      await page.getByRole('radiogroup', { name: 'Theme' }).getByText('Light').click();
      await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
      await goTo(page, 'Operations');
      const health = page.getByRole('region', { name: 'Webhook health', exact: true });
      await expect(
        health
          .getByRole('table', { name: /Failed deliveries/ })
          .locator('tbody tr')
          .first(),
      ).toBeVisible({
        timeout: 30_000,
      });
      await showSection(page, 'Webhook health');
      await shoot(page, 'operations-webhooks-light');
    });
  });
});
