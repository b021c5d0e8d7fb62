// The Operations specs' shared steps: the screen opened from the keyboard, and trades bought for a recipient straight
// at the API (as the merchant's back end buys), each item held by another account.
import type { Page } from '@playwright/test';
import type { Item } from '../../src/shared/api';
import { expect, type Stack } from './stack';

export const tradeUrlOf = (partner: number) =>
  `https://steamcommunity.com/tradeoffer/new/?partner=${partner}&token=AbCd1234`;

export async function goToOperations(page: Page): Promise<void> {
  await page.locator('body').click({ position: { x: 1, y: 1 } });
  await page.keyboard.press('g');
  await page.keyboard.press('o');
  await expect(page.getByRole('heading', { level: 1, name: 'Operations' })).toBeVisible();
}

/** Buys `count` new listings at `price` for `partner`, optionally sending the offers; their trade ids. */
export async function buyFor(
  stack: Stack,
  partner: number,
  count: number,
  firstItemId: number,
  price: number,
  options: { send?: boolean } = {},
): Promise<string[]> {
  const items = (
    await stack.admin.post<{ items: Item[] }>('/admin/items', {
      items: Array.from({ length: count }, (_, i) => ({
        itemId: firstItemId + i,
        price,
        steamId: `7656119${String(firstItemId + i).padStart(10, '0')}`,
      })),
    })
  ).body.items;
  const ids: string[] = [];
  for (const item of items) {
    const bought = await stack.api.post<{ tradeId: string }>('/Items/Buy', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      tradeUrl: tradeUrlOf(partner),
    });
    expect(bought.status).toBe(200);
    if (options.send) await stack.admin.transition(bought.body.tradeId, { status: 'SENT' });
    ids.push(bought.body.tradeId);
  }
  return ids;
}
