// Operations → Recipients and Reversals against the real sandbox: empty first; buys for two recipients show up live,
// declines move one near the block, reversals by the seller and by the buyer move the exposure and say who reversed
// (only the buyer's make a recipient one who reversed); sort, filter, a recipient's trades and the CSV from the
// keyboard; axe in both themes; offline from the cache.
import { readFileSync } from 'node:fs';
import { goOffline, openApp } from './support/app';
import { expectAxeClean } from './support/axe';
import { buyFor, goToOperations } from './support/operations';
import { expect, test, useStack } from './support/stack';

const stack = useStack({ items: 100, seed: 35, merchant: { balance: 1_000_000 } });

test.describe.configure({ timeout: 180_000 });

test('recipients and reversals: empty, live rows, near the block, who reversed, sort, filter, trades, CSV; keyboard, axe, offline', async ({
  page,
}, testInfo) => {
  await openApp(page, stack());
  await goToOperations(page);
  const section = page.getByRole('region', { name: 'Recipients' });
  await expect(section.getByText('No recipients yet')).toBeVisible({ timeout: 30_000 });
  const reversals = page.getByRole('region', { name: 'Reversals' });
  await expect(reversals.getByText('Nothing reversible, nothing reversed')).toBeVisible();
  await expectAxeClean(page, 'dark: Recipients and Reversals, empty');

  // Buys made elsewhere (the merchant's back end) reach the open view through the feed, without a reload.
  const declined = await buyFor(stack(), 4242, 8, 9_200_001, 300);
  const delivered = await buyFor(stack(), 5151, 3, 9_200_101, 2500);
  const table = section.getByRole('table', { name: 'Recipients' });
  await expect(table.locator('tbody tr')).toHaveCount(2, { timeout: 15_000 });
  const near = table.getByRole('row', { name: /4242/ });
  await expect(near).toContainText('8 / 30');

  for (const tradeId of declined.slice(0, 7)) {
    await stack().admin.transition(tradeId, { status: 'SENT' });
    await stack().admin.transition(tradeId, { status: 'CANCELLED', errorCode: 504 });
  }
  for (const tradeId of delivered) {
    await stack().admin.transition(tradeId, { status: 'SENT' });
    await stack().admin.transition(tradeId, { status: 'COMPLETED' });
  }
  await expect(near).toContainText('7 / 10', { timeout: 15_000 });
  await expect(near).toContainText('Near a limit');
  await expect(near).toContainText('1 / 30');
  const other = table.getByRole('row', { name: /5151/ });
  await expect(other).toContainText('$75.00');

  // Reversals: the delivered trades are reversible until their end of protection. The seller rolls one back: the
  // recipient did nothing, so no one who reversed is listed and there is nothing to export.
  await expect(reversals.getByText('Still reversible now')).toBeVisible();
  await expect(reversals.locator('.card-value')).toHaveText('$75.00');
  await stack().admin.transition(delivered[0] as string, {
    status: 'REVERSED',
    failReason: 'Seller reversed trade on Steam',
  });
  await expect(reversals.locator('.card-value')).toHaveText('$50.00', { timeout: 15_000 });
  const reversedTable = reversals.getByRole('table', { name: /Reversed trades/ });
  await expect(reversedTable.locator('tbody tr')).toHaveCount(1);
  await expect(reversedTable.locator('tbody tr').first()).toContainText('5151');
  await expect(reversedTable.locator('tbody tr').first()).toContainText('Seller');
  const reversersTable = reversals.getByRole('table', { name: /Recipients who reversed/ });
  await expect(reversersTable.locator('tbody tr')).toHaveText(['None']);
  const csvButton = reversals.getByRole('button', { name: 'Export recipients who reversed (CSV)' });
  await expect(csvButton).toBeDisabled();
  // Then the buyer (the recipient) reverses another: they are one who reversed.
  await stack().admin.transition(delivered[1] as string, {
    status: 'REVERSED',
    failReason: 'Buyer reversed trade on Steam',
  });
  await expect(reversals.locator('.card-value')).toHaveText('$25.00', { timeout: 15_000 });
  await expect(reversedTable.locator('tbody tr')).toHaveCount(2);
  await expect(reversedTable.locator('tbody tr').first()).toContainText('Buyer (the recipient)');
  await expect(reversedTable.locator('tbody tr').nth(1)).toContainText('Seller');
  await expect(reversedTable.locator('tbody tr').first()).toContainText('+$25.00', { timeout: 15_000 });
  await expect(reversersTable.locator('tbody tr')).toHaveCount(1);
  await expect(reversersTable.getByRole('cell')).toHaveText(['5151', '1', '2', '1', '3']);
  await expect(other).toContainText('$25.00');
  await expect(other).toContainText('1 by them');
  await expect(csvButton).toBeEnabled();
  await csvButton.focus();
  const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
  expect(download.suggestedFilename()).toMatch(/^reversed-recipients-\d{4}-\d{2}-\d{2}\.csv$/);
  const csvPath = testInfo.outputPath(download.suggestedFilename());
  await download.saveAs(csvPath);
  expect(readFileSync(csvPath, 'utf8')).toBe(
    'partner,label,reversed_by_recipient,reversed,delivered,trades\r\n5151,,1,2,1,3\r\n',
  );
  await expectAxeClean(page, 'dark: Recipients and Reversals, rows');

  // Sort by value from the keyboard: the delivered recipient first, then reversed.
  const byValue = section.getByRole('button', { name: /Value delivered/ });
  await byValue.focus();
  await page.keyboard.press('Enter');
  await expect(section.getByRole('columnheader', { name: /Value delivered/ })).toHaveAttribute(
    'aria-sort',
    'descending',
  );
  await expect(table.locator('tbody tr').first()).toContainText('5151');
  await page.keyboard.press('Enter');
  await expect(section.getByRole('columnheader', { name: /Value delivered/ })).toHaveAttribute(
    'aria-sort',
    'ascending',
  );
  await expect(table.locator('tbody tr').first()).toContainText('4242');

  // Who needs attention; a filter by number.
  await section.getByLabel('Show').selectOption('attention');
  await expect(table.locator('tbody tr')).toHaveCount(1);
  await expect(table.locator('tbody tr').first()).toContainText('4242');
  await section.getByLabel('Show').selectOption('all');
  await section.getByLabel('Filter').fill('5151');
  await expect(table.locator('tbody tr')).toHaveCount(1);
  await expect(table.locator('tbody tr').first()).toContainText('5151');
  await section.getByLabel('Filter').fill('999');
  await expect(section.getByText('No recipient matches')).toBeVisible();
  await section.getByLabel('Filter').fill('');
  await expect(table.locator('tbody tr')).toHaveCount(2);

  // A recipient's trades, from the keyboard: Trades filtered to them.
  const open = section.getByRole('button', { name: '4242: open their trades' });
  await open.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Trades' })).toBeVisible();
  await expect(page.getByLabel('Recipient', { exact: true })).toHaveValue('4242');
  await expect(page.getByRole('table', { name: 'Trades' }).locator('tbody tr')).toHaveCount(8, { timeout: 15_000 });

  // The light theme.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
  await page.getByRole('radio', { name: /light/i }).check();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await goToOperations(page);
  await expect(table.locator('tbody tr')).toHaveCount(2, { timeout: 15_000 });
  await expect(reversals.getByRole('table', { name: /Reversed trades/ }).locator('tbody tr')).toHaveCount(2);
  await expectAxeClean(page, 'light: Recipients and Reversals, rows');

  // Offline: the marketplace goes away; the section still reads the cache.
  await goOffline(page, stack(), { reload: true });
  await expect(table.locator('tbody tr')).toHaveCount(2);
  await expect(near).toContainText('7 / 10');
  await expect(reversals.locator('.card-value')).toHaveText('$25.00');
  await expectAxeClean(page, 'light: Recipients and Reversals, offline');
});
