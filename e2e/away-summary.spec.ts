// "While you were away": trades settled while Merchant Desk was closed (moved by the sandbox's admin helpers
// between a stop and a start of the web host) are summarised on launch, by status, with the ledger entries;
// the summary is a region with keyboard actions, passes axe, and stays dismissed across reloads.
// Then "To the phone": the Settings section refuses a bad webhook URL with the reason and forwards the next
// trade notification to a local receiver.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { merchantApi } from '../test/support/sandboxHttp';
import { expectFeedLive, goTo, openApp, TRADE_URL } from './support/app';
import { expect, test, useStack } from './support/stack';

const ITEMS = [
  { itemId: 7_300_001, assetId: '73000001', market_hash_name: 'AK-47 | Redline (Field-Tested)', price: 1_234 },
  { itemId: 7_300_002, assetId: '73000002', market_hash_name: 'AWP | Asiimov (Field-Tested)', price: 4_321 },
  { itemId: 7_300_003, assetId: '73000003', market_hash_name: 'P250 | Sand Dune (Field-Tested)', price: 5 },
];
const tradeIds: string[] = [];

const stack = useStack({
  restartableHost: true,
  // The chat receiver below listens on loopback.
  forwardToPrivateNetworks: true,
  items: 300,
  seed: 31,
  async prepare({ sandbox, admin, merchant }) {
    await admin.post('/admin/items', { items: ITEMS });
    for (const [i, item] of ITEMS.entries()) {
      const bought = await merchantApi(sandbox, merchant).post<{ tradeId: string }>('/Items/Buy', {
        itemId: item.itemId,
        assetId: item.assetId,
        price: item.price,
        tradeUrl: TRADE_URL,
        externalId: `AWAY-${i + 1}`,
      });
      if (bought.status !== 200) throw new Error(`buy: ${bought.status} ${JSON.stringify(bought.body)}`);
      tradeIds.push(bought.body.tradeId);
    }
  },
});

const summary = (page: Page) => page.getByRole('region', { name: 'While you were away' });

async function axeFindings(page: Page, selector: string): Promise<string[]> {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .include(selector)
    .analyze();
  return result.violations.flatMap((v) => v.nodes.map((node) => `${v.id}: ${node.target.join(' ')}`));
}

async function serverLedgerCount(): Promise<number> {
  return (await stack().api.get<{ total: number }>('/Wallet/BalanceHistory?limit=1')).body.total;
}

