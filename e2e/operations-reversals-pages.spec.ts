// Operations → Reversals pages its reversed trades: 51 reversed at the sandbox show as a first page of 50 with the
// total, and Next / Previous page from the keyboard show the rest and come back; axe on the paged view.
import { openApp } from './support/app';
import { expectAxeClean } from './support/axe';
import { buyFor, goToOperations } from './support/operations';
import { expect, test, useStack } from './support/stack';

const stack = useStack({ items: 100, seed: 37, merchant: { balance: 1_000_000 } });

test.describe.configure({ timeout: 180_000 });

test('the reversed trades 50 a page with their total; next and previous page from the keyboard', async ({ page }) => {
  await openApp(page, stack());
  await goToOperations(page);
  const reversals = page.getByRole('region', { name: 'Reversals' });
  await expect(reversals.getByText('Nothing reversible, nothing reversed')).toBeVisible({ timeout: 30_000 });

  // Two recipients, each under the 30 active offers a recipient may hold.
  const bought = [
    ...(await buyFor(stack(), 7070, 26, 9_370_001, 400, { send: true })),
    ...(await buyFor(stack(), 7171, 25, 9_370_101, 400, { send: true })),
  ];
  for (const tradeId of bought) {
    await stack().admin.transition(tradeId, { status: 'COMPLETED' });
    await stack().admin.transition(tradeId, { status: 'REVERSED' });
  }

  const table = reversals.getByRole('table', { name: /Reversed trades/ });
  await expect(table.locator('caption')).toHaveText('Reversed trades, newest first (51)', { timeout: 30_000 });
  await expect(table.locator('tbody tr')).toHaveCount(50);
  const pages = reversals.getByRole('navigation', { name: 'Pages of reversed trades' });
  await expect(pages).toContainText('1–50 of 51');
  await expectAxeClean(page, 'dark: Reversals, a page of reversed trades');

  await pages.getByRole('button', { name: 'Next page' }).focus();
  await page.keyboard.press('Enter');
  await expect(pages).toContainText('51–51 of 51');
  await expect(table.locator('tbody tr')).toHaveCount(1);
  // The oldest reversal: the first trade bought.
  await expect(table.locator('tbody tr')).toContainText('7070');

  await pages.getByRole('button', { name: 'Previous page' }).focus();
  await page.keyboard.press('Enter');
  await expect(pages).toContainText('1–50 of 51');
  await expect(table.locator('tbody tr')).toHaveCount(50);
});
