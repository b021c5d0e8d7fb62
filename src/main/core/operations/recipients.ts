/**
 * Operations → Recipients, from the local store (offline too): each trade-URL owner against the marketplace's
 * per-recipient limits (30 active offers; a block after 10 declines or expiries in 24 h, until `expiresAt`), with
 * their trades by outcome. Totals come from the `recipient_totals` roll-up; the 24 h counts from a bounded window.
 */
import { MAX_ACTIVE_TRADES_PER_OWNER, PARTNER_BLOCK_THRESHOLD, PARTNER_BLOCK_WINDOW_MS } from '../../../shared/api';
import type { RecipientState, RecipientSummary, RecipientsPage } from '../../../shared/ipc';
import type { RecipientsQuery } from '../../../shared/ipc/contract';
import { toUtcIso } from '../../../shared/time';
import { EngineError } from '../ipc/engineService';
import type { LocalStore } from '../store';
import { partnerOf } from '../store/schema';
import type { PartnerBlock, RecipientRowsQuery, RecipientTotalsRow } from '../store/worker/recipientsQuery';

/** From this many declines or expiries in 24 h (of 10), or active offers (of 30), a recipient needs attention. */
export const STRIKE_WARNING = PARTNER_BLOCK_THRESHOLD - 3;
export const ACTIVE_WARNING = MAX_ACTIVE_TRADES_PER_OWNER - 3;
/**
 * A decline or expiry ends an offer that lived at most 12 h (the longest trade duration) after it was created: its
 * trade was created at most a day before the window's start, so the window reads only those days' trades.
 */
const STRIKE_CREATION_MARGIN_MS = 24 * 3600_000;

export function recipientStateOf(active: number, strikes: number, blocked: boolean): RecipientState {
  if (blocked) return 'blocked';
  if (active >= MAX_ACTIVE_TRADES_PER_OWNER) return 'at-cap';
  if (strikes >= STRIKE_WARNING || active >= ACTIVE_WARNING) return 'near';
  return 'ok';
}

export function recipientSummaryOf(
  row: RecipientTotalsRow,
  label: string | null,
  block: PartnerBlock | undefined,
): RecipientSummary {
  return {
    partner: String(row.partner),
    label,
    active: row.active,
    activeCap: MAX_ACTIVE_TRADES_PER_OWNER,
    strikes: row.strikes,
    strikeLimit: PARTNER_BLOCK_THRESHOLD,
    state: recipientStateOf(row.active, row.strikes, block !== undefined),
    blockedUntil: block?.expiresAt ?? null,
    trades: row.trades,
    delivered: row.delivered,
    cancelled: row.cancelled,
    reversed: row.reversed,
    buyerReversed: row.buyerReversed,
    value: row.value,
    last:
      row.lastStatus !== null && row.lastAt !== null
        ? { status: row.lastStatus, errorCode: row.lastErrorCode, at: row.lastAt }
        : null,
  };
}

/** Saved recipients' labels by partner number (the first saved wins when two share one). */
export async function labelsByPartner(store: LocalStore): Promise<Map<number, string>> {
  const labels = new Map<number, string>();
  for (const saved of await store.listRecipients()) {
    const partner = partnerOf(saved.tradeUrl);
    if (partner !== null && !labels.has(partner)) labels.set(partner, saved.label);
  }
  return labels;
}

/** The partners a filter text names: its number, and the saved recipients whose label holds it. */
function partnersNamed(search: string, labels: Map<number, string>): number[] | null {
  if (search === '') return null;
  const needle = search.toLowerCase();
  const named = [...labels].filter(([, label]) => label.toLowerCase().includes(needle)).map(([partner]) => partner);
  if (/^[0-9]{1,10}$/.test(search)) named.push(Number(search));
  return named;
}

function windowOf(now: number): Pick<RecipientRowsQuery, 'strikesSince' | 'strikesCreatedFrom'> {
  const since = now - PARTNER_BLOCK_WINDOW_MS;
  return { strikesSince: toUtcIso(since), strikesCreatedFrom: toUtcIso(since - STRIKE_CREATION_MARGIN_MS) };
}

export async function readRecipients(store: LocalStore, query: RecipientsQuery, now: number): Promise<RecipientsPage> {
  const [labels, blocks] = await Promise.all([labelsByPartner(store), store.partnerBlocks(toUtcIso(now))]);
  const blockOf = new Map(blocks.map((block) => [block.partner, block]));
  const { total, rows } = await store.recipientRows({
    sort: query.sort,
    descending: query.descending,
    ...windowOf(now),
    partners: partnersNamed(query.search, labels),
    only: query.only,
    attention: { strikes: STRIKE_WARNING, active: ACTIVE_WARNING, blocked: [...blockOf.keys()] },
    offset: query.offset,
    limit: query.limit,
  });
  return {
    rows: rows.map((row) => recipientSummaryOf(row, labels.get(row.partner) ?? null, blockOf.get(row.partner))),
    total,
    offset: query.offset,
    computedAt: toUtcIso(now),
  };
}

/** One recipient's row, or null when the cache holds no trade to them and no block. */
export async function findRecipient(store: LocalStore, partner: number, now: number): Promise<RecipientSummary | null> {
  const [labels, blocks, { rows }] = await Promise.all([
    labelsByPartner(store),
    store.partnerBlocks(toUtcIso(now)),
    store.recipientRows({
      sort: 'partner',
      descending: false,
      ...windowOf(now),
      partners: [partner],
      only: 'all',
      attention: { strikes: STRIKE_WARNING, active: ACTIVE_WARNING, blocked: [] },
      offset: 0,
      limit: 1,
    }),
  ]);
  const block = blocks.find((b) => b.partner === partner);
  const empty: RecipientTotalsRow = {
    partner,
    trades: 0,
    active: 0,
    delivered: 0,
    cancelled: 0,
    reversed: 0,
    buyerReversed: 0,
    value: 0,
    strikes: 0,
    lastStatus: null,
    lastErrorCode: null,
    lastAt: null,
  };
  const row = rows[0] ?? (block ? empty : null);
  return row ? recipientSummaryOf(row, labels.get(partner) ?? null, block) : null;
}

export async function readRecipient(store: LocalStore, partner: string, now: number): Promise<RecipientSummary> {
  const found = await findRecipient(store, Number(partner), now);
  if (!found) throw new EngineError('not_found', `No trade to recipient ${partner} is in the cache.`);
  return found;
}
