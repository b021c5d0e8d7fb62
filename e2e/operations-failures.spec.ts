// Operations → Failures against the real sandbox: the empty board, then outcomes forced through the sandbox's admin
// transition (a decline 504 and an expiry 503) appearing live; from the keyboard only: arrow keys to the 504 cell,
// Enter opens Trades filtered to it; the CSV of the board; axe in both themes.
import { readFileSync } from 'node:fs';
import type { Item } from '../src/shared/api';
import { openApp } from './support/app';
import { expectAxeClean } from './support/axe';
import { goToOperations } from './support/operations';
import { expect, test, useStack } from './support/stack';

const stack = useStack({ items: 100, seed: 35, merchant: { balance: 100_000 } });

test.describe.configure({ timeout: 180_000 });

async function endedTrade(itemId: number, partner: number, status: string, errorCode: number): Promise<string> {
  const item = (await stack().admin.post<{ items: Item[] }>('/admin/items', { items: [{ itemId, price: 1234 }] })).body
    .items[0] as Item;
  const bought = await stack().api.post<{ tradeId: string }>('/Items/Buy', {
    itemId: item.itemId,
    assetId: item.assetId,
    price: item.price,
    tradeUrl: `https://steamcommunity.com/tradeoffer/new/?partner=${partner}&token=AbCd1234`,
    externalId: `OPS-FAIL-${itemId}`,
  });
  expect(bought.status).toBe(200);
  await stack().admin.transition(bought.body.tradeId, { status: 'SENT' });
  await stack().admin.transition(bought.body.tradeId, { status, errorCode });
  return bought.body.tradeId;
}

test('failures board: empty, live outcomes, a cell opened from the keyboard, the CSV, axe in both themes', async ({
  page,
}, testInfo) => {
  await openApp(page, stack());
  await goToOperations(page);
  const section = page.getByRole('region', { name: 'Failures', exact: true });
  await expect(section.getByText('No failures in this range')).toBeVisible({ timeout: 30_000 });
  await expectAxeClean(page, 'dark: Failures, empty');

  const declined = await endedTrade(9_200_001, 70_001, 'CANCELLED', 504);
  await endedTrade(9_200_002, 70_002, 'EXPIRED', 503);
  const today = new Date().toISOString().slice(0, 10);
  const byDay = section.getByRole('table', { name: /By day \(UTC\)/ });
  // Live: the engine's "failures changed" event makes the view read again.
  const cell = byDay.getByRole('button', { name: `1 trades: Declined (504), ${today}, $12.34. Open the trades` });
  await expect(cell).toBeVisible({ timeout: 15_000 });
  await expect(
    byDay.getByRole('button', { name: `1 trades: Expired (503), ${today}, $12.34. Open the trades` }),
  ).toBeVisible();
  await expect(section.getByRole('table', { name: /Today by hour/ })).toBeVisible();
  await expectAxeClean(page, 'dark: Failures, two outcomes');

  // Keyboard only: the table's one tab stop is its first cell (today's first column, Expired 503); → to Declined 504.
  const first = byDay.getByRole('button', { name: new RegExp(`^1 trades: Expired \\(503\\), ${today}`) });
  await first.focus();
  await page.keyboard.press('ArrowRight');
  await expect(cell).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await expect(first).toBeFocused();
  await page.keyboard.press('ArrowRight');

  // The CSV, from the keyboard too (Shift+Tab back to the range's Export button is long: focus it, Enter).
  const exportButton = section.getByRole('button', { name: 'Export CSV' });
  await exportButton.focus();
  const [file] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
  const path = testInfo.outputPath(file.suggestedFilename());
  await file.saveAs(path);
  const csv = readFileSync(path, 'utf8');
  expect(file.suggestedFilename()).toMatch(/^failures-.*\.csv$/);
  expect(csv).toContain(`${today},trade,CANCELLED,504,Declined (504),1,12.34`);
  expect(csv).toContain(`${today},trade,EXPIRED,503,Expired (503),1,12.34`);

  await cell.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Trades' })).toBeVisible();
  await expect(page.getByRole('button', { name: /Remove the failures board filter: Outcome 504/ })).toBeVisible();
  const rows = page.getByRole('table').first().locator('tbody tr');
  await expect(rows).toHaveCount(1, { timeout: 15_000 });
  await expect(rows.first()).toContainText('OPS-FAIL-9200001');
  expect(declined).toBeTruthy();

  // The light theme.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
  await page.getByRole('radio', { name: /light/i }).check();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await goToOperations(page);
  await expect(cell).toBeVisible({ timeout: 15_000 });
  await expectAxeClean(page, 'light: Failures, two outcomes');
});
