// Operations → Webhook health against the real sandbox: the merchant's webhook URL points at a closed loopback port,
// so its deliveries fail for real (retries and breaker driven by the sandbox clock). Empty state first, then the failed
// delivery, the pause the cache suggests and what to do, a failed trade opened from the keyboard, axe in both themes.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Item } from '../src/shared/api';
import { verifyWebhookSignature } from '../src/main/core/webhookSignature';
import { goOffline, openApp, TRADE_URL } from './support/app';
import { expectAxeClean } from './support/axe';
import { goToOperations } from './support/operations';
import { expect, test, useStack } from './support/stack';

// The merchant's back end for the replay listens on loopback: the host's opt-in for private addresses.
const stack = useStack({
  items: 200,
  seed: 11,
  merchant: { balance: 100_000, webhookUrl: 'http://127.0.0.1:9/hook' },
  forwardToPrivateNetworks: true,
});

/** The merchant's own back end: each replayed body, and whether its signature checks out with the API key. */
const received: { type: string | undefined; body: Record<string, unknown>; verified: boolean }[] = [];
let backEnd: Server;
let backEndUrl = '';
test.beforeAll(async () => {
  backEnd = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      received.push({
        type: request.headers['x-webhook-type'] as string | undefined,
        body: JSON.parse(raw.toString('utf8')) as Record<string, unknown>,
        verified: verifyWebhookSignature(
          raw,
          request.headers['x-signature'] as string | undefined,
          stack().merchant.apiKey,
        ),
      });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => backEnd.listen(0, '127.0.0.1', resolve));
  backEndUrl = `http://127.0.0.1:${(backEnd.address() as AddressInfo).port}/merchant/webhook`;
});
test.afterAll(() => new Promise<void>((resolve) => backEnd.close(() => resolve())));

test.describe.configure({ timeout: 180_000 });

test('webhook health: empty, then a failed delivery with the pause guess and the way to resume; keyboard and axe', async ({
  page,
}) => {
  await openApp(page, stack());
  await goToOperations(page);
  const section = page.getByRole('region', { name: 'Webhook health' });
  await expect(section.getByText('No failed webhook deliveries')).toBeVisible({ timeout: 30_000 });
  await expect(section.getByText(/Replay re-sends/)).toBeVisible();
  await expectAxeClean(page, 'dark: Operations, empty');

  // A buy whose updates cannot be delivered; twelve hours of sandbox time use up every attempt.
  const item = (
    await stack().admin.post<{ items: Item[] }>('/admin/items', { items: [{ itemId: 9_100_001, price: 300 }] })
  ).body.items[0] as Item;
  const bought = await stack().api.post<{ tradeId: string }>('/Items/Buy', {
    itemId: item.itemId,
    assetId: item.assetId,
    price: item.price,
    tradeUrl: TRADE_URL,
    externalId: 'OPS-WEBHOOK-1',
  });
  expect(bought.status).toBe(200);
  // The clock moves on once the trade's first delivery was tried (the breaker counts attempts).
  await expect
    .poll(async () => {
      const log = await stack().admin.get<{ deliveries: { tradeId: string | null; attempts: number }[] }>(
        `/admin/webhooks?merchantId=${stack().merchant.merchantId}&limit=1000`,
      );
      return log.body.deliveries.some((d) => d.tradeId === bought.body.tradeId && d.attempts > 0);
    })
    .toBe(true);
  await stack().admin.advance(12 * 3600);

  // The view reads again every 30 s and the engine asks the server for failed deliveries at most once a minute.
  await expect(section.getByText(/Deliveries look paused since/)).toBeVisible({ timeout: 120_000 });
  await expect(section.getByText(/Test Webhook/)).toBeVisible();
  await expect(section.getByRole('table', { name: /Failed deliveries/ }).locator('tbody tr')).toHaveCount(1);
  await expect(section.getByRole('table', { name: 'By trade status' })).toContainText('1');
  await expectAxeClean(page, 'dark: Operations, a failed delivery');

  // The trade's detail, from the keyboard.
  const open = section.getByRole('button', { name: `open trade ${bought.body.tradeId}` });
  await open.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Trades' })).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`#/trades/${bought.body.tradeId}`));

  // Replay, switched on in Settings with the merchant's own webhook URL.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
  const replaySettings = page.getByRole('region', { name: 'Webhook replay' });
  await replaySettings.getByRole('checkbox', { name: 'Allow replaying missed webhooks' }).check();
  await replaySettings.getByLabel('Your webhook URL').fill(backEndUrl);
  await replaySettings.getByRole('button', { name: 'Save' }).click();
  await expect(replaySettings.getByText(/Now: 127\.0\.0\.1/)).toBeVisible();
  await goToOperations(page);
  await section.getByRole('button', { name: 'Replay range…' }).click();
  await expect(section.getByText(/Send 1 signed trade_updated body to 127\.0\.0\.1/)).toBeVisible();
  await expectAxeClean(page, 'dark: Operations, replay confirmation');
  await section.getByRole('button', { name: 'Send 1' }).click();
  await expect(section.getByRole('table', { name: 'Replays' }).locator('tbody tr')).toHaveCount(1);
  expect(received).toEqual([
    { type: 'trade_updated', body: expect.objectContaining({ tradeId: bought.body.tradeId }), verified: true },
  ]);
  // Again: the trade was replayed, so nothing goes unless asked for once more.
  await section.getByRole('button', { name: 'Replay range…' }).click();
  await expect(section.getByRole('button', { name: 'Send 0' })).toBeDisabled();
  await section.getByRole('checkbox', { name: 'Send the 1 replayed before again' }).check();
  await expect(section.getByRole('button', { name: 'Send 1' })).toBeEnabled();
  await section.getByRole('button', { name: 'Cancel' }).click();
  expect(received).toHaveLength(1);

  // The light theme.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
  await page.getByRole('radio', { name: /light/i }).check();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await goToOperations(page);
  await expect(section.getByText(/Deliveries look paused since/)).toBeVisible({ timeout: 30_000 });
  await expectAxeClean(page, 'light: Operations, a failed delivery');

  // Offline: the marketplace goes away; the section still shows what the cache holds.
  await goOffline(page, stack(), { reload: true });
  await expect(section.getByText(/Deliveries look paused since/)).toBeVisible();
  await expect(section.getByRole('table', { name: /Failed deliveries/ }).locator('tbody tr')).toHaveCount(1);
  await expectAxeClean(page, 'light: Operations, offline');
});
