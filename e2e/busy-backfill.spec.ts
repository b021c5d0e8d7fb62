// A busy merchant's first back-fill, through the real web host and Chromium: the sandbox holds 30 days × 500 trades
// (the admin helper `POST /admin/merchants/:id/history`), the data folder is empty. The last 14 days come in one
// streamed answer, the older half is paged; the status bar shows the progress while another screen answers. The web
// host is stopped while it pages and started again on the same data folder: the fill goes on from the oldest trade it
// stored (no stored page asked again, counted at a proxy between the host and the sandbox), then one "Trade history
// loaded" counts every trade, and no trade of the history is notified alone.
//
// The pace: at the spec's limits these pages go out in a few seconds, too fast to stop the host between two of them
// on purpose. The proxy holds each answer of the fill's pages PAGE_DELAY_MS (a slow server); the rest passes as is.
// The history ends an hour ago: every offer still SENT then has expired before the host starts, so nothing of it
// changes live during the test (a live change would be told alone, rightly).
import Database from 'better-sqlite3';
import type { Page } from '@playwright/test';
import { accountStoreFile } from '../src/main/core/engine/accountFiles';
import { HISTORY_FILL_META, HISTORY_MARK_META } from '../src/main/core/store/schema';
import { HISTORY_MAX_LIMIT } from '../src/shared/api';
import { fillQuery, fillRequests, windowRequests } from '../test/support/historyRequests';
import { goTo, openApp, statusBar } from './support/app';
import { expectAxeClean } from './support/axe';
import { expect, test, useStack, type Stack } from './support/stack';

const DAYS = 30;
const PER_DAY = 500;
const TRADES = DAYS * PER_DAY;
/** How long the proxy holds each answer of the fill's pages. */
const PAGE_DELAY_MS = 2_000;
const HOUR_MS = 3_600_000;

let newestExternalId = '';

const stack = useStack({
  items: 300,
  seed: 34,
  proxy: true,
  restartableHost: true,
  async prepare({ sandbox, admin, merchant, proxy }) {
    const seeded = await admin.post<{ trades: number }>(`/admin/merchants/${merchant.merchantId}/history`, {
      days: DAYS,
      tradesPerDay: PER_DAY,
      recipients: 200,
      seed: 34,
      endAt: new Date(Date.now() - HOUR_MS).toISOString(),
    });
    if (seeded.status !== 201 || seeded.body.trades !== TRADES)
      throw new Error(`history: ${seeded.status} ${JSON.stringify(seeded.body)}`);
    // The offers still SENT an hour ago expired half an hour ago: their timers fire now, before the host starts.
    const sent = sandbox.core.db
      .prepare("SELECT count(*) FROM trades WHERE merchant_id = ? AND status = 'SENT'")
      .pluck();
    for (let waited = 0; (sent.get(merchant.merchantId) as number) > 0; waited += 50) {
      if (waited > 30_000) throw new Error('offers of the history are still SENT after 30 s');
      await new Promise((done) => setTimeout(done, 50));
    }
    newestExternalId = sandbox.core.db
      .prepare('SELECT external_id FROM trades WHERE merchant_id = ? ORDER BY created_at DESC, seq DESC LIMIT 1')
      .pluck()
      .get(merchant.merchantId) as string;
    proxy?.inject((_method, path) => fillQuery(path) !== null, { kind: 'delay', delayMs: PAGE_DELAY_MS });
  },
});

/** How many of the merchant's trades the server holds created at `at` or before it (`'<='`), or at it or after. */
function serverCount(s: Stack, op: '<=' | '>=', at: string): number {
  return s.sandbox.core.db
    .prepare(`SELECT count(*) FROM trades WHERE merchant_id = ? AND created_at ${op} ?`)
    .pluck()
    .get(s.merchant.merchantId, Date.parse(at)) as number;
}

/** The account's cache in the web host's data folder, read while no host runs: trade ids, oldest trade, meta. */
function cacheOf(s: Stack): { tradeIds: string[]; oldest: string | null; meta: (key: string) => unknown } {
  const db = new Database(accountStoreFile(s.dataDir, s.merchant.merchantId), { readonly: true });
  try {
    const tradeIds = db.prepare('SELECT tradeId FROM trades').pluck().all() as string[];
    const oldest = db.prepare('SELECT min(createdAt) FROM trades').pluck().get() as string | null;
    const rows = db.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[];
    const meta = new Map(rows.map((row) => [row.key, JSON.parse(row.value) as unknown]));
    return { tradeIds, oldest, meta: (key) => meta.get(key) ?? null };
  } finally {
    db.close();
  }
}

const backfill = (page: Page) => statusBar(page).getByRole('progressbar', { name: 'Trade history back-fill' });

/** Pages of the fill stored, as the progress bar says (-1 while it has no count: the window, or no bar). */
async function pagesShown(page: Page): Promise<number> {
  const value = await backfill(page)
    .getAttribute('aria-valuenow', { timeout: 1_000 })
    .catch(() => null);
  return value === null ? -1 : Number(value);
}

async function pagesTotal(page: Page): Promise<number> {
  return Number(await backfill(page).getAttribute('aria-valuemax'));
}