test('after a restart the trades settled meanwhile are summarised by status with the ledger entries', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await openApp(page, stack(), '#/trades');
  await expectFeedLive(page, 60_000);
  // The first launch fills an empty cache: nothing to compare with, no summary.
  await page.getByRole('tab', { name: 'History' }).click();
  await expect(page.getByRole('table', { name: 'Trades' }).locator('tbody tr')).toHaveCount(3, { timeout: 30_000 });
  const ledgerBefore = await serverLedgerCount();
  await goTo(page, 'Wallet');
  await expect(page.getByRole('table', { name: 'Ledger' }).locator('tbody tr')).toHaveCount(ledgerBefore, {
    timeout: 30_000,
  });
  await expect(summary(page)).toHaveCount(0);

  await stack().stopHost();
  // While closed: one delivered, one cancelled (its price refunded), a top-up; the third stays pending.
  const admin = stack().admin;
  const [delivered, cancelled] = tradeIds as [string, string];
  await admin.transition(delivered, { status: 'SENT' });
  await admin.transition(delivered, { status: 'COMPLETED' });
  await admin.transition(cancelled, { status: 'SENT' });
  await admin.transition(cancelled, { status: 'CANCELLED' });
  const topUp = await admin.post(`/admin/merchants/${stack().merchant.merchantId}/balance`, {
    type: 'ADMIN TOP UP',
    amount: 10_000,
  });
  expect(topUp.status).toBeLessThan(300);
  const newEntries = (await serverLedgerCount()) - ledgerBefore;
  const newest = await stack().api.get<{ transactions: { amount: number }[] }>(
    `/Wallet/BalanceHistory?limit=${newEntries}`,
  );
  const net = newest.body.transactions.reduce((sum, entry) => sum + entry.amount, 0);
  await stack().startHost();

  // The open window reconnects and shows it.
  const region = summary(page);
  await expect(region).toBeVisible({ timeout: 60_000 });
  await expect(region.getByTestId('away-trades')).toHaveText('1 completed ($12.34), 1 cancelled ($43.21)');
  await expect(region.getByTestId('away-ledger')).toHaveText(
    `${newEntries} new ${newEntries === 1 ? 'entry' : 'entries'}, net +$${(net / 100).toFixed(2)}`,
  );
  expect(await axeFindings(page, '.away-summary')).toEqual([]);
  await goTo(page, 'Settings');
  await page.getByRole('radiogroup', { name: 'Theme' }).getByText('Light').click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  expect(await axeFindings(page, '.away-summary')).toEqual([]);
  expect(await axeFindings(page, '.settings-section')).toEqual([]);
  await page.getByRole('radiogroup', { name: 'Theme' }).getByText('Dark').click();

  // A window opened later gets it from the snapshot; its actions work from the keyboard.
  await page.reload();
  await expect(summary(page)).toBeVisible({ timeout: 30_000 });
  await summary(page).getByRole('button', { name: 'View trades' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Trades' })).toBeVisible();
  await summary(page).getByRole('button', { name: 'Dismiss' }).focus();
  await page.keyboard.press('Enter');
  await expect(summary(page)).toHaveCount(0);
  await page.reload();
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
  await expectFeedLive(page, 30_000);
  await expect(summary(page)).toHaveCount(0);
  expect(stack().hostLog()).toContain('while away: 1 trade completed, 1 was cancelled;');
});

test('Settings: a bad webhook URL is refused with the reason; a good one gets the next trade notification, without the token', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const bodies: { path: string; body: { content?: string } }[] = [];
  const receiver: Server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => {
      bodies.push({ path: request.url ?? '', body: JSON.parse(text) as { content?: string } });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    const port = (receiver.address() as AddressInfo).port;
    await openApp(page, stack(), '#/settings');
    await expectFeedLive(page, 60_000);
    const section = page.getByRole('region', { name: 'Forward to a chat' });
    const field = section.getByLabel('Webhook URL');
    await field.fill('https://api.telegram.org/bot123:ABC/sendMessage');
    await section.getByRole('button', { name: 'Save' }).click();
    await expect(section.getByRole('alert')).toHaveText(
      'A Telegram sendMessage URL needs the chat: add ?chat_id=<chat id> (a number, or @channelname)',
    );

    await field.fill(`http://127.0.0.1:${port}/api/webhooks/42/SECRET-TOKEN`);
    await field.press('Enter');
    await expect(section).toContainText(`Forwarding to 127.0.0.1:${port}`);
    await expect(section).not.toContainText('SECRET-TOKEN');
    expect(await axeFindings(page, '.settings-section')).toEqual([]);

    // The third trade, still pending, is sent: its notification is forwarded.
    await stack().admin.transition(tradeIds[2] ?? '', { status: 'SENT' });
    await expect.poll(() => bodies.length, { timeout: 30_000 }).toBeGreaterThan(0);
    expect(bodies[0]?.path).toBe('/api/webhooks/42/SECRET-TOKEN');
    // A Discord-shaped path: the item's name has its Markdown characters escaped.
    expect(bodies[0]?.body.content).toContain('P250 \\| Sand Dune \\(Field-Tested\\)');
    expect(JSON.stringify(bodies)).not.toContain('AbCd1234');
    expect(JSON.stringify(bodies)).not.toContain(stack().merchant.apiKey);
    await expect(section.getByTestId('forward-status')).toContainText('Last message delivered', { timeout: 15_000 });

    await section.getByRole('button', { name: 'Turn off' }).click();
    await expect(section).toContainText('Off.');
  } finally {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
});
