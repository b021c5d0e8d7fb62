// Buys for recipients through the engine: new listings, each held by its own account (the sandbox allows 5 active
// offers per holder), bought for a partner's trade URL.
import type { Item } from '../../src/shared/api';
import type { BuyOutcome } from '../../src/shared/ipc';
import type { EngineOnSandbox } from './engineOnSandbox';
import { adminApi, at, tradeUrlFor } from './sandboxHttp';
import { waitFor } from './waitFor';

/** A Steam id of a holding account, distinct per `n`. */
const holder = (n: number) => `7656119${String(n).padStart(10, '0')}`;

/** The trade a buy made; its failure fails the test. */
export function bought(outcome: BuyOutcome) {
  if (!outcome.ok) throw new Error(`expected a trade, got ${outcome.failure.code}: ${outcome.failure.message}`);
  return outcome.trade;
}

/** New listings (`specs` as the admin API takes them), on sale at the server and in the engine's cache. */
export async function newListings(
  { sb, app }: Pick<EngineOnSandbox, 'sb' | 'app'>,
  specs: Partial<Item>[],
): Promise<Item[]> {
  const items = (await adminApi(sb).post<{ items: Item[] }>('/admin/items', { items: specs })).body.items;
  await waitFor(
    async () => (await app.call('catalog.item', { itemId: at(items, items.length - 1).itemId }))?.onSale === true,
    10_000,
    'the listings in the cache',
  );
  return items;
}

/** Listings and buys on `env()`'s sandbox and engine; item ids from `firstItemId`. */
export function recipientBuys(env: () => EngineOnSandbox, firstItemId: number) {
  let nextItemId = firstItemId;
  return {
    /** `count` new listings at 400 + i cents, the i-th held by holder `firstHolder + i`, once the cache has them. */
    listings: (count: number, firstHolder: number): Promise<Item[]> =>
      newListings(
        env(),
        Array.from({ length: count }, (_, i) => ({
          itemId: nextItemId++,
          price: 400 + i,
          steamId: holder(firstHolder + i),
        })),
      ),

    /** The engine's buy of `item` for `partner`'s trade URL. */
    buy: (item: Item, partner: number) =>
      env().app.call('buy.byId', {
        itemId: item.itemId,
        assetId: item.assetId,
        price: item.price,
        recipient: { tradeUrl: tradeUrlFor(partner) },
      }),
  };
}
