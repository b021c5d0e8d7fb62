// Page helpers shared by the specs: opening the app, the catalog grid, the status bar, screenshots.
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, type Locator, type Page, type TestInfo } from '@playwright/test';
import { ROOT, type Stack } from './stack';

export const TRADE_URL = 'https://steamcommunity.com/tradeoffer/new/?partner=12345678&token=AbCd1234';
export const SCREENSHOT_DIR = join(ROOT, 'docs', 'screenshots');
/** The docs' screenshots are replaced only when asked: a plain test run leaves tracked files alone. */
export const PUBLISH_SCREENSHOTS = process.env['MERCHANT_DESK_SCREENSHOTS'] === '1';

/** Opens the web host's token URL (it answers with a cookie and a redirect) and waits for the shell. */
export async function openApp(page: Page, stack: Pick<Stack, 'url'>, hash = ''): Promise<void> {
  await page.goto(`${stack.url}${hash}`);
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
}

export function statusBar(page: Page): Locator {
  return page.getByRole('region', { name: 'Status bar' });
}

/**
 * The feed state label in the status bar ("Live" when connected). A minute: a loaded machine's sandbox may let one
 * catch-up request time out (15 s) before the recovery's succeeds; a failure says what the status bar said.
 */
export async function expectFeedLive(page: Page, timeout = 60_000): Promise<void> {
  const state = statusBar(page).locator('.conn-state');
  try {
    await expect(state.locator('strong')).toHaveText('Live', { timeout });
  } catch (error) {
    const detail = await state.getAttribute('title', { timeout: 1_000 }).catch(() => null);
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`The feed is not live; the status bar says: ${detail ?? '(no detail)'}\n${message}`, {
      cause: error,
    });
  }
}

/**
 * Takes the marketplace away: stops the sandbox and waits (a minute, as the feed gives up) for the status bar to say
 * the desk shows cached data; with `reload`, then presses the screen's Reload so it reads the cache again.
 */
export async function goOffline(
  page: Page,
  stack: Pick<Stack, 'stopSandbox'>,
  options: { reload?: boolean } = {},
): Promise<void> {
  await stack.stopSandbox();
  await expect(
    page
      .getByRole('status')
      .filter({ hasText: /cached data/ })
      .first(),
  ).toBeVisible({ timeout: 60_000 });
  if (options.reload) await page.getByRole('button', { name: 'Reload' }).click();
}

export function catalogGrid(page: Page): Locator {
  return page.getByRole('grid', { name: 'Catalog' });
}

/** Rows holding an item (skeleton rows have no aria-selected). */
export function dataRows(page: Page): Locator {
  return catalogGrid(page).locator('[role="row"][aria-selected]');
}

/** Parses "$1,234.56" (with an optional ▲/▼ mark) into cents. */
export function parseMoney(text: string): number {
  const match = /(-)?\$([\d,]+)\.(\d{2})/.exec(text);
  if (!match) throw new Error(`not a dollar amount: ${JSON.stringify(text)}`);
  const cents = Number(match[2]?.replace(/,/g, '')) * 100 + Number(match[3]);
  return match[1] ? -cents : cents;
}

/** The price cell (8th column) of a catalog row, in cents. */
export async function rowPrice(row: Locator): Promise<number> {
  return parseMoney((await row.getByRole('gridcell').nth(7).textContent()) ?? '');
}

export async function rowName(row: Locator): Promise<string> {
  return ((await row.locator('.name-text').textContent()) ?? '').trim();
}

export async function goTo(
  page: Page,
  screen: 'Catalog' | 'Trades' | 'Wallet' | 'Alerts' | 'Operations' | 'Notifications' | 'Settings',
): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: screen, exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name: screen })).toBeVisible();
}

/**
 * Saves a screenshot as a test artifact (under test-results/, attached to the report) and, with `publish` and
 * MERCHANT_DESK_SCREENSHOTS=1, copies it to docs/screenshots/<name>.png.
 */
export async function screenshot(page: Page, testInfo: TestInfo, name: string, publish = false): Promise<string> {
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path, animations: 'disabled', caret: 'hide' });
  await testInfo.attach(name, { path, contentType: 'image/png' });
  if (publish && PUBLISH_SCREENSHOTS) {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    copyFileSync(path, join(SCREENSHOT_DIR, `${name}.png`));
  }
  return path;
}

