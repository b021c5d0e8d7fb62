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
 * The newest `limit` trades matching the asked keys, newest first, each with the key it matched. The exact ids come
 * first, through their indexes (trade id, order id and its chain); when they find a trade, that is the answer. Else
 * offer id, partner and name are matched in one scan of the table (no index holds them), every match sorted by
 * time and the newest `limit` kept.
 */
export function lookupTrades(prepare: Prepare, keys: LookupKeys, limit: number): LookupRows {
  const exact = exactMatches(prepare, keys, limit);
  if (exact.hits.length > 0) return exact;
  const tests: { sql: string; params: string[]; key: LookupKey }[] = [];
  if (keys.offerId !== null) tests.push({ sql: 'offerId = ?', params: [keys.offerId], key: 'offerId' });
  if (keys.partner !== null) {
    // The partner id sits between `partner=` and `&` (or the URL's end) of the stored URL.
    const p = like(keys.partner);
    tests.push({
      sql: "(tradeUrl LIKE ? ESCAPE '\\' OR tradeUrl LIKE ? ESCAPE '\\')",
      params: [`%partner=${p}&%`, `%partner=${p}`],
      key: 'partner',
    });
  }
  if (keys.name !== null)
    tests.push({ sql: "market_hash_name LIKE ? ESCAPE '\\'", params: [`%${like(keys.name)}%`], key: 'name' });
  if (tests.length === 0) return exact;
  const matched = `CASE ${tests.map((t) => `WHEN ${t.sql} THEN '${t.key}'`).join(' ')} END`;
  const params = tests.flatMap((t) => t.params);
  // NOT INDEXED: one pass over the table, then a sort of the matches, beats walking trades_order newest first
  // (a row fetch per index entry) whenever the matches are few.
  const rows = prepare<unknown[], Trade & { matchedBy: LookupKey }>(
    `SELECT ${TRADE_SELECT}, ${matched} AS matchedBy FROM trades NOT INDEXED WHERE ${tests.map((t) => t.sql).join(' OR ')}
     ORDER BY createdAt DESC, tradeId DESC LIMIT ?`,
  ).all(...params, ...params, limit + 1);
  return {
    hits: rows.slice(0, limit).map(({ matchedBy, ...trade }) => ({ trade, matchedBy })),
    truncated: rows.length > limit,
  };
}

/** Trades by trade id, by order id, and the attempts of that order (`ORDER#2`…), through their indexes. */
function exactMatches(prepare: Prepare, keys: LookupKeys, limit: number): LookupRows {
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
  const hits = [...found.values()]
    .sort((a, b) =>
      a.trade.createdAt === b.trade.createdAt
        ? b.trade.tradeId.localeCompare(a.trade.tradeId)
        : b.trade.createdAt.localeCompare(a.trade.createdAt),
    )
    .slice(0, limit);
  return { hits, truncated: truncated || found.size > limit };
}
