/**
 * A live trade update reflected in the open Operations screen: with Recipients filtered to a new recipient, the
 * marketplace (the sandbox, as the merchant's back end buys and the platform moves trades) creates a trade for them,
 * and once the view lists it, declines it (504). Each time from the request to the marketplace until the open view
 * shows it, ms: `declined` is a live update of a trade the cache holds (the feed's frame, the store write, the view's
 * signal and read, the render), in Recipients and, timed from the same request, in the Failures board's today's
 * "Declined (504)" cell (`board`); `created` a trade the desk did not buy, which the engine reads by id over REST first.
 */
import type { Locator, Page } from '@playwright/test';
import type { Item } from '../../src/shared/api';
import type { Sandbox } from '../../src/server/sandbox';
import { adminApi, merchantApi, tradeUrlFor } from '../../test/support/sandboxHttp';
import type { MerchantCredentials } from './sandbox';

/** Partners past the busy store's (100001…): new recipients. */
const FIRST_PARTNER = 1_999_001;
const SHOWN = { timeout: 30_000 };
/** A trade the desk did not buy waits for its read by id, behind the start-up's requests. */
const LISTED = { timeout: 180_000 };

export async function timeLiveUpdates(
  page: Page,
  sb: Sandbox,
  merchant: MerchantCredentials,
  reps: number,
): Promise<{ created: number[]; declined: number[]; board: number[] }> {
  const admin = adminApi(sb);
  const api = merchantApi(sb, merchant);
  await page.locator('body').click({ position: { x: 1, y: 1 } });
  await page.keyboard.press('g');
  await page.keyboard.press('o');
  const recipients = page.getByRole('region', { name: 'Recipients' });
  const filter = recipients.getByRole('searchbox', { name: 'Filter' });
  /** Waits for `locator`; a timeout says what the view showed instead. */
  const shown = async (locator: Locator, what: string, options = SHOWN) => {
    try {
      await locator.waitFor(options);
    } catch (error) {
      const text = await recipients.innerText().catch(() => '(unreadable)');
      throw new Error(`${what} not shown: ${(error as Error).message}\nthe view showed: ${text}`, { cause: error });
    }
  };
  const byDay = page
    .getByRole('region', { name: 'Failures', exact: true })
    .getByRole('table', { name: /By day \(UTC\)/ });
  /** Today's "Declined (504)" cell on the board, with `count` declines (any count when null). */
  const declinesCell = (count: number | null) =>
    byDay.getByRole('button', {
      name: new RegExp(
        `^${count === null ? '[\\d,]+' : count.toLocaleString('en-US')} trades: Declined \\(504\\), ${new Date().toISOString().slice(0, 10)}[,.]`,
      ),
    });
  const declinesToday = async () => {
    const name = await declinesCell(null).first().getAttribute('aria-label', SHOWN);
    return Number((/^([\d,]+)/.exec(name ?? '')?.[1] ?? '0').replaceAll(',', ''));
  };
  const created: number[] = [];
  const declined: number[] = [];
  const board: number[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const partner = FIRST_PARTNER + rep;
    await filter.fill(String(partner));
    await shown(recipients.getByText('No recipient matches'), 'the empty filtered view');
    const listed = await admin.post<{ items: Item[] }>('/admin/items', {
      items: [
        { itemId: 95_000_001 + rep, price: 1000, steamId: `7656119${String(95_000_001 + rep).padStart(10, '0')}` },
      ],
    });
    const item = listed.body.items[0];
    if (!item) throw new Error(`the sandbox listed no item: ${listed.status}`);
    const row = recipients.getByRole('row', { name: new RegExp(`${partner}`) });
    let started = performance.now();
    const bought = await api.post<{ tradeId: string }>('/Items/Buy', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      tradeUrl: tradeUrlFor(partner),
    });
    if (bought.status !== 200) throw new Error(`the buy failed: ${bought.status} ${JSON.stringify(bought.body)}`);
    await admin.transition(bought.body.tradeId, { status: 'SENT' });
    await shown(row.filter({ hasText: '1 / 30' }), 'the new trade', LISTED);
    created.push(performance.now() - started);
    const declinesBefore = await declinesToday();
    started = performance.now();
    await admin.transition(bought.body.tradeId, { status: 'CANCELLED', errorCode: 504 });
    const onBoard = shown(declinesCell(declinesBefore + 1), 'the decline on the board').then(
      () => performance.now() - started,
    );
    await shown(row.filter({ hasText: '1 / 10' }), 'the decline');
    declined.push(performance.now() - started);
    board.push(await onBoard);
  }
  return { created, declined, board };
}
