// Trade history in depth: date range, trade id, recipient and webhook-failed filters, paging through
// the cache, a detail with errorCode, failReason, stage and endProtection; a buy whose trade
// duration, order id and saved recipient reach the marketplace; the ledger's type and date
// filters, its balance chart and the E export key.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { tradeUrlFor } from '../test/support/sandboxHttp';
import { download, goTo, openApp, rowNamed } from './support/app';
import { expect, test, useStack } from './support/stack';

interface Listing {
  itemId: number;
  assetId: string;
  market_hash_name: string;
  price: number;
}

const listing = (n: number, name: string, price: number): Listing => ({
  itemId: 4_000_000 + n,
  assetId: String(40_000_000 + n),
  market_hash_name: name,
  price,
});
const COMPLETED = listing(1, 'USP-S | Lantern Quay (Field-Tested)', 1500);
const DECLINED = listing(2, 'AK-47 | Lantern Reef (Minimal Wear)', 2500);
const REVERSED = listing(3, 'AWP | Lantern Vale (Field-Tested)', 4000);
const HOOKLESS = listing(4, 'Desert Eagle | Lantern Moss (Factory New)', 900);
const FILLERS = Array.from({ length: 26 }, (_, i) =>
  listing(100 + i, `MAC-10 | Lantern Filler ${String(i + 1).padStart(2, '0')} (Field-Tested)`, 100 + i),
);
const BY_UI = listing(200, 'M4A4 | Lantern Spire (Minimal Wear)', 3100);
const TOTAL = 4 + FILLERS.length;

const ids = new Map<Listing, string>();
const stack = useStack({
  items: 600,
  seed: 8,
  // A webhook URL nobody answers: the last trade's delivery fails.
  merchant: { balance: 500_000, webhookUrl: 'http://127.0.0.1:9/hook' },
  async prepare({ sandbox, admin, merchant }) {
    const { merchantApi } = await import('../test/support/sandboxHttp');
    const api = merchantApi(sandbox, merchant);
    const listed = await admin.post('/admin/items', {
      items: [COMPLETED, DECLINED, REVERSED, HOOKLESS, ...FILLERS, BY_UI],
    });
    if (listed.status >= 300) throw new Error(`listing: ${listed.status}`);
    // Only the last trade's webhook should be tried: the others go out with no URL.
    await admin.patch(`/admin/merchants/${merchant.merchantId}`, { webhookUrl: null });
    const buy = async (l: Listing, externalId: string, partner: number) => {
      const answer = await api.post<{ tradeId: string }>('/Items/Buy', {
        itemId: l.itemId,
        assetId: l.assetId,
        price: l.price,
        tradeUrl: tradeUrlFor(partner),
        externalId,
      });
      if (answer.status !== 200) throw new Error(`buy ${externalId}: ${answer.status} ${JSON.stringify(answer.body)}`);
      ids.set(l, answer.body.tradeId);
      return answer.body.tradeId;
    };
    for (const [i, l] of FILLERS.entries())
      await admin.transition(await buy(l, `ORD-F${i + 1}`, 2000 + i), {
        status: 'FAILED',
        failReason: 'Items invalid',
      });
    const done = await buy(COMPLETED, 'ORD-DONE', 11);
    await admin.transition(done, { status: 'SENT' });
    await admin.transition(done, { status: 'COMPLETED' });
    const declined = await buy(DECLINED, 'ORD-DECL', 12);
    await admin.transition(declined, { status: 'SENT' });
    await admin.transition(declined, { status: 'CANCELLED', errorCode: 504 });
    const reversed = await buy(REVERSED, 'ORD-REV', 13);
    await admin.transition(reversed, { status: 'SENT' });
    await admin.transition(reversed, { status: 'COMPLETED' });
    await admin.transition(reversed, { status: 'REVERSED', errorCode: 512 });
    await admin.patch(`/admin/merchants/${merchant.merchantId}`, { webhookUrl: 'http://127.0.0.1:9/hook' });
    await buy(HOOKLESS, 'ORD-HOOK', 14);
    // Its first attempt fails at once; removing the URL then fails the delivery for good.
    await new Promise((done) => setTimeout(done, 300));
    await admin.patch(`/admin/merchants/${merchant.merchantId}`, { webhookUrl: null });
  },
});

test.describe.configure({ timeout: 90_000 });

const bodyRows = (page: Page) => page.getByRole('table', { name: 'Trades' }).locator('tbody tr');
const filters = (page: Page) => page.getByRole('group', { name: 'Trade filters' });

