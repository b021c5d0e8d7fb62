import type { Balance } from '../../../../shared/api';
import { HISTORY_MAX_LIMIT } from '../../../../shared/api';
import { toUtcIso } from '../../../../shared/time';
import { Debouncer, Pacer, Throttler } from '../../async';
import { LEDGER_FILL_META } from '../../store/schema';
import type { SessionContext } from './sessionContext';

const BALANCE_DEBOUNCE_MS = 250;
const LEDGER_DEBOUNCE_MS = 1_000;
/** After trade frames (a burst of the merchant's own buys moves money many times a second): at most this often. */
const AFTER_FRAMES_GAP_MS = 5_000;
const BALANCE_META = 'balance';
/** When the server gave the cached balance: a cached figure shows that time, not when it was read again. */
const BALANCE_AT_META = 'balance_at';
/**
 * No frame tells of money moved outside the desk (a deposit, an admin top-up or deduction): with no other read this
 * long, the balance is read again (checked every IDLE_CHECK_MS), and the ledger when it moved. 2 of 300 a minute.
 */
const IDLE_BALANCE_READ_MS = 30_000;
const IDLE_CHECK_MS = 5_000;

/**
 * A ledger sync that paged newest first and stopped before its last page, as kept in meta: what it has left, from
 * `from` (null: the start of the ledger) to `to` (the oldest entry it stored), both inclusive.
 */
interface LedgerFill {
  from: string | null;
  to: string;
}

function parseLedgerFill(value: unknown): LedgerFill | null {
  if (typeof value !== 'object' || value === null) return null;
  const { from, to } = value as Partial<LedgerFill>;
  const isTime = (v: unknown): v is string => typeof v === 'string' && !Number.isNaN(Date.parse(v));
  return isTime(to) && (from === null || isTime(from)) ? { from, to } : null;
}

/** The balance (cached across restarts) and the ledger, kept current after every change that may move them. */
export class WalletSync {
  balance: Balance | null = null;
  /** When the server gave that balance (null: held since before the app kept the time). */
  balanceAt: string | null = null;
  private readonly balanceRefresh: Debouncer;
  private readonly ledgerRefresh: Debouncer;
  private readonly ledgerSyncs = new Throttler();
  private readonly afterFrames: Pacer;
  /** Buys answered (price, when) that no balance read issued after their answer has reflected yet. */
  private unreflected: { price: number; at: number }[] = [];
  /** Balance reads issued, and the latest of them whose answer is held: an earlier one answered later is older. */
  private readsIssued = 0;
  private readShown = 0;
  private lastReadAt = Number.NEGATIVE_INFINITY;

  /** `bulkMayStart`: settles when paging may go (the trade window streaming first has the writer). */
  constructor(
    private readonly ctx: SessionContext,
    private readonly bulkMayStart: () => Promise<void>,
  ) {
    this.balanceRefresh = new Debouncer(ctx.timers, BALANCE_DEBOUNCE_MS, () => void this.refreshBalance());
    this.ledgerRefresh = new Debouncer(ctx.timers, LEDGER_DEBOUNCE_MS, () => void this.syncLedger());
    this.afterFrames = new Pacer(ctx.timers, AFTER_FRAMES_GAP_MS, () => {
      void this.refreshBalance();
      void this.syncLedger();
    });
  }

  /** The balance the cache holds, before anything goes over the network. */
  async load(): Promise<void> {
    const cached = (await this.ctx.store.getMeta(BALANCE_META)) as Balance | null;
    if (!cached) return;
    this.balance = cached;
    const at = await this.ctx.store.getMeta(BALANCE_AT_META);
    this.balanceAt = typeof at === 'string' ? at : null;
  }

  /** Cents of buys the balance held was read before: the server took them, the figure does not show it yet. */
  get inFlight(): number {
    return this.unreflected.reduce((sum, buy) => sum + buy.price, 0);
  }

  /** Something moved money (a buy of `spent` cents, a trade update): read the balance and the ledger again, soon. */
  changed(spent = 0): void {
    if (spent > 0) this.unreflected.push({ price: spent, at: this.ctx.timers.clock.now() });
    this.balanceRefresh.schedule();
    this.ledgerRefresh.schedule();
  }

  /** A trade frame: the balance and ledger may have moved; read soon, at most every few seconds however many frames. */
  tradeMoved(): void {
    this.afterFrames.schedule();
  }

  /** Reads the balance when nothing else has for a while and `live()` holds (the feed up: a poll reads it otherwise). */
  startIdleReads(live: () => boolean): void {
    this.ctx.timers.every(IDLE_CHECK_MS, () => {
      if (live() && this.ctx.timers.clock.now() - this.lastReadAt >= IDLE_BALANCE_READ_MS) void this.readIdle();
    });
  }

