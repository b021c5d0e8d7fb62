// The notification centre against the real sandbox in Chromium: every trade status change kept and
// listed with its severity, a burst grouped ("12 trades delivered") in the list, the toasts and the
// browser notifications; filters, mark-read, the unread count in the title and the nav; the screen
// reached from the keyboard and the palette; sound choices kept across a reload.
import type { Locator, Page } from '@playwright/test';
import { tradeUrlFor } from '../test/support/sandboxHttp';
import { expectFeedLive, goTo, openApp, screenshot } from './support/app';
import { expect, test, useStack } from './support/stack';

const BURST = Array.from({ length: 12 }, (_, i) => ({
  itemId: 7_100_001 + i,
  assetId: String(71_000_010 + i),
  market_hash_name: `Glock-18 | Bell Burst ${i + 1} (Field-Tested)`,
  price: 1_000 + i,
}));
const CANCELLED = {
  itemId: 7_100_101,
  assetId: '71000101',
  market_hash_name: 'P250 | Bell Cancel (Field-Tested)',
  price: 2_500,
};
const REVERSED = {
  itemId: 7_100_102,
  assetId: '71000102',
  market_hash_name: 'AWP | Bell Reverse (Field-Tested)',
  price: 9_900,
};

const stack = useStack({
  items: 400,
  seed: 27,
  merchant: { balance: 1_000_000 },
  async prepare({ admin }) {
    await admin.post('/admin/items', { items: [...BURST, CANCELLED, REVERSED] });
  },
});

test.describe.configure({ timeout: 120_000 });

/** Records what the page raises as browser notifications (granted), so a burst can be counted. */
async function recordBrowserNotifications(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const raised: { title: string; body: string }[] = [];
    (window as unknown as { raisedNotifications: typeof raised }).raisedNotifications = raised;
    class RecordingNotification {
      static permission = 'granted';
      static requestPermission = () => Promise.resolve('granted');
      onclick: (() => void) | null = null;
      constructor(title: string, options?: { body?: string }) {
        raised.push({ title, body: options?.body ?? '' });
      }
      close(): void {}
    }
    Object.defineProperty(window, 'Notification', { value: RecordingNotification, configurable: true });
  });
}

/** The numbers a group's lines count ("12 trades sent" and "2 trades sent": 14). */
async function countedIn(lines: Locator, pattern: RegExp): Promise<number> {
  return (await lines.allTextContents()).reduce((sum, text) => sum + Number(pattern.exec(text)?.[1] ?? 0), 0);
}

/** The window title counts `n` unread, and the list shows exactly `n` unread lines. */
async function expectUnreadLines(page: Page, n: number): Promise<void> {
  await expect(page).toHaveTitle(`(${n}) Merchant Desk`, { timeout: 15_000 });
  await expect(page.getByRole('list', { name: 'Notifications' }).locator(':scope > li.unread')).toHaveCount(n);
}

const raisedNotifications = (page: Page) =>
  page.evaluate(
    () => (window as unknown as { raisedNotifications: { title: string; body: string }[] }).raisedNotifications,
  );

/** How many trades the notifications raised so far announce as delivered ("12 trades delivered" counts 12), in how many notifications. */
async function deliveredAnnounced(page: Page): Promise<{ notices: number; trades: number }> {
  let notices = 0;
  let trades = 0;
  for (const n of await raisedNotifications(page)) {
    const counted = [...`${n.title}\n${n.body}`.matchAll(/(\d+) trades? delivered/g)].reduce(
      (sum, m) => sum + Number(m[1]),
      0,
    );
    const single = counted === 0 && / was delivered/.test(n.body) ? 1 : 0;
    if (counted + single > 0) notices++;
    trades += counted + single;
  }
  return { notices, trades };
}