async function openHistory(page: Page): Promise<void> {
  await openApp(page, stack());
  await goTo(page, 'Trades');
  await page.getByRole('tab', { name: 'History' }).click();
  await expect(page.getByRole('navigation', { name: 'Pages' })).toContainText(`1–${Math.min(50, TOTAL)} of ${TOTAL}`, {
    timeout: 30_000,
  });
}

/** Today (local), as the date fields take it. */
function localDay(offsetDays = 0): string {
  const d = new Date(Date.now() + offsetDays * 86_400_000);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

test('pages through the history, filters by date range, trade id and failed webhook', async ({ page }) => {
  await openHistory(page);
  const pager = page.getByRole('navigation', { name: 'Pages' });

  // 25 a page: two pages.
  await pager.getByRole('combobox', { name: 'Rows per page' }).selectOption('25');
  await expect(pager).toContainText(`1–25 of ${TOTAL}`);
  await expect(bodyRows(page)).toHaveCount(25);
  await pager.getByRole('button', { name: 'Next page' }).click();
  await expect(pager).toContainText(`26–${TOTAL} of ${TOTAL}`);
  await expect(bodyRows(page)).toHaveCount(TOTAL - 25);
  await expect(pager.getByRole('button', { name: 'Next page' })).toBeDisabled();
  await pager.getByRole('button', { name: 'Previous page' }).click();
  await expect(pager).toContainText(`1–25 of ${TOTAL}`);

  // Dates are typed ISO (YYYY-MM-DD) like every date in the tables.
  const from = filters(page).getByRole('textbox', { name: 'From date' });
  const to = filters(page).getByRole('textbox', { name: 'To date' });
  await expect(from).toHaveAttribute('placeholder', 'YYYY-MM-DD');
  await from.fill(localDay(1));
  await expect(page.getByText('No trades match these filters')).toBeVisible();
  await from.fill('2026-13-45');
  await expect(from).toHaveAttribute('aria-invalid', 'true');
  await from.fill(localDay(0));
  await to.fill(localDay(0));
  await expect(pager).toContainText(`of ${TOTAL}`);
  await to.fill(localDay(-1));
  await expect(page.getByText('No trades match these filters')).toBeVisible();
  await filters(page).getByRole('button', { name: 'Clear' }).click();
  await expect(pager).toContainText(`of ${TOTAL}`);

  // Trade id: exactly that trade.
  await filters(page)
    .getByRole('textbox', { name: 'Trade ID' })
    .fill(ids.get(DECLINED) ?? '');
  await expect(bodyRows(page)).toHaveCount(1);
  await expect(bodyRows(page).first()).toContainText(DECLINED.market_hash_name);
  await filters(page).getByRole('button', { name: 'Clear' }).click();

  // Webhook failed: the one trade whose delivery ran out of attempts, marked in the list too.
  await filters(page).getByRole('checkbox', { name: 'Webhook failed' }).check();
  await expect(bodyRows(page)).toHaveCount(1, { timeout: 20_000 });
  await expect(bodyRows(page).first()).toContainText(HOOKLESS.market_hash_name);
  await expect(bodyRows(page).first().getByText('webhook', { exact: true })).toBeVisible();
  await bodyRows(page).first().click();
  const detail = page.getByRole('complementary', { name: 'Trade detail' });
  await expect(detail.getByRole('region', { name: 'Trade facts' })).toContainText('failed');
});

test('filters by recipient: a partner typed or offered by its saved label, a trade URL pasted; a bad one is said; axe clean in both themes', async ({
  page,
}) => {
  await openApp(page, stack());
  await goTo(page, 'Settings');
  const section = page.getByRole('region', { name: 'Saved recipients' });
  await section.getByLabel('Label').fill('Decliner');
  await section.getByLabel('Trade URL').fill(tradeUrlFor(12));
  await section.getByRole('button', { name: 'Add recipient' }).click();
  await expect(section.getByRole('list', { name: 'Saved recipients' })).toContainText('Decliner');

  await goTo(page, 'Trades');
  await page.getByRole('tab', { name: 'History' }).click();
  const pager = page.getByRole('navigation', { name: 'Pages' });
  await expect(pager).toContainText(`of ${TOTAL}`, { timeout: 30_000 });
  const recipient = filters(page).getByLabel('Recipient', { exact: true });
  // The saved recipients are offered by label.
  await expect(filters(page).locator('datalist option[label="Decliner"]')).toHaveAttribute('value', '12');

  // By keyboard: Tab from the trade id field into the recipient field, its partner number typed.
  await filters(page).getByRole('textbox', { name: 'Trade ID' }).focus();
  await page.keyboard.press('Tab');
  await expect(recipient).toBeFocused();
  await page.keyboard.type('12');
  await expect(bodyRows(page)).toHaveCount(1);
  await expect(bodyRows(page).first()).toContainText(DECLINED.market_hash_name);
  await expect(pager).toContainText('1–1 of 1');
  await expect(filters(page)).toContainText('Saved recipient: Decliner');

  // A trade URL pasted: its partner is the recipient.
  await recipient.fill(tradeUrlFor(13));
  await expect(bodyRows(page)).toHaveCount(1);
  await expect(bodyRows(page).first()).toContainText(REVERSED.market_hash_name);
  await expect(filters(page)).not.toContainText('Saved recipient');

  // Neither a number nor a trade URL: said at the field and in the list, nothing asked.
  await recipient.fill('partner=abc');
  await expect(recipient).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByText('Recipient: type the partner number or paste the trade URL').first()).toBeVisible();

  for (const theme of ['light', 'dark'] as const) {
    await goTo(page, 'Settings');
    await page.getByRole('radio', { name: new RegExp(theme, 'i') }).check();
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
    await goTo(page, 'Trades');
    await expect(recipient).toHaveValue('partner=abc');
    await expect(recipient).toHaveAttribute('aria-invalid', 'true');
    const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    const found = result.violations.flatMap((v) => v.nodes.map((node) => `${v.id}: ${node.target.join(' ')}`));
    expect.soft(found, `axe on the trades filters, ${theme} theme, a recipient error shown`).toEqual([]);
    await recipient.fill('12');
    await expect(filters(page)).toContainText('Saved recipient: Decliner');
    const named = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    expect
      .soft(
        named.violations.flatMap((v) => v.nodes.map((node) => `${v.id}: ${node.target.join(' ')}`)),
        `axe on the trades filters, ${theme} theme, a saved recipient named`,
      )
      .toEqual([]);
    await recipient.fill('partner=abc');
  }
  await filters(page).getByRole('button', { name: 'Clear' }).click();
  await expect(pager).toContainText(`of ${TOTAL}`);

  // The next tests start with no saved recipient.
  await goTo(page, 'Settings');
  await section.getByRole('button', { name: 'Delete Decliner' }).click();
  await section.getByRole('button', { name: 'Confirm delete Decliner' }).click();
  await expect(section.getByText('No saved recipients yet')).toBeVisible();
});

