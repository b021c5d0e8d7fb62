// Alert rules share the catalog's filters: a seed list and a charm set in the catalog, saved as a search and
// watched, fire on a listing the sandbox adds that matches them and on none that misses one; the rule editor
// holds the same filter controls (edited from the keyboard) and passes axe in both themes.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expectFeedLive, goTo, openApp, screenshot } from './support/app';
import { expect, test, useStack } from './support/stack';

const stack = useStack({ items: 2000, seed: 29, merchant: { balance: 100_000 } });

test.describe.configure({ timeout: 120_000 });

const CHARM = { name: 'Charm | Lil Ava', img: 'https://img.invalid/charm.png', slot: 0, pattern: 7 };
/** A Seedwatch listing: its seed, whether it has a charm, its price in cents. */
const listing = (n: number, paintSeed: number, charm: boolean, price: number) => ({
  itemId: 3_300_000 + n,
  assetId: String(33_000_000 + n),
  market_hash_name: 'AK-47 | Seedwatch (Field-Tested)',
  price,
  float: 0.2,
  phase: null,
  paintSeed,
  stickers: [],
  keyChains: charm ? [CHARM] : [],
});

const firingRows = (page: Page) => page.getByRole('table', { name: 'Alert firings' }).locator('tbody tr');
const savedList = (page: Page) =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('list', { name: 'Saved searches' });

async function openSection(page: Page, title: string): Promise<void> {
  const toggle = page.getByRole('button', { name: new RegExp(`^${title}( \\d+ set)?$`) });
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') {
    await toggle.focus();
    await page.keyboard.press('Enter');
  }
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
}

async function expectAxeClean(page: Page, include: string, where: string): Promise<void> {
  // Let the dialog's and the theme's transitions finish: axe reads computed colours.
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'));
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .include(include)
    .analyze();
  expect
    .soft(
      result.violations.flatMap((v) => v.nodes.map((node) => `${v.id}: ${node.target.join(' ')}`)),
      `axe on ${where}`,
    )
    .toEqual([]);
}

test('a watch of a saved search with a seed list and a charm fires on the listing that matches; the rule editor edits the same filters', async ({
  page,
}) => {
  await openApp(page, stack());
  await expectFeedLive(page);

  // The catalog's filters: the name, a pasted seed list, with a charm.
  await page.getByRole('searchbox', { name: 'Search items' }).fill('Seedwatch');
  await openSection(page, 'Seed list');
  await page.getByLabel('Paint seeds').fill('661, 670, 1-25');
  await openSection(page, 'Charms');
  await page.getByRole('combobox', { name: 'Has a charm' }).selectOption('yes');
  await page.getByRole('button', { name: 'Save search' }).click();
  await page.keyboard.type('Seedwatch gems');
  await page.keyboard.press('Enter');
  await expect(savedList(page).getByRole('button', { name: 'Seedwatch gems', exact: true })).toBeVisible();

  // Watched: every filter carries over, and the rule's line says them.
  await savedList(page).getByRole('button', { name: 'Actions for saved search “Seedwatch gems”' }).click();
  await savedList(page).getByRole('button', { name: 'Watch', exact: true }).click();
  const watchDialog = page.getByRole('dialog', { name: 'Watch “Seedwatch gems”' });
  await expect(watchDialog).toContainText('The watch matches: “Seedwatch” · seeds 1-25, 661, 670 · with a charm.');
  await watchDialog.getByRole('button', { name: 'Create watch' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Alerts' })).toBeVisible();
  const rule = page.getByRole('table', { name: 'Alert rules' }).locator('tbody tr', { hasText: 'Seedwatch gems' });
  await expect(rule).toContainText('“Seedwatch” · seeds 1-25, 661, 670 · with a charm');

  // The sandbox lists two that miss one filter each, then one that matches: only that one fires.
  await stack().admin.post('/admin/items', {
    items: [listing(1, 662, true, 1111), listing(2, 670, false, 2222), listing(3, 661, true, 1234)],
  });
  await expect(firingRows(page).filter({ hasText: '$12.34' })).toHaveCount(1, { timeout: 20_000 });
  await expect(firingRows(page)).toHaveCount(1);

  // The editor holds the same filter controls: its seed list, edited from the keyboard and saved with Enter.
  await page.getByRole('button', { name: 'Edit Seedwatch gems' }).click();
  const editor = page.getByRole('dialog', { name: 'Edit alert rule' });
  const seeds = editor.getByLabel('Paint seeds');
  await expect(seeds).toHaveValue('1-25, 661, 670');
  await expect(editor.getByRole('combobox', { name: 'Has a charm' })).toHaveValue('yes');
  await expectAxeClean(page, '.rule-dialog', 'the rule editor (dark)');
  await seeds.focus();
  await page.keyboard.press('Control+a');
  await page.keyboard.type('955 abc');
  // A list that does not parse is said, and the rule is not saved with it.
  await page.keyboard.press('Enter');
  await expect(editor.getByRole('alert').filter({ hasText: '"abc" is not a number' })).toBeVisible();
  await expect(editor.getByText('Fix the filter marked in red')).toBeVisible();
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Enter');
  await expect(editor).toBeHidden();
  await expect(rule).toContainText('“Seedwatch” · seeds 955 · with a charm');
  await stack().admin.post('/admin/items', { items: [listing(4, 661, true, 1300), listing(5, 955, true, 1400)] });
  await expect(firingRows(page).filter({ hasText: '$14.00' })).toHaveCount(1, { timeout: 20_000 });
  await expect(firingRows(page).filter({ hasText: '$13.00' })).toHaveCount(0);

  // The light theme: the editor passes axe there too.
  await goTo(page, 'Settings');
  await page.getByRole('radio', { name: /light/i }).check();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await goTo(page, 'Alerts');
  await page.getByRole('button', { name: 'Edit Seedwatch gems' }).click();
  await expect(editor.getByLabel('Paint seeds')).toHaveValue('955');
  await expectAxeClean(page, '.rule-dialog', 'the rule editor (light)');
  await screenshot(page, test.info(), 'rule-editor-light');
  await page.keyboard.press('Escape');
  await expect(editor).toBeHidden();
});
