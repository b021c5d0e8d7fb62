/**
 * The store's reads for Operations → Recipients: one page of the recipients' totals (the `recipient_totals`
 * roll-up the trades' triggers keep), each with its declines and expiries in a window (the trades of a bounded
 * creation range, through the status index) and its last trade (through the partner index).
 */
import type { TradeStatus } from '../../../../shared/api';
import type { Prepare } from './open';

export const RECIPIENT_SORTS = [
  'partner',
  'trades',
  'active',
  'strikes',
  'delivered',
  'cancelled',
  'reversed',
  'value',
  'lastAt',
] as const;
export type RecipientSort = (typeof RECIPIENT_SORTS)[number];

export interface RecipientRowsQuery {
  sort: RecipientSort;
  descending: boolean;
  /** Declines and expiries count when their status time is at or after this. */
  strikesSince: string;
  /** ...and the trade was created at or after this (a trade lives at most hours: the bound keeps the read small). */
  strikesCreatedFrom: string;
  /** Only these partners (a filter by label or number resolved by the caller); null: all. */
  partners: number[] | null;
  /** Only recipients with an active offer, or at least this many strikes / active offers, or one of `blocked`. */
  only: 'all' | 'active' | 'attention';
  /**
   * `blocked`: the partners under a block the desk was told of. One the cache holds no trade to (blocked for declines
   * of other merchants' offers: its first buy here was refused) is listed too, with zero totals.
   */
  attention: { strikes: number; active: number; blocked: number[] };
  offset: number;
  limit: number;
}

export interface RecipientTotalsRow {
  partner: number;
  trades: number;
  active: number;
  delivered: number;
  cancelled: number;
  reversed: number;
  /** Of the reversals, those the recipient (the buyer) made. */
  buyerReversed: number;
  value: number;
  strikes: number;
  lastStatus: TradeStatus | null;
  lastErrorCode: number | null;
  lastAt: string | null;
}

const STRIKES = `SELECT partner, count(*) AS n FROM trades
  WHERE status IN ('CANCELLED', 'EXPIRED') AND createdAt >= @createdFrom AND updatedAt >= @since AND partner IS NOT NULL
    AND ((status = 'CANCELLED' AND errorCode = 504) OR (status = 'EXPIRED' AND errorCode = 503))
  GROUP BY partner`;

/** The newest ended trade to a partner (by creation; the partner index walks past at most 30 active): the last outcome. */
const LAST = `SELECT status, errorCode, updatedAt FROM trades
  WHERE partner = ? AND status NOT IN ('PENDING', 'SENT', 'CREATING') ORDER BY createdAt DESC LIMIT 1`;

/** The roll-up's columns the page reads. */
const TOTALS_COLUMNS = 'partner, trades, active, delivered, cancelled, reversed, buyerReversed, value, lastCreatedAt';

/**
 * The roll-up, and the blocked partners it holds no trade to (`@unlisted`) as rows of zeros: a union only when there
 * are such partners (a handful at most), so the usual read stays a plain scan of the roll-up.
 */
function totalsSource(prepare: Prepare, blocked: number[]): { source: string; unlisted: number[] } {
  const held = prepare<[number], number>('SELECT 1 FROM recipient_totals WHERE partner = ? AND trades > 0').pluck();
  const unlisted = blocked.filter((partner) => held.get(partner) === undefined);
  if (unlisted.length === 0) return { source: 'recipient_totals', unlisted };
  return {
    source: `(SELECT ${TOTALS_COLUMNS} FROM recipient_totals WHERE trades > 0
      UNION ALL SELECT value, 0, 0, 0, 0, 0, 0, 0, NULL FROM json_each(@unlisted))`,
    unlisted,
  };
}

export function recipientRows(
  prepare: Prepare,
  query: RecipientRowsQuery,
): { total: number; rows: RecipientTotalsRow[] } {
  const { source, unlisted } = totalsSource(prepare, query.attention.blocked);
  // The union's source keeps only the roll-up's rows with trades already.
  const where: string[] = [unlisted.length === 0 ? 'r.trades > 0' : '1'];
  const params: Record<string, unknown> = {
    since: query.strikesSince,
    createdFrom: query.strikesCreatedFrom,
    limit: query.limit,
    offset: query.offset,
  };
  if (unlisted.length > 0) params['unlisted'] = JSON.stringify(unlisted);
  if (query.partners !== null) where.push(`r.partner IN (SELECT value FROM json_each(@partners))`);
  if (query.partners !== null) params['partners'] = JSON.stringify(query.partners);
  if (query.only === 'active') where.push('r.active > 0');
  if (query.only === 'attention') {
    where.push(
      '(coalesce(s.n, 0) >= @strikeMark OR r.active >= @activeMark OR r.partner IN (SELECT value FROM json_each(@blocked)))',
    );
    params['strikeMark'] = query.attention.strikes;
    params['activeMark'] = query.attention.active;
    params['blocked'] = JSON.stringify(query.attention.blocked);
  }
  const from = `FROM ${source} r LEFT JOIN (${STRIKES}) s ON s.partner = r.partner WHERE ${where.join(' AND ')}`;
  const total = prepare<[Record<string, unknown>], number>(`SELECT count(*) ${from}`).pluck().get(params) as number;
  // lastAt sorts by the newest trade's creation, which the roll-up keeps.
  const key =
    query.sort === 'strikes' ? 'coalesce(s.n, 0)' : query.sort === 'lastAt' ? 'r.lastCreatedAt' : `r.${query.sort}`;
  const direction = query.descending ? 'DESC' : 'ASC';
  const page = prepare<[Record<string, unknown>], Omit<RecipientTotalsRow, 'lastStatus' | 'lastErrorCode' | 'lastAt'>>(
    `SELECT r.partner, r.trades, r.active, r.delivered, r.cancelled, r.reversed, r.buyerReversed, r.value, coalesce(s.n, 0) AS strikes
     ${from} ORDER BY ${key} ${direction}, r.partner ${direction} LIMIT @limit OFFSET @offset`,
  ).all(params);
  const last = prepare<[number], { status: TradeStatus; errorCode: number | null; updatedAt: string }>(LAST);
  const rows = page.map((row) => {
    const newest = last.get(row.partner);
    return {
      ...row,
      lastStatus: newest?.status ?? null,
      lastErrorCode: newest?.errorCode ?? null,
      lastAt: newest?.updatedAt ?? null,
    };
  });
  return { total, rows };
}

/** A `partner_blocked` answer's block, kept in meta under this prefix and the partner number (see BuyService). */
export const PARTNER_BLOCK_META = 'operations.partnerBlock.';

export interface PartnerBlock {
  partner: number;
  expiresAt: string;
  seenAt: string;
}

/** The blocks the buy service saw that have not ended at `now` (ISO). */
export function partnerBlocks(prepare: Prepare, now: string): PartnerBlock[] {
  const rows = prepare<[string, string], { value: string }>('SELECT value FROM meta WHERE key >= ? AND key < ?').all(
    PARTNER_BLOCK_META,
    `${PARTNER_BLOCK_META.slice(0, -1)}/`,
  );
  return rows.map((row) => JSON.parse(row.value) as PartnerBlock).filter((block) => block.expiresAt > now);
}