test('trade detail: errorCode and failReason, stage and end of protection, offer id and timeline', async ({ page }) => {
  await openHistory(page);
  const detail = page.getByRole('complementary', { name: 'Trade detail' });
  const open = async (l: Listing) => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Trades' }).click();
    await filters(page)
      .getByRole('textbox', { name: 'Trade ID' })
      .fill(ids.get(l) ?? '');
    await expect(bodyRows(page)).toHaveCount(1);
    await expect(bodyRows(page).first()).toContainText(l.market_hash_name);
    await bodyRows(page).first().click();
    await expect(detail.getByRole('heading', { level: 2 })).toHaveText(l.market_hash_name);
  };

  // Declined: the error and its reason, final.
  await open(DECLINED);
  await expect(detail.getByRole('note')).toContainText('Error 504');
  await expect(detail.getByRole('note')).toContainText('Trade declined by user');
  await expect(detail.getByRole('region', { name: 'Status timeline' })).toContainText('Cancelled');
  await expect(
    detail.getByRole('region', { name: 'Trade facts' }).locator('.prop', { hasText: 'Offer ID' }),
  ).toContainText(/\d{10}/);
  await expect(detail.getByRole('region', { name: 'Protection' })).toContainText('Nothing was delivered');

  // Completed: stage 1 while protected, with the time left and the date it ends.
  await open(COMPLETED);
  const sandboxTrade = (
    await stack().admin.get<{ endProtection: string; stage: number }>(`/admin/trades/${ids.get(COMPLETED)}`)
  ).body;
  expect(sandboxTrade.stage).toBe(1);
  const protection = detail.getByRole('region', { name: 'Protection' });
  await expect(protection).toContainText('Stage 1 · reversible');
  await expect(protection).toContainText(/Protection ends in 6d \d\d:\d\d:\d\d/);
  const end = new Date(sandboxTrade.endProtection);
  const pad = (n: number) => String(n).padStart(2, '0');
  await expect(protection).toContainText(
    `${end.getFullYear()}-${pad(end.getMonth() + 1)}-${pad(end.getDate())} ${pad(end.getHours())}:${pad(end.getMinutes())}`,
  );

  // Reversed: not "final" with a protection that "ended" in the future, but reversed and refunded, and when.
  await open(REVERSED);
  const reversed = (await stack().admin.get<{ rollbackAt: string }>(`/admin/trades/${ids.get(REVERSED)}`)).body;
  await expect(protection.locator('.tag')).toHaveText('Reversed');
  await expect(protection).toContainText('rolled back and its value refunded');
  const rolledBack = new Date(reversed.rollbackAt);
  await expect(protection).toContainText(
    `${rolledBack.getFullYear()}-${pad(rolledBack.getMonth() + 1)}-${pad(rolledBack.getDate())} ${pad(rolledBack.getHours())}:${pad(rolledBack.getMinutes())}`,
  );
  await expect(protection).not.toContainText('final');
  await expect(protection).not.toContainText('Protection ended');
  await expect(detail.getByRole('note')).toContainText('Error 512');
  await expect(detail.getByRole('note')).toContainText(/reversed trade/);
  await expect(detail.getByRole('region', { name: 'Trade facts' })).toContainText('Reversed');
});

