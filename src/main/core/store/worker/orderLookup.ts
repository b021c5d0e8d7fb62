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
  /** A partner (account) id: the trades' recipient (`partner`). */
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

/** A buy by name the marketplace refused: what it asked for, and why it was refused ("buy the next one" starts there). */
export interface ChainRefusal {
  externalId: string;
  market_hash_name: string;
  phase: string | null;
  maxPrice: number;
  tradeUrl: string;
  code: string;
  message: string;
  at: string;
}

/**
 * The refused buys by name of an order's chain, the latest refusal of each order id, by order id: one range of
 * `buy_refusals_chain` from `root` to `root$` (the caller keeps `root` and its `#n`).
 */
export function orderChainRefusals(prepare: Prepare, root: string): ChainRefusal[] {
  const rows = prepare<[string, string], ChainRefusal>(
    `SELECT externalId, market_hash_name, phase, price AS maxPrice, tradeUrl, code, detail AS message, at
     FROM buy_refusals WHERE byName = 1 AND externalId >= ? AND externalId < ? ORDER BY id`,
  ).all(root, `${root}$`);
  return [...new Map(rows.map((row) => [row.externalId, row])).values()];
}

/**
 * The newest `limit` trades matching the asked keys, newest first, each with the key it matched. The exact ids come
 * first, through their indexes (trade id, order id and its chain); when they find a trade, that is the answer. Else
 * offer id (`trades_offer`) and partner (`trades_partner`, newest first) are index reads, and a part of a name is matched
 * against the names traded (`trade_names`, see byName). A trade matching
 * several keys is shown under the first of offer id, partner, name.
 */
export function lookupTrades(prepare: Prepare, keys: LookupKeys, limit: number): LookupRows {
  const exact = exactMatches(prepare, keys, limit);
  if (exact.hits.length > 0) return exact;
  const found = new Matches(limit);
  if (keys.offerId !== null) found.add('offerId', newest(prepare, 'offerId = ?', limit, keys.offerId));
  if (keys.partner !== null) found.add('partner', newest(prepare, 'partner = ?', limit, Number(keys.partner)));
  if (keys.name !== null) found.add('name', byName(prepare, keys.name, limit + 1));
  return found.rows();
}

/** The newest `limit + 1` trades where `where` holds. */
function newest(prepare: Prepare, where: string, limit: number, ...params: (string | number)[]): Trade[] {
  return prepare<unknown[], Trade>(
    `SELECT ${TRADE_SELECT} FROM trades WHERE ${where} ORDER BY createdAt DESC, tradeId DESC LIMIT ?`,
  ).all(...params, limit + 1);
}

/**
 * The newest `count` trades whose item name holds `part`: the traded names that match (`trade_names`, a row per name),
 * newest trade first; each one's newest trades from `trades_name`, until a name's newest trade is older than the
 * `count`th kept (no older name can place). Only the kept trades' rows are read.
 */
function byName(prepare: Prepare, part: string, count: number): Trade[] {
  const names = prepare<[string], { name: string; lastAt: string }>(
    `SELECT name, lastAt FROM trade_names WHERE name LIKE ? ESCAPE '\\' ORDER BY lastAt DESC`,
  ).all(`%${like(part)}%`);
  const newestOf = prepare<[string, number], { createdAt: string; tradeId: string }>(
    `SELECT createdAt, tradeId FROM trades INDEXED BY trades_name WHERE market_hash_name = ?
     ORDER BY createdAt DESC, tradeId DESC LIMIT ?`,
  );
  let kept: { createdAt: string; tradeId: string }[] = [];
  for (const { name, lastAt } of names) {
    const last = kept[count - 1];
    if (last && lastAt < last.createdAt) break;
    kept = [...kept, ...newestOf.all(name, count)].sort(newerFirst).slice(0, count);
  }
  return prepare<[string], Trade>(
    `SELECT ${TRADE_SELECT} FROM trades WHERE tradeId IN (SELECT value FROM json_each(?)) ORDER BY createdAt DESC, tradeId DESC`,
  ).all(JSON.stringify(kept.map((row) => row.tradeId)));
}

/** SQLite's `ORDER BY createdAt DESC, tradeId DESC` (binary order). */
function newerFirst(a: Pick<Trade, 'createdAt' | 'tradeId'>, b: Pick<Trade, 'createdAt' | 'tradeId'>): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.tradeId === b.tradeId ? 0 : a.tradeId < b.tradeId ? 1 : -1;
}

/** The trades each key found (each its newest `limit + 1`), one entry per trade under the first key that found it. */
class Matches {
  private readonly found = new Map<string, { trade: Trade; matchedBy: LookupKey }>();
  private truncated = false;

  constructor(private readonly limit: number) {}

  add(matchedBy: LookupKey, rows: Trade[]): void {
    if (rows.length > this.limit) this.truncated = true;
    for (const trade of rows.slice(0, this.limit))
      if (!this.found.has(trade.tradeId)) this.found.set(trade.tradeId, { trade, matchedBy });
  }

  /** The newest `limit`, newest first. */
  rows(): LookupRows {
    const hits = [...this.found.values()].sort((a, b) => newerFirst(a.trade, b.trade)).slice(0, this.limit);
    return { hits, truncated: this.truncated || this.found.size > this.limit };
  }
}

/** Trades by trade id, by order id, and the attempts of that order (`ORDER#2`…), through their indexes. */
function exactMatches(prepare: Prepare, keys: LookupKeys, limit: number): LookupRows {
  const found = new Matches(limit);
  if (keys.tradeId !== null) found.add('tradeId', newest(prepare, 'tradeId = ?', limit, keys.tradeId));
  if (keys.externalId !== null) {
    const id = keys.externalId;
    found.add('externalId', newest(prepare, 'externalId = ?', limit, id));
    found.add('chain', newest(prepare, 'externalId >= ? AND externalId < ?', limit, `${id}#`, `${id}$`));
  }
  return found.rows();
}
