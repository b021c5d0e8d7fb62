// Operations → Failures and Recipients update live: with the screen open, trades that the sandbox's admin transition
// declines (504) or expires (503) change the board's counts and the recipient's row without a reload. The waits stay
// under the Recipients view's timed re-read (a minute) and the board has none: only the engine's live signals
// (`failuresChanged`, `recipientsChanged` on the trades' batch) can bring the new counts in time.
import type { Page } from '@playwright/test';
import type { Item } from '../src/shared/api';
import { openApp } from './support/app';
import { expect, test, useStack } from './support/stack';

const stack = useStack({ items: 100, seed: 36, merchant: { balance: 1_000_000 } });

test.describe.configure({ timeout: 180_000 });

const PARTNER = 6060;
const LIVE = { timeout: 15_000 };

async function goToOperations(page: Page): Promise<void> {
  await page.locator('body').click({ position: { x: 1, y: 1 } });
  await page.keyboard.press('g');
  await page.keyboard.press('o');
  await expect(page.getByRole('heading', { level: 1, name: 'Operations' })).toBeVisible();
}

/** Buys `count` new $10.00 listings for PARTNER straight at the API (the merchant's back end) and sends the offers. */
async function sentTrades(count: number, firstItemId: number): Promise<string[]> {
  const items = (
    await stack().admin.post<{ items: Item[] }>('/admin/items', {
      items: Array.from({ length: count }, (_, i) => ({
        itemId: firstItemId + i,
        price: 1000,
        steamId: `7656119${String(firstItemId + i).padStart(10, '0')}`,
      })),
    })
  ).body.items;
  const ids: string[] = [];
  for (const item of items) {
    const bought = await stack().api.post<{ tradeId: string }>('/Items/Buy', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      tradeUrl: `https://steamcommunity.com/tradeoffer/new/?partner=${PARTNER}&token=AbCd1234`,
    });
    expect(bought.status).toBe(200);
    await stack().admin.transition(bought.body.tradeId, { status: 'SENT' });
    ids.push(bought.body.tradeId);
  }
  return ids;
}

test('the failures board and the recipients view show a declined or expired trade without a reload', async ({
  page,
}) => {
  await openApp(page, stack());
  await goToOperations(page);
  const failures = page.getByRole('region', { name: 'Failures', exact: true });
  const recipients = page.getByRole('region', { name: 'Recipients' });
  await expect(failures.getByText('No failures in this range')).toBeVisible({ timeout: 30_000 });
  await expect(recipients.getByText('No recipients yet')).toBeVisible();

  const [first, second, third] = (await sentTrades(4, 9_360_001)) as [string, string, string];
  const row = recipients
    .getByRole('table', { name: 'Recipients' })
    .getByRole('row', { name: new RegExp(`${PARTNER}`) });
  await expect(row).toContainText('4 / 30', LIVE);

  const today = new Date().toISOString().slice(0, 10);
  const byDay = failures.getByRole('table', { name: /By day \(UTC\)/ });
  const cell = (count: number, reason: string, value: string) =>
    byDay.getByRole('button', { name: `${count} trades: ${reason}, ${today}, ${value}. Open the trades` });

  await stack().admin.transition(first, { status: 'CANCELLED', errorCode: 504 });
  await expect(cell(1, 'Declined (504)', '$10.00')).toBeVisible(LIVE);
  await expect(row).toContainText('1 / 10', LIVE);
  await expect(row).toContainText('3 / 30');

  // A second decline: the same cell's count moves (the open board reads again).
  await stack().admin.transition(second, { status: 'CANCELLED', errorCode: 504 });
  await expect(cell(2, 'Declined (504)', '$20.00')).toBeVisible(LIVE);
  await expect(row).toContainText('2 / 10', LIVE);
  await expect(row).toContainText('2 / 30');

  // An expiry: a new reason on the board, one more strike against the recipient.
  await stack().admin.transition(third, { status: 'EXPIRED', errorCode: 503 });
  await expect(cell(1, 'Expired (503)', '$10.00')).toBeVisible(LIVE);
  await expect(cell(2, 'Declined (504)', '$20.00')).toBeVisible();
  await expect(row).toContainText('3 / 10', LIVE);
  await expect(row).toContainText('1 / 30');
});