/** RFC 4180 CSV (quoted fields, doubled quotes, CRLF or LF) into rows of fields. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += ch;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/**
 * Starts a CSV export (`start`: a click on Export CSV, the E key…): the engine writes the file and the status bar
 * offers it once done. Downloads it from there, saves it in the test's output dir, and dismisses the export.
 */
export async function download(
  page: Page,
  start: Locator | (() => Promise<void>),
  testInfo: TestInfo,
): Promise<{ name: string; text: string; path: string }> {
  const bar = statusBar(page);
  await (typeof start === 'function' ? start() : start.click());
  const offered = bar.getByRole('button', { name: 'Download CSV' });
  await expect(offered).toBeVisible({ timeout: 60_000 });
  const [file] = await Promise.all([page.waitForEvent('download'), offered.click()]);
  const name = file.suggestedFilename();
  const path = testInfo.outputPath(name);
  await file.saveAs(path);
  await testInfo.attach(name, { path, contentType: 'text/csv' });
  await bar.getByRole('button', { name: /^Dismiss the .* export$/ }).click();
  await expect(offered).toHaveCount(0);
  return { name, text: readFileSync(path, 'utf8'), path };
}

/**
 * Waits until every loaded catalog row satisfies `check` (queries apply after a short
 * debounce, and the old rows stay until the new ones arrive). Returns how many rows there were.
 */
export async function expectEveryRow(
  page: Page,
  check: (row: Locator) => Promise<boolean>,
  what: string,
  timeout = 20_000,
): Promise<number> {
  let count = 0;
  await expect
    .poll(
      async () => {
        const rows = await dataRows(page).all();
        count = rows.length;
        if (rows.length === 0) return 'no rows';
        for (const [i, row] of rows.entries()) if (!(await check(row))) return `row ${i} is not ${what}`;
        return 'ok';
      },
      { message: `every visible row is ${what}`, timeout },
    )
    .toBe('ok');
  return count;
}

/** Waits until the grid shows at least `min` loaded rows and no skeleton (nothing blank on screen). */
export async function expectRowsRendered(page: Page, min = 10, timeout = 15_000): Promise<void> {
  const skeletons = catalogGrid(page).locator('.grid-row.skeleton');
  await expect
    .poll(async () => ({ enough: (await dataRows(page).count()) >= min, skeletons: await skeletons.count() }), {
      message: `at least ${min} loaded rows and no skeleton`,
      timeout,
    })
    .toEqual({ enough: true, skeletons: 0 });
}

/** Opens a filter section of the catalog (Rarity, Seed list, Charms, Sticker combos, Deals) from its toggle. */
export async function openFilterSection(page: Page, title: string): Promise<void> {
  const toggle = page
    .getByRole('group', { name: 'Filters' })
    .getByRole('button', { name: new RegExp(`^${title}( \\d+ set)?$`) });
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  await expect(page.getByRole('group', { name: title, exact: true })).toBeVisible();
}

/** The "N matching" count of the catalog header once the current query has answered (null before). */
export async function matchingCount(page: Page): Promise<number | null> {
  const text = (await page.getByLabel('Catalog summary').textContent()) ?? '';
  const match = /([\d,]+) matching/.exec(text);
  return match?.[1] ? Number(match[1].replace(/,/g, '')) : null;
}

/** The text of one column (0 = rarity … 8 = age) of every loaded catalog row, top to bottom. */
export async function columnTexts(page: Page, column: number): Promise<string[]> {
  return dataRows(page).evaluateAll(
    (rows, col) =>
      rows
        .map((row) => ({
          index: Number(row.getAttribute('aria-rowindex')),
          text: (row.querySelectorAll('[role="gridcell"]')[col]?.textContent ?? '').trim(),
        }))
        .sort((a, b) => a.index - b.index)
        .map((r) => r.text),
    column,
  );
}

/** The row of the catalog showing `name` (a loaded row). */
export function rowNamed(page: Page, name: string): Locator {
  return dataRows(page).filter({
    has: page.locator('.name-text', { hasText: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }),
  });
}