  private async readIdle(): Promise<void> {
    const before = this.balance;
    const after = await this.refreshBalance();
    if (after && (after.balance !== before?.balance || after.credit_limit !== before.credit_limit))
      this.ledgerRefresh.schedule();
  }

  scheduleLedgerSync(): void {
    this.ledgerRefresh.schedule();
  }

  async refreshBalance(): Promise<Balance | null> {
    const client = this.ctx.api?.client;
    if (!client) return this.balance;
    const issuedAt = this.ctx.timers.clock.now();
    this.lastReadAt = issuedAt;
    const read = ++this.readsIssued;
    try {
      const balance = await client.getBalance({ signal: this.ctx.signal });
      if (read < this.readShown) return this.balance;
      this.readShown = read;
      this.balance = balance;
      this.unreflected = this.unreflected.filter((buy) => buy.at > issuedAt);
      this.balanceAt = toUtcIso(this.ctx.timers.clock.now());
      await this.ctx.store.setMeta(BALANCE_META, this.balance);
      await this.ctx.store.setMeta(BALANCE_AT_META, this.balanceAt);
      this.ctx.events.push({ balance: this.balance, balanceAt: this.balanceAt });
    } catch (error) {
      this.ctx.report('balance', error);
    }
    return this.balance;
  }

  /**
   * The ledger now (a pending debounced sync joins it). Asked while one runs, one more follows it (shared by every
   * caller meanwhile): the running one may have read its page before what moved.
   */
  syncLedger(): Promise<void> {
    if (!this.ctx.api) return Promise.resolve();
    this.ledgerRefresh.flush();
    return this.ledgerSyncs.queue(() => this.runLedgerSync());
  }

  /** A ledger sync under way, if any. */
  ledgerSettled(): Promise<void> {
    return this.ledgerSyncs.busy ? this.ledgerSyncs.join(() => Promise.resolve()) : Promise.resolve();
  }

  /**
   * Fetches ledger entries created at or after the newest we hold (ids make it idempotent), newest first. A sync of
   * several pages keeps what it has left in meta (LEDGER_FILL_META, after each page): stopped before its last page
   * (the app closed, a crash), it leaves a hole below the oldest entry it stored that no sync "since the newest held"
   * would ever read, so the next sync pages that range first.
   */
  private async runLedgerSync(): Promise<void> {
    const { api, store, progress } = this.ctx;
    if (!api) return;
    try {
      let inserted = 0;
      const left = parseLedgerFill(await store.getMeta(LEDGER_FILL_META));
      if (left) inserted += await this.pageLedger(left.from, left.to);
      inserted += await this.pageLedger(await store.latestLedgerCreatedAt(), null);
      if (inserted > 0) this.ctx.events.push({ ledgerChanged: true });
    } catch (error) {
      this.ctx.report('ledger sync', error);
    } finally {
      progress.clear('ledger-sync');
    }
  }

  /** Every page of the ledger from `from` to `to` (both inclusive; null: open), newest first: the entries inserted. */
  private async pageLedger(from: string | null, to: string | null): Promise<number> {
    const { api, store, progress, signal } = this.ctx;
    if (!api) return 0;
    let inserted = 0;
    for (let page = 1; ; page++) {
      // What just moved (after frames, a buy) is on the first page since the newest held: a `live` read, never
      // behind paging. A first sync's pages, a long catch-up's further pages and a stopped sync's rest are paging.
      const slot = from !== null && to === null && page === 1 ? 'live' : 'bulk';
      if (slot === 'bulk') await this.bulkMayStart();
      const answer = await api.client.balanceHistory(
        { limit: HISTORY_MAX_LIMIT, page, ...(from !== null ? { from } : {}), ...(to !== null ? { to } : {}) },
        { signal, slot },
      );
      const oldest = answer.transactions.at(-1)?.createdAt;
      const last =
        !oldest || answer.transactions.length < HISTORY_MAX_LIMIT || page * HISTORY_MAX_LIMIT >= answer.total;
      // Stored from the newest down to `oldest`: what is left is `from` to it (inclusive: that millisecond's entries
      // are asked again, the only overlap), written with the page so that no stop falls between the two.
      const left: LedgerFill | null = !last && oldest ? { from, to: oldest } : null;
      const meta = left !== null || page > 1 || to !== null ? { [LEDGER_FILL_META]: left } : undefined;
      inserted += (await store.insertLedger(answer.transactions, meta)).inserted.length;
      if (last) return inserted;
      progress.set('ledger-sync', {
        done: page + 1,
        total: Math.ceil(answer.total / HISTORY_MAX_LIMIT),
        phase: 'ledger',
      });
    }
  }
}
