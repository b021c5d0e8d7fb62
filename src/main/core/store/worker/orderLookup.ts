/** Trades by what a support person has in hand (order look-up), and the attempts of one order (buy-the-next-one chains). */
import type { Trade } from '../../../../shared/api';
import type { LookupKey } from '../../../../shared/ipc';
import type { Prepare } from './open';
import { TRADE_SELECT } from './recordRows';

/** What one look-up searches: each key left null is not searched. */
export interface LookupKeys {
  tradeId: string | null;
  /** The exact order id, and the chain it heads (`ORDER`, `ORDER#2`, …). */
  externalId: string | null;
  offerId: string | null;
  /** A partner (account) id, matched in the trades' URLs. */
  partner: string | null;
  /** A part of the item's name (ASCII case ignored). */
  name: string | null;
}

export interface LookupRows {
  hits: { trade: Trade; matchedBy: LookupKey }[];
  /** More trades matched than `limit`: the newest are shown. */
  truncated: boolean;
}

const like = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The trades of an order's chain: the order id itself and its `#n` attempts, one range of `trades_external`
 * (`#` is 0x23, so every `root#…` sorts between `root#` and `root$`).
 */
export function orderChainTrades(prepare: Prepare, root: string): Trade[] {
  return prepare<[string, string, string], Trade>(
    `SELECT ${TRADE_SELECT} FROM trades WHERE externalId = ? OR (externalId >= ? AND externalId < ?) ORDER BY createdAt, tradeId`,
  ).all(root, `${root}#`, `${root}$`);
}

/**
 * The newest `limit` trades matching any asked key, each once (by its first key in the order below), newest first.
 * Trade and order ids use their indexes; offer id, partner and name scan the trades newest first and stop at
 * `limit + 1` matches (no index holds them: a key with few matches reads the whole table).
 */
export function lookupTrades(prepare: Prepare, keys: LookupKeys, limit: number): LookupRows {
  const found = new Map<string, { trade: Trade; matchedBy: LookupKey }>();
  let truncated = false;
  const add = (matchedBy: LookupKey, rows: Trade[]) => {
    if (rows.length > limit) truncated = true;
    for (const trade of rows.slice(0, limit))
      if (!found.has(trade.tradeId)) found.set(trade.tradeId, { trade, matchedBy });
  };
  const newest = (where: string, ...params: string[]) =>
    prepare<unknown[], Trade>(
      `SELECT ${TRADE_SELECT} FROM trades WHERE ${where} ORDER BY createdAt DESC, tradeId DESC LIMIT ?`,
    ).all(...params, limit + 1);
  if (keys.tradeId !== null) add('tradeId', newest('tradeId = ?', keys.tradeId));
  if (keys.externalId !== null) {
    const id = keys.externalId;
    add('externalId', newest('externalId = ?', id));
    add('chain', newest('externalId >= ? AND externalId < ?', `${id}#`, `${id}$`));
  }
  if (keys.offerId !== null) add('offerId', newest('offerId = ?', keys.offerId));
  if (keys.partner !== null) {
    // The partner id sits between `partner=` and `&` (or the URL's end) of the stored URL.
    const p = like(keys.partner);
    add(
      'partner',
      newest("(tradeUrl LIKE ? ESCAPE '\\' OR tradeUrl LIKE ? ESCAPE '\\')", `%partner=${p}&%`, `%partner=${p}`),
    );
  }
  if (keys.name !== null) add('name', newest("market_hash_name LIKE ? ESCAPE '\\'", `%${like(keys.name)}%`));
  const hits = [...found.values()]
    .sort((a, b) =>
      a.trade.createdAt === b.trade.createdAt
        ? b.trade.tradeId.localeCompare(a.trade.tradeId)
        : b.trade.createdAt.localeCompare(a.trade.createdAt),
    )
    .slice(0, limit);
  return { hits, truncated: truncated || found.size > limit };
}
