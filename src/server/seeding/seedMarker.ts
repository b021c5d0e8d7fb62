import type { SandboxCore } from '../domain/core';

const MARKER_PREFIX = 'history_seed:';

/** What a seed in progress may have written: rows after these ids, items in this range. */
export interface SeedMarker {
  key: string;
  merchantId: string;
  tradeSeq: number;
  ledgerId: number;
  deliveryId: number;
  itemFrom: number;
  itemTo: number;
}

/** Thrown between chunks when the caller stopped the seed. */
export class SeedStopped extends Error {
  constructor() {
    super('Seeding was stopped; nothing of it was kept');
    this.name = 'SeedStopped';
  }
}

const maxOf = (core: SandboxCore, sql: string) => (core.db.prepare(sql).get() as { m: number }).m;

/**
 * Notes where the seed starts, and reserves the item ids of its trades (a placeholder row at the top of the range,
 * so new listings take ids above it), in one transaction before the first chunk.
 */
export function writeMarker(
  core: SandboxCore,
  merchantId: string,
  trades: number,
  placeholderItemId: number,
): SeedMarker {
  return core.db.transaction((): SeedMarker => {
    const itemFrom = core.catalog.maxItemId() + 1;
    const marker: SeedMarker = {
      key: `${MARKER_PREFIX}${merchantId}`,
      merchantId,
      tradeSeq: maxOf(core, 'SELECT coalesce(max(seq), 0) AS m FROM trades'),
      ledgerId: maxOf(core, 'SELECT coalesce(max(id), 0) AS m FROM ledger'),
      deliveryId: maxOf(core, 'SELECT coalesce(max(id), 0) AS m FROM webhook_deliveries'),
      itemFrom,
      itemTo: itemFrom + trades - 1,
    };
    core.db
      .prepare(
        `INSERT INTO items (item_id, asset_id, market_hash_name, phase, price, steam_id, inspect_in_game, trade_url, json, on_sale, updated_at)
         SELECT ?, asset_id, market_hash_name, phase, price, steam_id, inspect_in_game, trade_url, json, 0, updated_at
         FROM items WHERE item_id = ?`,
      )
      .run(marker.itemTo, placeholderItemId);
    core.meta.set(marker.key, JSON.stringify(marker));
    return marker;
  })();
}

/** Removes everything a seed that did not finish wrote (its marker says what), in one transaction. */
export function discardPartialSeed(core: SandboxCore, marker: SeedMarker): void {
  const params = { ...marker };
  core.db.transaction(() => {
    core.db
      .prepare(
        `DELETE FROM partner_strikes WHERE trade_id IN
           (SELECT trade_id FROM trades WHERE merchant_id = @merchantId AND seq > @tradeSeq)`,
      )
      .run(params);
    core.db.prepare('DELETE FROM webhook_deliveries WHERE merchant_id = @merchantId AND id > @deliveryId').run(params);
    core.db.prepare('DELETE FROM ledger WHERE merchant_id = @merchantId AND id > @ledgerId').run(params);
    core.db.prepare('DELETE FROM trades WHERE merchant_id = @merchantId AND seq > @tradeSeq').run(params);
    core.db.prepare('DELETE FROM items WHERE item_id BETWEEN @itemFrom AND @itemTo AND on_sale = 0').run(params);
    core.db.prepare('DELETE FROM meta WHERE key = @key').run(params);
  })();
  core.trades.history.clear();
  core.ledger.rewritten();
}

/** At start: a seed cut off by a crash or a kill is removed, so no merchant is left half-written. */
export function discardUnfinishedSeeds(core: SandboxCore): string[] {
  const rows = core.db.prepare('SELECT value FROM meta WHERE key LIKE ?').all(`${MARKER_PREFIX}%`) as {
    value: string;
  }[];
  const markers = rows.map((row) => JSON.parse(row.value) as SeedMarker);
  for (const marker of markers) discardPartialSeed(core, marker);
  return markers.map((marker) => marker.merchantId);
}
