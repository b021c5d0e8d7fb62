// A busy merchant's export: 150,000 cached trades (written straight into the account's cache in the web host's
// data folder). The engine writes the CSV to a file while the page goes on working (another screen, a trade's
// detail, the ledger's answer) with the export's progress on show; then the page downloads the file from the web
// host and it holds every trade.
import { readFileSync } from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { cacheHistory, screenOrder } from '../test/support/cachedHistory';
import { goTo, openApp, parseCsv, statusBar } from './support/app';
import { expect, test, useStack } from './support/stack';

const TRADES = 150_000;
let newest = { tradeId: '', externalId: '' };

const stack = useStack({
  items: 300,
  async prepare({ merchant, dataDir }) {
    const { trades } = await cacheHistory(dataDir, merchant.merchantId, { trades: TRADES, ledger: 0 });
    const [first] = screenOrder(trades, (t) => t.tradeId);
    newest = { tradeId: first?.tradeId ?? '', externalId: first?.externalId ?? '' };
  },
});

/** axe's WCAG 2.1 A/AA findings in the status bar, one line each. */
async function axeFindings(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .include('.statusbar')
    .analyze();
  return result.violations.flatMap((v) => v.nodes.map((node) => `${v.id}: ${node.target.join(' ')}`));
}

test('an export streams to a file while the UI answers, then downloads with every row', async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  await openApp(page, stack());
  await goTo(page, 'Trades');
  await page.getByRole('tab', { name: 'History' }).click();
  const rows = page.getByRole('table', { name: 'Trades' }).locator('tbody tr');
  await expect(rows.first()).toContainText(newest.externalId, { timeout: 30_000 });

  const bar = statusBar(page);
  const progress = bar.getByRole('progressbar', { name: 'Trades export' });
  await page.getByRole('button', { name: 'Export CSV' }).click();

  // The export's progress shows in the status bar…
  await expect(progress).toBeVisible({ timeout: 30_000 });
  // …and meanwhile the page answers: a trade's detail, another screen and its data, back again.
  await rows.first().click();
  await expect(page.getByRole('complementary', { name: 'Trade detail' })).toContainText(newest.externalId);
  await goTo(page, 'Wallet');
  await expect(page.locator('.card', { hasText: 'Balance' }).first()).toContainText('$');
  await goTo(page, 'Trades');
  await expect(rows.first()).toContainText(newest.externalId);
  // The export was still under way when all of that had answered.
  await expect(progress).toBeVisible();
  const midway = Number(await progress.getAttribute('aria-valuenow'));
  expect(midway).toBeLessThan(TRADES);
  expect(await bar.getByRole('button', { name: 'Cancel export' }).isEnabled()).toBe(true);
  expect(await axeFindings(page)).toEqual([]);

  // Done: the file is offered, axe-clean in both themes, and taken with the keyboard.
  const offered = bar.getByRole('button', { name: 'Download CSV' });
  await expect(offered).toBeVisible({ timeout: 120_000 });
  await expect(bar).toContainText(`Trades exported: ${TRADES.toLocaleString('en-US')} rows`);
  expect(await axeFindings(page)).toEqual([]);
  await goTo(page, 'Settings');
  await page.getByRole('radio', { name: /light/i }).check();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  expect(await axeFindings(page)).toEqual([]);
  await offered.focus();
  const [file] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
  expect(file.suggestedFilename()).toMatch(/^trades-.+\.csv$/);
  const path = testInfo.outputPath(file.suggestedFilename());
  await file.saveAs(path);
  const [header, ...lines] = parseCsv(readFileSync(path, 'utf8'));
  expect(header?.[0]).toBe('tradeId');
  expect(lines).toHaveLength(TRADES);
  expect(lines[0]?.[0]).toBe(newest.tradeId);
  expect(new Set(lines.map((line) => line[0])).size).toBe(TRADES);
  await bar.getByRole('button', { name: 'Dismiss the trades export' }).press('Enter');
  await expect(offered).toHaveCount(0);
});
