// The buy dialogs show the chosen recipient's standing before Review: a saved recipient at the 30 cap, pasted trade
// URLs near the 10-strike block and at it (then blocked, with the countdown), from the keyboard only; a buy by name with no local match still gets the
// recipient's warnings at review; axe in both themes.
import type { Locator, Page } from '@playwright/test';
import { expectFeedLive, openApp } from './support/app';
import { expectAxeClean } from './support/axe';
import { buyFor, tradeUrlOf } from './support/operations';
import { expect, test, useStack } from './support/stack';

const TARGET = { itemId: 9_300_001, market_hash_name: 'Glock-18 | Standing Order (Field-Tested)', price: 500 };
const CAPPED = 31_337;
const NEAR = 4242;
const BLOCKED = 5151;

const stack = useStack({
  items: 100,
  seed: 35,
  merchant: { balance: 1_000_000 },
  async prepare({ admin }) {
    const answer = await admin.post('/admin/items', { items: [TARGET] });
    if (answer.status !== 200 && answer.status !== 201) throw new Error(`listing: ${answer.status}`);
  },
});

test.describe.configure({ timeout: 180_000 });

/** The standing's live region (what appears in it is read out). */
const announced = (dialog: Locator) => dialog.locator('.recipient-standing [aria-live="polite"]');

/** A two-key shortcut ("g s") pressed with the focus on the page, not in a field. */
async function chord(page: Page, first: string, second: string) {
  await page.keyboard.press(first);
  await page.keyboard.press(second);
}

/** Settings → Saved recipients: a label and a trade URL typed, Enter adds it. */
async function addRecipient(page: Page, label: string, partner: number) {
  await chord(page, 'g', 's');
  const section = page.getByRole('region', { name: 'Saved recipients' });
  await section.getByLabel('Label').focus();
  await page.keyboard.type(label);
  await section.getByLabel('Trade URL').focus();
  await page.keyboard.type(tradeUrlOf(partner));
  await page.keyboard.press('Enter');
  await expect(section.getByRole('list', { name: 'Saved recipients' })).toContainText(label);
}

/** Catalog: "/" to search, the item typed, Escape, Home selects the first row, B opens "Buy item". */
async function openBuy(page: Page) {
  await page.keyboard.press('Escape');
  await chord(page, 'g', 'c');
  await page.keyboard.press('/');
  await page.keyboard.type('Standing Order');
  const row = page.getByRole('grid', { name: 'Catalog' }).locator('[role="row"][aria-selected]');
  await expect(row).toHaveCount(1, { timeout: 15_000 });
  await page.keyboard.press('Escape');
  await page.keyboard.press('Home');
  await expect(row.first()).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('b');
  const dialog = page.getByRole('dialog', { name: 'Buy item' });
  await expect(dialog.locator('.buy-item-name')).toHaveText(TARGET.market_hash_name);
  return dialog;
}