test('a saved recipient, a trade duration and an order id reach the marketplace', async ({ page }) => {
  await openApp(page, stack());
  const vault = tradeUrlFor(777);

  // Settings: save a recipient.
  await goTo(page, 'Settings');
  const section = page.getByRole('region', { name: 'Saved recipients' });
  await section.getByLabel('Label').fill('Vault');
  await section.getByLabel('Trade URL').fill(vault);
  await section.getByRole('button', { name: 'Add recipient' }).click();
  const list = section.getByRole('list', { name: 'Saved recipients' });
  await expect(list).toContainText('Vault');
  await expect(list).toContainText('partner=777');
  await expect(list).not.toContainText('AbCd1234');

  // The buy dialog offers it first; a 2 h offer with an order id.
  await goTo(page, 'Catalog');
  await page.getByRole('searchbox', { name: 'Search items' }).fill('Lantern Spire');
  await rowNamed(page, BY_UI.market_hash_name).click();
  await page
    .getByRole('complementary', { name: 'Item detail' })
    .getByRole('button', { name: 'Buy', exact: true })
    .click();
  const dialog = page.getByRole('dialog', { name: 'Buy item' });
  const recipient = dialog.getByRole('combobox', { name: 'Recipient', exact: true });
  await expect(recipient.locator('option:checked')).toContainText('Vault');
  await dialog.getByRole('combobox', { name: 'Trade duration' }).selectOption('7200');
  await dialog.getByLabel('Order ID (optional)').fill('ORD-UI-7');
  await dialog.getByRole('button', { name: 'Review buy' }).click();
  await expect(dialog.locator('.confirm-facts')).toContainText('2 h');
  await expect(dialog.locator('.confirm-facts')).toContainText('ORD-UI-7');
  await expect(dialog.locator('.confirm-facts')).toContainText('Vault');
  await dialog.getByRole('button', { name: 'Confirm buy' }).click();
  await expect(dialog).toBeHidden();
  await expect(page).toHaveURL(/#\/trades\/[0-9a-f-]{36}$/);
  const tradeId = decodeURIComponent(new URL(page.url()).hash.split('/')[2] ?? '');
  const row = stack()
    .sandbox.core.db.prepare(
      'SELECT trade_duration_seconds AS d, external_id AS e, trade_url AS u FROM trades WHERE trade_id = ?',
    )
    .get(tradeId) as { d: number; e: string; u: string };
  expect(row).toEqual({ d: 7200, e: 'ORD-UI-7', u: vault });
  await expect(
    page.getByRole('complementary', { name: 'Trade detail' }).getByRole('region', { name: 'Trade facts' }),
  ).toContainText('ORD-UI-7');

  // Deleting it takes a second click.
  await goTo(page, 'Settings');
  await section.getByRole('button', { name: 'Delete Vault' }).click();
  await section.getByRole('button', { name: 'Confirm delete Vault' }).click();
  await expect(section.getByText('No saved recipients yet')).toBeVisible();
});

test('saved recipients: a duplicate is refused with the one that holds it, and a recipient is edited in place', async ({
  page,
}) => {
  await openApp(page, stack());
  await goTo(page, 'Settings');
  const section = page.getByRole('region', { name: 'Saved recipients' });
  const list = section.getByRole('list', { name: 'Saved recipients' });
  await section.getByLabel('Label').fill('Storage A');
  await section.getByLabel('Trade URL').fill(tradeUrlFor(881));
  await section.getByRole('button', { name: 'Add recipient' }).click();
  await expect(list.getByRole('listitem')).toHaveCount(1);

  // The same Steam account under another label (a fresh token): refused, naming the one that holds it.
  await section.getByLabel('Label').fill('Storage B');
  await section.getByLabel('Trade URL').fill(tradeUrlFor(881).replace(/token=\w+/, 'token=Zz998877'));
  await expect(section.getByRole('status')).toContainText('Already saved as “Storage A”');
  await section.getByRole('button', { name: 'Add recipient' }).click();
  await expect(list.getByRole('listitem')).toHaveCount(1);
  // The same label for another account: refused too.
  await section.getByLabel('Label').fill('storage a');
  await section.getByLabel('Trade URL').fill(tradeUrlFor(882));
  await expect(section.getByRole('status')).toContainText('Already saved as “Storage A”');
  await section.getByRole('button', { name: 'Add recipient' }).click();
  await expect(list.getByRole('listitem')).toHaveCount(1);

  // Edit: the form takes its values; the new label and token replace the old, still one recipient.
  await section.getByRole('button', { name: 'Edit Storage A' }).click();
  await expect(section.getByLabel('Label')).toHaveValue('Storage A');
  await expect(section.getByLabel('Label')).toBeFocused();
  await section.getByLabel('Label').fill('Storage Prime');
  await section.getByLabel('Trade URL').fill(tradeUrlFor(881).replace(/token=\w+/, 'token=Zz998877'));
  await expect(section.getByRole('status')).toHaveCount(0);
  await section.getByRole('button', { name: 'Save changes' }).click();
  await expect(list.getByRole('listitem')).toHaveCount(1);
  await expect(list).toContainText('Storage Prime');
  await expect(list).not.toContainText('Storage A');
  await expect(section.getByRole('button', { name: 'Add recipient' })).toBeVisible();

  await section.getByRole('button', { name: 'Delete Storage Prime' }).click();
  await section.getByRole('button', { name: 'Confirm delete Storage Prime' }).click();
  await expect(section.getByText('No saved recipients yet')).toBeVisible();
});

test('the ledger by type and date, its balance chart, and E to export', async ({ page }, testInfo) => {
  await openApp(page, stack());
  await goTo(page, 'Wallet');
  const ledger = page.getByRole('table', { name: 'Ledger' });
  const history = (await stack().api.get<{ transactions: { type: string }[] }>('/Wallet/BalanceHistory?limit=500')).body
    .transactions;
  await expect(ledger.locator('tbody tr')).toHaveCount(Math.min(50, history.length), { timeout: 30_000 });

  // The chart: one point per balance change.
  await expect(
    page
      .getByRole('region', { name: 'Balance over time' })
      .getByRole('img', { name: /^Balance over time: \d+ points/ }),
  ).toBeVisible();

  // Type: FREEZE only.
  const bar = page.getByRole('group', { name: 'Ledger filters' });
  await bar.getByRole('button', { name: 'freeze' }).click();
  await expect(bar.getByRole('button', { name: 'freeze' })).toHaveAttribute('aria-pressed', 'true');
  const freezes = history.filter((t) => t.type === 'FREEZE').length;
  await expect(ledger.locator('tbody tr')).toHaveCount(Math.min(50, freezes));
  await expect(ledger.locator('.type-tag').filter({ hasNotText: 'FREEZE' })).toHaveCount(0);

  // Dates: tomorrow on has nothing; today has them.
  await bar.getByRole('textbox', { name: 'From date' }).fill(localDay(1));
  await expect(page.getByText('No transactions match these filters')).toBeVisible();
  await bar.getByRole('textbox', { name: 'From date' }).fill(localDay(0));
  await expect(ledger.locator('tbody tr')).toHaveCount(Math.min(50, freezes));
  await bar.getByRole('button', { name: 'Clear' }).click();
  await expect(ledger.locator('tbody tr')).toHaveCount(Math.min(50, history.length));

  // E exports what is on screen.
  await ledger.locator('tbody tr').first().click();
  const file = await download(page, () => page.keyboard.press('e'), testInfo);
  expect(file.name).toMatch(/^ledger-.+\.csv$/);
});