test('the centre keeps every trade change with its severity, groups a burst, filters and marks read; sounds are off by default and kept', async ({
  page,
}, testInfo) => {
  const s = stack();
  await recordBrowserNotifications(page);
  await openApp(page, s);
  // The changes below are the live feed's to bring (a trade changed during the start-up comes by the back-fill:
  // test/core/engine-sync.test.ts); the page shows before the engine has opened the account.
  await expectFeedLive(page);
  const api = s.api;
  const buy = async (item: (typeof BURST)[number], partner: number) => {
    const answer = await api.post<{ tradeId: string }>('/Items/Buy', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      tradeUrl: tradeUrlFor(partner),
    });
    if (answer.status !== 200) throw new Error(`buy: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body.tradeId;
  };
  const burstIds: string[] = [];
  for (const item of BURST) burstIds.push(await buy(item, 41_000));
  const cancelled = await buy(CANCELLED, 41_001);
  const reversed = await buy(REVERSED, 41_002);
  const trades = s.sandbox.core.trades;
  for (const id of [...burstIds, cancelled, reversed]) trades.transition(id, { status: 'SENT' });

  // The keyboard path: G then N.
  await page.locator('body').press('g');
  await page.locator('body').press('n');
  await expect(page.getByRole('heading', { level: 1, name: 'Notifications' })).toBeVisible();
  const list = page.getByRole('list', { name: 'Notifications' });
  const rows = list.locator(':scope > li');
  // All 14 sent are kept; they show as grouped rows (one, unless the feed split them across a minute's runs).
  const sentRows = rows.filter({ hasText: /\d+ trades sent/ });
  await expect.poll(() => countedIn(sentRows, /(\d+) trades sent/), { timeout: 30_000 }).toBe(14);
  // The unread count is the lines the centre shows, not the 14 notifications in them.
  await expectUnreadLines(page, await sentRows.count());

  // Twelve deliveries in one go: one line in the centre, one toast, a browser notification or two, never twelve.
  for (const id of burstIds) trades.transition(id, { status: 'COMPLETED' });
  const burstRow = rows.filter({ hasText: '12 trades delivered' });
  await expect(burstRow).toHaveCount(1, { timeout: 30_000 });
  await expect(burstRow).toHaveAttribute('data-severity', 'success');
  await expect(burstRow.locator('.sev-tag')).toHaveText('Success');
  await expect(
    page
      .locator('.toast.tone-success')
      .filter({ hasText: /trades delivered/ })
      .first(),
  ).toBeVisible();
  // Browser notifications are paced (one grouped notice per 15 s after the first): the burst may wait for its window.
  await expect.poll(() => deliveredAnnounced(page).then((d) => d.trades), { timeout: 30_000 }).toBe(12);
  expect((await deliveredAnnounced(page)).notices).toBeLessThanOrEqual(2);
  await expectUnreadLines(page, (await sentRows.count()) + 1);

  // Severity per kind, and the item's name, price and recipient (never a trade URL token). The cancellation lands
  // first, so the next delivery is not a run with the burst's (a run of one kind within a minute is one row).
  trades.transition(cancelled, { status: 'CANCELLED' });
  const cancelledRow = rows.filter({ hasText: CANCELLED.market_hash_name }).filter({ hasText: 'cancelled' });
  await expect(cancelledRow).toHaveAttribute('data-severity', 'danger', { timeout: 15_000 });
  await expect(cancelledRow.locator('.sev-tag')).toHaveText('Problem');
  await expect(cancelledRow).toContainText('Trade $25.00 to partner 41001 was cancelled');
  trades.transition(reversed, { status: 'COMPLETED' });
  await expect(rows.filter({ hasText: REVERSED.market_hash_name }).filter({ hasText: 'was delivered' })).toHaveCount(
    1,
    { timeout: 15_000 },
  );
  trades.transition(reversed, { status: 'REVERSED', errorCode: 512 });
  const reversedRow = rows.filter({ hasText: REVERSED.market_hash_name }).filter({ hasText: 'reversed' });
  await expect(reversedRow).toHaveAttribute('data-severity', 'warning');
  await expect(sentRows.first()).toHaveAttribute('data-severity', 'neutral');
  await burstRow.getByRole('button', { name: 'Show 12' }).click();
  await expect(burstRow.getByRole('listitem')).toHaveCount(12);
  await expect(burstRow).toContainText(`${BURST[0]?.market_hash_name}`);
  await expect(burstRow).toContainText('Trade $10.00 to partner 41000 was delivered');
  expect(await page.content()).not.toContain('AbCd1234');
  await screenshot(page, testInfo, 'notification-centre');

  // Unread: the sent line(s), the 12 delivered, the cancellation, the reversed one's delivery and its reversal: one
  // count per line in the title, the heading and the nav (29 notifications).
  const lines = (await sentRows.count()) + 4;
  await expectUnreadLines(page, lines);
  await expect(page.getByText(`${lines} unread`, { exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Notifications' }).locator('.nav-badge')).toHaveText(String(lines));
  await burstRow.getByRole('button', { name: 'Mark read: 12 trades delivered' }).click();
  await expectUnreadLines(page, lines - 1);

  // Filters: the problems only; then unread only.
  const filters = page.getByRole('group', { name: 'Notification filters' });
  await filters.getByRole('button', { name: 'Problem' }).click();
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(CANCELLED.market_hash_name);
  await filters.getByRole('button', { name: 'Problem' }).click();
  await filters.getByRole('checkbox', { name: 'Unread only' }).check();
  await expect(rows.filter({ hasText: '12 trades delivered' })).toHaveCount(0);
  await expect(sentRows.first()).toBeVisible();
  await filters.getByRole('checkbox', { name: 'Unread only' }).uncheck();

  // Mark all read from the palette; kept across a reload.
  await page.keyboard.press('Control+k');
  await page.getByRole('dialog', { name: 'Command palette' }).getByRole('combobox').fill('mark all notifications');
  await page.keyboard.press('Enter');
  await expect(page).toHaveTitle('Merchant Desk');
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Notifications' })).toBeVisible();
  await expect(page.getByText('All read', { exact: true })).toBeVisible();
  await expect(rows.filter({ hasText: '12 trades delivered' })).toHaveCount(1);

  // Palette path to the screen, from elsewhere.
  await goTo(page, 'Wallet');
  await page.keyboard.press('Control+k');
  await page.getByRole('dialog', { name: 'Command palette' }).getByRole('combobox').fill('go to notifications');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Notifications' })).toBeVisible();

  // Sounds: off by default; a chosen kind and the mute are kept across a reload.
  await goTo(page, 'Settings');
  const sounds = page.getByRole('region', { name: 'Sounds' });
  const tradesSound = sounds.getByRole('checkbox', { name: 'Trades' });
  await expect(tradesSound).not.toBeChecked();
  await expect(sounds.getByRole('checkbox', { name: 'Alerts' })).not.toBeChecked();
  await tradesSound.check();
  await sounds.getByRole('checkbox', { name: 'Mute all sounds' }).check();
  await page.reload();
  await expect(page.getByRole('region', { name: 'Sounds' }).getByRole('checkbox', { name: 'Trades' })).toBeChecked();
  await expect(
    page.getByRole('region', { name: 'Sounds' }).getByRole('checkbox', { name: 'Mute all sounds' }),
  ).toBeChecked();
  await expect(
    page.getByRole('region', { name: 'Sounds' }).getByRole('checkbox', { name: 'Alerts' }),
  ).not.toBeChecked();
});
