// Settings' desktop controls in the web host (Chromium against the real sandbox): "Send a test notification"
// reached from the keyboard and answered on screen (shown, or why not), axe clean in both themes; "Start with the
// session" is the desktop app's and not offered in a browser; a browser notification about several trades opens
// Trades when clicked.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { tradeUrlFor } from '../test/support/sandboxHttp';
import { expectFeedLive, goTo, openApp } from './support/app';
import { expect, test, useStack } from './support/stack';

const ITEMS = [1, 2, 3].map((n) => ({
  itemId: 8_100_000 + n,
  assetId: String(81_000_000 + n),
  market_hash_name: `UMP-45 | Desk Test ${n} (Field-Tested)`,
  price: 1_000 + n,
}));

const stack = useStack({
  items: 300,
  seed: 36,
  merchant: { balance: 1_000_000 },
  async prepare({ admin }) {
    await admin.post('/admin/items', { items: ITEMS });
  },
});

test.describe.configure({ timeout: 120_000 });

interface Raised {
  title: string;
  body: string;
}

/** A stand-in for the browser's Notification: `permission` as given (a request grants it), each one recorded. */
async function recordNotifications(page: Page, permission: NotificationPermission): Promise<void> {
  await page.addInitScript((initial) => {
    const raised: (Raised & { click: () => void })[] = [];
    (window as unknown as { raised: typeof raised }).raised = raised;
    class RecordingNotification {
      static permission = initial;
      static requestPermission = () => {
        if (RecordingNotification.permission === 'default') RecordingNotification.permission = 'granted';
        return Promise.resolve(RecordingNotification.permission);
      };
      onclick: (() => void) | null = null;
      constructor(title: string, options?: { body?: string }) {
        raised.push({ title, body: options?.body ?? '', click: () => this.onclick?.() });
      }
      close(): void {}
    }
    Object.defineProperty(window, 'Notification', { value: RecordingNotification, configurable: true });
  }, permission);
}

const raised = (page: Page): Promise<Raised[]> =>
  page.evaluate(() => (window as unknown as { raised: Raised[] }).raised.map(({ title, body }) => ({ title, body })));

async function axeFindings(page: Page, include: string): Promise<string[]> {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .include(include)
    .analyze();
  return result.violations.flatMap((v) => v.nodes.map((node) => `${v.id}: ${node.target.join(' ')}`));
}

/** Tabs from the top of the page until `name` has the focus (at most `max` presses). */
async function tabTo(page: Page, name: string, max = 250): Promise<void> {
  await page.locator('body').focus();
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
    if (focused === name) return;
  }
  throw new Error(`${name} was not reached with Tab`);
}

test('"Send a test notification" from the keyboard: permission asked, shown, said on screen; axe clean in both themes', async ({
  page,
}) => {
  await recordNotifications(page, 'default');
  await openApp(page, stack());
  await goTo(page, 'Settings');
  const section = page.getByRole('region', { name: 'Notifications' });
  const button = section.getByRole('button', { name: 'Send a test notification' });
  await expect(button).toBeVisible();
  // The hint says where to look when the system keeps notifications quiet.
  await expect(button).toHaveAccessibleDescription(/Focus Assist or Do Not Disturb/);
  // A browser tab cannot start with the session: the desktop app's switch is not offered here.
  await expect(page.getByRole('checkbox', { name: /Start with the session/ })).toHaveCount(0);

  await tabTo(page, 'Send a test notification');
  await expect(button).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(section.getByRole('status')).toHaveText('Sent by the browser.');
  expect(await raised(page)).toEqual([
    { title: 'Merchant Desk test notification', body: 'Notifications from Merchant Desk reach this desktop.' },
  ]);
  // Space works too, and each press sends one.
  await page.keyboard.press('Space');
  await expect.poll(async () => (await raised(page)).length).toBe(2);

  expect(await axeFindings(page, '.settings-screen')).toEqual([]);
  await page.getByRole('radiogroup', { name: 'Theme' }).getByText('Light').click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await page.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished.catch(() => undefined))));
  expect(await axeFindings(page, '.settings-screen')).toEqual([]);
});

test('"Send a test notification" where the page may not notify: says why, shows nothing', async ({ page }) => {
  await recordNotifications(page, 'denied');
  await openApp(page, stack());
  await goTo(page, 'Settings');
  const section = page.getByRole('region', { name: 'Notifications' });
  await section.getByRole('button', { name: 'Send a test notification' }).click();
  await expect(section.getByRole('status')).toHaveText(
    'Notifications are blocked for this page: allow them in the browser’s site settings, then try again.',
  );
  await expect(section.getByRole('status')).toHaveClass(/warn-text/);
  expect(await raised(page)).toEqual([]);
});

test('a browser notification about several trades opens Trades', async ({ page }) => {
  const s = stack();
  await recordNotifications(page, 'granted');
  await openApp(page, s, '#/settings');
  await expectFeedLive(page);
  const tradeIds: string[] = [];
  for (const [i, item] of ITEMS.entries()) {
    const answer = await s.api.post<{ tradeId: string }>('/Items/Buy', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      tradeUrl: tradeUrlFor(36_000 + i),
    });
    if (answer.status !== 200) throw new Error(`buy: ${answer.status} ${JSON.stringify(answer.body)}`);
    tradeIds.push(answer.body.tradeId);
  }
  for (const status of ['SENT', 'COMPLETED'] as const)
    for (const id of tradeIds) s.sandbox.core.trades.transition(id, { status });
  // Paced: the first batch at once, the rest folded into one notice when the 15 s window ends.
  await expect
    .poll(async () => (await raised(page)).findIndex((n) => /\b[2-9] trades\b/.test(`${n.title} ${n.body}`)), {
      timeout: 40_000,
    })
    .toBeGreaterThanOrEqual(0);
  await page.evaluate(() => {
    const list = (window as unknown as { raised: (Raised & { click: () => void })[] }).raised;
    list.find((n) => /\b[2-9] trades\b/.test(`${n.title} ${n.body}`))?.click();
  });
  await expect(page.getByRole('heading', { level: 1, name: 'Trades' })).toBeVisible();
  await expect(page).toHaveURL(/#\/trades$/);
});
