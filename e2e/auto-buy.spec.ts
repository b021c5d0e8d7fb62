// Auto-buy's guard rails in Chromium: a rule needs a maximum price; saving shows what matches now and
// buys only new listings unless told otherwise; a dry run records "would buy" and sends nothing; stop-all
// from the hotkey, the status bar and the palette; spend today in the status bar and on the Alerts screen;
// skips folded into one line per rule and day.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { formatCents } from '../src/shared/money';
import { tradeUrlFor } from '../test/support/sandboxHttp';
import { expectFeedLive, goTo, openApp, statusBar } from './support/app';
import { expect, test, useStack } from './support/stack';

const ON_SALE = [
  { itemId: 4_000_001, assetId: '40000001', market_hash_name: 'P250 | Zircon Ember (Field-Tested)', price: 400 },
  { itemId: 4_000_002, assetId: '40000002', market_hash_name: 'P250 | Zircon Ember (Minimal Wear)', price: 500 },
  { itemId: 4_000_003, assetId: '40000003', market_hash_name: 'P250 | Zircon Ember (Well-Worn)', price: 600 },
];
const listing = (n: number, name: string, price: number) => ({
  itemId: 4_100_000 + n,
  assetId: String(41_000_000 + n),
  market_hash_name: name,
  price,
});

const stack = useStack({
  items: 3000,
  seed: 23,
  merchant: { balance: 100_000 },
  async prepare({ admin }) {
    await admin.post('/admin/items', { items: ON_SALE });
  },
});

test.describe.configure({ timeout: 120_000 });

const firingRows = (page: Page) => page.getByRole('table', { name: 'Alert firings' }).locator('tbody tr');
const skipLine = (page: Page, rule: string) =>
  page.getByRole('list', { name: 'Auto-buy skips by rule and day' }).getByRole('listitem').filter({ hasText: rule });
const serverTrades = async () =>
  (await stack().api.get<{ trades: { itemId: number }[] }>('/Trades/History')).body.trades;

async function axeFindings(page: Page, selector: string): Promise<string[]> {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .include(selector)
    .analyze();
  return result.violations.flatMap((v) => v.nodes.map((node) => `${v.id}: ${node.target.join(' ')}`));
}