test('the buy dialogs say a recipient at the cap, near or in a block before Review; keyboard only, axe in both themes', async ({
  page,
}) => {
  await openApp(page, stack());
  await expectFeedLive(page);
  // The merchant's back end fills one recipient to the cap and gets 7 offers to another declined.
  await buyFor(stack(), CAPPED, 30, 9_310_001, 300);
  const declined = await buyFor(stack(), NEAR, 8, 9_320_001, 300);
  for (const tradeId of declined.slice(0, 7)) {
    await stack().admin.transition(tradeId, { status: 'SENT' });
    await stack().admin.transition(tradeId, { status: 'CANCELLED', errorCode: 504 });
  }
  await page.locator('body').focus();
  await addRecipient(page, 'Capped Carl', CAPPED);

  // Buy item: the saved recipient (the first one) is chosen; its standing says the buy would be refused, announced.
  let dialog = await openBuy(page);
  const standing = dialog.locator('.recipient-standing');
  await expect(standing).toContainText('30 of 30 active offers', { timeout: 15_000 });
  await expect(standing).toContainText('0 of 10 declined or expired in 24 h');
  const status = announced(dialog).filter({ hasText: 'would be refused' });
  await expect(status).toContainText('A buy to this recipient now would be refused (too_many_active_trades).');
  await expect(status).toContainText('already has 30 of 30 active offers from you');
  await expect(dialog.getByText('You pay')).toBeHidden();
  await expectAxeClean(page, 'dark: buy dialog, recipient at the cap');

  // Another recipient, pasted from the keyboard: 7 declines of 10, near the block, not refused.
  await dialog.getByLabel('Recipient', { exact: true }).focus();
  await page.keyboard.press('End');
  const url = dialog.getByLabel('Recipient trade URL');
  await expect(url).toBeVisible();
  await url.focus();
  await page.keyboard.type(tradeUrlOf(NEAR));
  await expect(standing).toContainText('7 of 10 declined or expired in 24 h', { timeout: 15_000 });
  await expect(standing).toContainText('1 of 30 active offers');
  const near = announced(dialog).filter({ hasText: 'near a limit' });
  await expect(near).toContainText('This recipient is near a limit.');
  await expect(near).toContainText('7 of your offers to this recipient were declined or expired in 24 h');
  await expect(dialog.getByText('would be refused')).toHaveCount(0);
  await expectAxeClean(page, 'dark: buy dialog, recipient near a block');
  // Review (Enter in the form) shows the same warning on the confirm step.
  await page.keyboard.press('Enter');
  await expect(dialog.getByText('You pay')).toBeVisible();
  await expect(dialog.getByRole('list', { name: 'Warnings' })).toContainText('7 of your offers');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();

  // 10 declines: the marketplace blocks the recipient; the desk says so before Review, then learns the block's end
  // from the refusal and counts down to it.
  const struck = await buyFor(stack(), BLOCKED, 10, 9_330_001, 300);
  for (const tradeId of struck) {
    await stack().admin.transition(tradeId, { status: 'SENT' });
    await stack().admin.transition(tradeId, { status: 'CANCELLED', errorCode: 504 });
  }
  dialog = await openBuy(page);
  await dialog.getByLabel('Recipient', { exact: true }).focus();
  await page.keyboard.press('End');
  await dialog.getByLabel('Recipient trade URL').focus();
  await page.keyboard.type(tradeUrlOf(BLOCKED));
  await expect(standing).toContainText('10 of 10 declined or expired in 24 h', { timeout: 15_000 });
  await expect(announced(dialog).filter({ hasText: 'would be refused' })).toContainText(
    'A buy to this recipient now would be refused (partner_blocked).',
  );
  await page.keyboard.press('Enter');
  const confirm = dialog.getByRole('button', { name: 'Confirm buy' });
  await expect(confirm).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog.getByRole('alert')).toContainText('partner_blocked');
  await dialog.getByRole('button', { name: 'Edit' }).focus();
  await page.keyboard.press('Enter');
  await expect(standing).toContainText(/blocked until .+ \((\d\d:)?\d\d:\d\d left\)/, { timeout: 15_000 });
  await expect(announced(dialog).filter({ hasText: 'would be refused' })).toContainText(
    'This recipient is blocked until',
  );
  await expectAxeClean(page, 'dark: buy dialog, recipient blocked');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();

  // Buy by name (N) with a name the cache does not hold: the standing before Review, the recipient's warning after.
  await page.keyboard.press('n');
  dialog = page.getByRole('dialog', { name: 'Buy by name' });
  await expect(dialog).toBeVisible();
  // N opens it with the selected row's name and price: both typed over.
  await dialog.getByRole('combobox', { name: 'Market hash name' }).focus();
  await page.keyboard.press('Control+a');
  await page.keyboard.type('Nothing | Like This (Factory New)');
  await dialog.getByLabel('Max price ($)').focus();
  await page.keyboard.press('Control+a');
  await page.keyboard.type('10.00');
  await expect(announced(dialog).filter({ hasText: 'would be refused' })).toContainText('(too_many_active_trades)', {
    timeout: 15_000,
  });
  await page.keyboard.press('Enter');
  const warnings = dialog.getByRole('list', { name: 'Warnings' });
  await expect(warnings).toContainText('No listing named Nothing | Like This (Factory New) in the local catalog');
  await expect(warnings).toContainText('already has 30 of 30 active offers from you');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();

  // The light theme, chosen from the keyboard.
  await chord(page, 'g', 's');
  await page.getByRole('radio', { name: /light/i }).focus();
  await page.keyboard.press('Space');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await page.locator('body').focus();
  dialog = await openBuy(page);
  await expect(announced(dialog).filter({ hasText: 'would be refused' })).toBeVisible({ timeout: 15_000 });
  await expectAxeClean(page, 'light: buy dialog, recipient at the cap');
  await dialog.getByLabel('Recipient', { exact: true }).focus();
  await page.keyboard.press('End');
  await dialog.getByLabel('Recipient trade URL').focus();
  await page.keyboard.type(tradeUrlOf(NEAR));
  await expect(announced(dialog).filter({ hasText: 'near a limit' })).toBeVisible({ timeout: 15_000 });
  await expectAxeClean(page, 'light: buy dialog, recipient near a block');
});