test("a busy merchant's first back-fill shows its progress while the UI answers, goes on after a restart from where it was, and ends in one summary", async ({
  page,
}) => {
  test.setTimeout(240_000);
  const s = stack();
  const { proxy } = s;
  const bar = statusBar(page);
  const tradeRows = page.getByRole('table', { name: 'Trades' }).locator('tbody tr');

  // 1. The first open on an empty data folder: the back-fill's progress in the status bar, the older history paged.
  await openApp(page, s);
  await expect(backfill(page)).toBeVisible({ timeout: 60_000 });
  await expect(backfill(page)).toHaveAttribute('aria-valuemax', /^\d+$/, { timeout: 60_000 });
  const windowOldest = fillRequests(proxy)[0]?.get('to') ?? '';
  const pages = Math.ceil(serverCount(s, '<=', windowOldest) / HISTORY_MAX_LIMIT);
  expect(pages).toBeGreaterThanOrEqual(10); // 16 of the 30 days are older than the window
  expect(await pagesTotal(page)).toBe(pages);
  await expect(bar).toContainText(new RegExp(`page \\d+ of ${pages}`));
  await expect(backfill(page)).toHaveAttribute('aria-valuetext', new RegExp(`^\\d+ of ${pages}`));

  // Meanwhile the UI answers: another screen and its data, the trades already stored, the newest first.
  await goTo(page, 'Wallet');
  await expect(page.locator('.card', { hasText: 'Balance' }).first()).toContainText('$');
  await goTo(page, 'Trades');
  await page.getByRole('tab', { name: 'History' }).click();
  await expect(tradeRows.first()).toContainText(newestExternalId, { timeout: 30_000 });
  // …and the fill was still paging when all of that had answered.
  await expect(backfill(page)).toBeVisible();
  expect(await pagesShown(page)).toBeLessThan(pages);
  await expectAxeClean(page, 'the status bar with the back-fill (dark theme)', '.statusbar');

  // 3. Stopped while it pages the older history: two pages stored or more, not finished.
  await expect.poll(() => pagesShown(page), { timeout: 60_000 }).toBeGreaterThanOrEqual(2);
  const shownAtStop = await pagesShown(page);
  expect(shownAtStop).toBeLessThan(pages);
  await s.stopHost();
  const firstRun = fillRequests(proxy);
  expect(firstRun.every((params) => params.get('to') === windowOldest)).toBe(true);
  // What it left: the newest trades down to the oldest it stored, where it was (in the same transactions), no mark.
  const left = cacheOf(s);
  const position = left.oldest ?? '';
  const fill = left.meta(HISTORY_FILL_META) as { to: string; done: number; left: number | null } | null;
  expect(fill).toMatchObject({ to: position });
  expect(fill?.done).toBeGreaterThanOrEqual(shownAtStop);
  expect(fill?.done).toBeLessThan(pages);
  expect(left.meta(HISTORY_MARK_META)).toBeNull();
  expect(left.tradeIds.length).toBe(serverCount(s, '>=', position));
  expect(left.tradeIds.length).toBeLessThan(TRADES);

  // Started again on the same data folder: the progress goes on from the pages stored, not from zero.
  const before = proxy.requests.length;
  await s.startHost();
  await openApp(page, s);
  await expect(backfill(page)).toHaveAttribute('aria-valuemax', /^\d+$/, { timeout: 60_000 });
  const resumedAt = await pagesShown(page);
  expect(resumedAt).toBeGreaterThanOrEqual(fill?.done ?? Infinity);
  expect(resumedAt).toBeLessThan(await pagesTotal(page));

  // 4. The progress passes axe in the light theme too.
  await goTo(page, 'Settings');
  await page.getByRole('radio', { name: /light/i }).check();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await expect(backfill(page)).toBeVisible();
  await expectAxeClean(page, 'the status bar with the back-fill (light theme)', '.statusbar');

  // Done: no page of the first run asked again. The second run pages from the oldest trade stored (inclusive: the
  // trades of that millisecond are the only overlap) down, each page once, and the window is not streamed again.
  await expect(backfill(page)).toHaveCount(0, { timeout: 120_000 });
  const remaining = serverCount(s, '<=', position);
  expect(fillRequests(proxy, before).map((params) => [params.get('to'), params.get('page')])).toEqual(
    Array.from({ length: Math.ceil(remaining / HISTORY_MAX_LIMIT) }, (_, i) => [position, String(i + 1)]),
  );
  expect(windowRequests(proxy)).toBe(1);

  // 2. One notification for the history, counting every trade; none for any trade of it alone.
  const serverTotal = (await s.api.get<{ total: number }>('/Trades/History?limit=1')).body.total;
  expect(serverTotal).toBe(TRADES);
  await goTo(page, 'Notifications');
  const list = page.getByRole('list', { name: 'Notifications' });
  const loaded = list.locator(':scope > li').filter({ hasText: 'Trade history loaded' });
  await expect(loaded).toHaveCount(1, { timeout: 30_000 });
  await expect(loaded).toContainText(`${serverTotal.toLocaleString('en-US')} trades loaded`);
  await expect(list.getByRole('button', { name: /^Open trade/ })).toHaveCount(0);
  await expect(list).not.toContainText('Trades caught up');
  await page.getByRole('group', { name: 'Kind' }).getByRole('button', { name: 'Trades', exact: true }).click();
  await expect(list.locator(':scope > li')).toHaveCount(1);
  await expect(list.locator(':scope > li')).toContainText('Trade history loaded');

  // The Trades screen counts the server's trades, and the cache holds each of them once.
  await goTo(page, 'Trades');
  await page.getByRole('tab', { name: 'History' }).click();
  await expect(page.locator('.head-stats')).toContainText(`${serverTotal.toLocaleString('en-US')} matching`);
  await s.stopHost();
  const cached = cacheOf(s);
  expect(cached.tradeIds).toHaveLength(serverTotal);
  const serverIds = s.sandbox.core.db
    .prepare('SELECT trade_id FROM trades WHERE merchant_id = ?')
    .pluck()
    .all(s.merchant.merchantId) as string[];
  expect(new Set(cached.tradeIds)).toEqual(new Set(serverIds));
  expect(cached.meta(HISTORY_FILL_META)).toBeNull();
  expect(typeof cached.meta(HISTORY_MARK_META)).toBe('string');
});