test('auto-buy: preview on save, only new listings, dry run, stop-all from the hotkey, the status bar and the palette', async ({
  page,
}) => {
  await openApp(page, stack());
  await expectFeedLive(page);

  await goTo(page, 'Settings');
  const recipients = page.getByRole('region', { name: 'Saved recipients' });
  await recipients.getByLabel('Label').fill('Desk');
  await recipients.getByLabel('Trade URL').fill(tradeUrlFor(41));
  await recipients.getByRole('button', { name: 'Add recipient' }).click();
  await expect(recipients.getByRole('list', { name: 'Saved recipients' })).toContainText('Desk');

  await goTo(page, 'Alerts');
  await page.getByRole('button', { name: 'New rule' }).click();
  const dialog = page.getByRole('dialog', { name: 'New alert rule' });
  await dialog.getByLabel('Rule name').fill('Zircon auto');
  await dialog.getByLabel('Name contains').fill('Zircon Ember');
  await dialog.getByRole('checkbox', { name: 'Buy matching items automatically' }).check();
  await dialog.getByRole('combobox', { name: 'Recipient' }).selectOption({ index: 1 });
  await dialog.getByLabel('Total spend cap ($)').fill('100');
  await dialog.getByLabel('Daily cap ($)').fill('50');
  // No maximum price: refused, and the form says why.
  await dialog.getByRole('button', { name: 'Save rule' }).click();
  await expect(dialog.getByText('Auto-buy needs a maximum price per item')).toBeVisible();
  await dialog.getByLabel('Max price ($)').fill('10');

  // The preview: the three on sale now, $15 in all; "only new listings" is the default.
  const existing = dialog.getByRole('group', { name: 'Listings on sale now' });
  await expect(existing).toContainText(`3 listings on sale match now, ${formatCents(1500)} in total`, {
    timeout: 15_000,
  });
  await expect(existing.getByRole('radio', { name: /^Only new listings/ })).toBeChecked();
  await expect(
    existing.getByRole('radio', { name: `Also the 3 listed now (total ${formatCents(1500)})` }),
  ).not.toBeChecked();
  expect(await axeFindings(page, '.rule-dialog')).toEqual([]);
  await dialog.getByRole('button', { name: 'Save rule' }).click();
  await expect(dialog).toBeHidden();

  // Nothing listed at save time is bought: the three fold into one quiet line, no red rows.
  await expect(skipLine(page, 'Zircon auto')).toContainText(
    '3 matches not bought: listed before the rule was armed (only new listings)',
    { timeout: 20_000 },
  );
  await expect(firingRows(page)).toHaveCount(0);
  // A new listing is bought; the spend shows in the status bar and on the Alerts screen.
  await stack().admin.post('/admin/items', { items: [listing(1, 'P250 | Zircon Ember (Factory New)', 700)] });
  await expect(firingRows(page).filter({ hasText: 'Zircon Ember (Factory New)' })).toContainText(
    'bought · open trade',
    { timeout: 20_000 },
  );
  await expect(statusBar(page).getByRole('button', { name: /^Auto-buy/ })).toContainText(`${formatCents(700)} today`);
  const today = page.getByRole('region', { name: 'Auto-buy today' });
  await expect(today.getByRole('table', { name: 'Auto-buy spend today by rule' })).toContainText(
    `Zircon auto${formatCents(700)}`,
  );
  expect((await serverTrades()).map((t) => t.itemId)).toEqual([4_100_001]);

  // Stop-all from the hotkey: the next listing is not bought.
  await page.getByRole('heading', { level: 1, name: 'Alerts' }).click();
  await page.keyboard.press('Control+Shift+X');
  const resume = statusBar(page).getByRole('button', { name: /Auto-buy stopped/ });
  await expect(resume).toBeVisible();
  await expect(today.getByRole('status')).toContainText('All auto-buy is stopped');
  await stack().admin.post('/admin/items', { items: [listing(2, 'P250 | Zircon Ember (Battle-Scarred)', 300)] });
  await expect(skipLine(page, 'Zircon auto')).toContainText('auto-buy is stopped (stop all)', { timeout: 20_000 });
  expect(await serverTrades()).toHaveLength(1);

  // Resume from the status bar, stop again from the palette.
  await resume.click();
  await expect(statusBar(page).getByRole('button', { name: 'Stop all auto-buy' })).toBeVisible();
  await page.keyboard.press('Control+k');
  await page.keyboard.type('stop all auto-buy');
  await page.keyboard.press('Enter');
  await expect(statusBar(page).getByRole('button', { name: /Auto-buy stopped/ })).toBeVisible();
  await today.getByRole('button', { name: 'Resume auto-buy' }).click();
  await expect(statusBar(page).getByRole('button', { name: 'Stop all auto-buy' })).toBeVisible();

  // Switching the rule off and on again asks again: the four Zircons on sale now, only new listings by default.
  const zircon = page.getByRole('table', { name: 'Alert rules' }).locator('tbody tr', { hasText: 'Zircon auto' });
  await zircon.getByRole('switch', { name: 'Enable Zircon auto' }).click();
  await expect(zircon.getByRole('switch', { name: 'Enable Zircon auto' })).not.toBeChecked();
  // The switch opens the preview instead of switching at once.
  await zircon.getByRole('switch', { name: 'Enable Zircon auto' }).click();
  const enabling = page.getByRole('dialog', { name: 'Enable “Zircon auto”' });
  await expect(enabling.getByRole('group', { name: 'Listings on sale now' })).toContainText(
    `4 listings on sale match now, ${formatCents(1800)} in total`,
    {
      timeout: 15_000,
    },
  );
  await expect(enabling.getByRole('radio', { name: /^Only new listings/ })).toBeChecked();
  await enabling.getByRole('button', { name: 'Enable rule' }).click();
  await expect(enabling).toBeHidden();
  await expect(zircon.getByRole('switch', { name: 'Enable Zircon auto' })).toBeChecked();

  // Dry run: "would buy at $3.00" recorded, nothing sent.
  await page.getByRole('button', { name: 'New rule' }).click();
  await dialog.getByLabel('Rule name').fill('Quartz dry');
  await dialog.getByLabel('Name contains').fill('Quartz Haze');
  await dialog.getByLabel('Max price ($)').fill('5');
  await dialog.getByRole('checkbox', { name: 'Buy matching items automatically' }).check();
  await dialog.getByRole('combobox', { name: 'Recipient' }).selectOption({ index: 1 });
  await dialog.getByLabel('Total spend cap ($)').fill('20');
  await dialog.getByLabel('Daily cap ($)').fill('10');
  await dialog.getByRole('checkbox', { name: /^Dry run/ }).check();
  await dialog.getByRole('button', { name: 'Save rule' }).click();
  await expect(dialog).toBeHidden();
  await expect(
    page.getByRole('table', { name: 'Alert rules' }).locator('tbody tr', { hasText: 'Quartz dry' }),
  ).toContainText('dry run');
  await stack().admin.post('/admin/items', { items: [listing(3, 'MAC-10 | Quartz Haze (Field-Tested)', 300)] });
  await expect(firingRows(page).filter({ hasText: 'Quartz Haze' })).toContainText(
    `dry run · would buy at ${formatCents(300)}`,
    { timeout: 20_000 },
  );
  expect(await serverTrades()).toHaveLength(1);
  expect(await axeFindings(page, '.alerts-screen')).toEqual([]);
  expect(await axeFindings(page, '.statusbar')).toEqual([]);
});
