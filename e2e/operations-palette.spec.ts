// The palette goes straight to each view of the operations console and to the balance runway, keyboard only: the
// view's section scrolled into view with its heading focused, so Tab goes on into the section's own controls.
import { openApp } from './support/app';
import { expectAxeClean } from './support/axe';
import { expect, test, useStack } from './support/stack';

const stack = useStack({ items: 100, seed: 41, merchant: { balance: 1_000_000 } });

test.describe.configure({ timeout: 120_000 });

test('the palette opens each operations view and the balance runway, the heading focused; Tab goes into it', async ({
  page,
}) => {
  await openApp(page, stack());
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible({ timeout: 30_000 });
  const palette = page.getByRole('dialog', { name: 'Command palette' });
  // The empty Reversals and Webhook health views have no control of their own to Tab to.
  for (const [typed, screen, heading, controls] of [
    ['recipients', 'Operations', 'Recipients', true],
    ['failures', 'Operations', 'Failures', true],
    ['reversals', 'Operations', 'Reversals', false],
    ['webhook health', 'Operations', 'Webhook health', false],
    ['runway', 'Wallet', 'Balance runway', true],
  ] as const) {
    await page.keyboard.press('Control+k');
    await expect(palette).toBeVisible();
    await page.keyboard.type(typed);
    await page.keyboard.press('Enter');
    await expect(palette).toBeHidden();
    await expect(page.getByRole('heading', { level: 1, name: screen })).toBeVisible();
    const title = page.getByRole('heading', { name: heading, exact: true });
    await expect(title, `"${typed}" in the palette`).toBeFocused();
    await expect(title).toBeInViewport();
    if (!controls) continue;
    // Tab goes on into the view's own controls.
    await page.keyboard.press('Tab');
    await expect(page.getByRole('region', { name: heading, exact: true }).locator(':focus')).toHaveCount(1);
  }
  await expectAxeClean(page, 'dark: the runway reached from the palette');
});
