import type { Item, Trade } from '../../../../shared/api';
import type { ProgressKind, ProgressStatus } from '../../../../shared/ipc';
import { type ClientRateLimiter, MerchantApiClient } from '../../api';
import type { EventBatcher } from '../../events/batcher';
import { FeedConnection } from '../../feed';
import type { LocalStore } from '../../store';
import { toUtcIso } from '../../../../shared/time';
import type { Clock, Timers } from '../../async';

export interface AccountCredentials {
  baseUrl: string;
  wsUrl: string;
  merchantId: string;
  apiKey: string;
}

/** An account as a session opens it: without its API key, its cache only (read-only, offline). */
export type SessionAccount = Omit<AccountCredentials, 'apiKey'> & { apiKey: string | null };

/** What the engine hears from a session. */
export interface SessionHooks {
  /** The items of an item_upserted frame, before they are written (auto-buy's frame-time path). */
  onFrameItems(items: readonly Item[]): void;
  /** Items the store reports as written (new, changed or repriced): alerts evaluate them. */
  onItemsWritten(itemIds: readonly number[]): void;
  /** After each completed catalog sync. */
  onCatalogSynced(): void;
  notifyStatuses(): readonly string[];
  /**
   * Trades stored, with the statuses each reached for the first time and the ids of those whose webhook delivery the
   * write made 'failed' (every source, back-fill included).
   */
  onTradesStored?(
    changed: readonly Trade[],
    newStatuses: readonly { tradeId: string; status: Trade['status'] }[],
    newlyFailed: readonly string[],
  ): void;
  /** Once: the first reconcile since start completed without a failure. */
  onFirstSync?(): void;
  /** After every reconcile that brought the active trades (start-up, each reconnect, polls): auto-buy looks up its unknown outcomes. */
  onReconciled?(): void;
  log(line: string): void;
}

/** The API and the feed of an account open with its key. */
export interface LiveApi {
  client: MerchantApiClient;
  feed: FeedConnection;
}

/** The API and the feed of an account with its key; null for one without (its cache only). */
export function openLiveApi(account: SessionAccount, limiter: ClientRateLimiter): LiveApi | null {
  const { apiKey } = account;
  if (apiKey === null) return null;
  return {
    client: new MerchantApiClient({ ...account, apiKey }, { limiter }),
    feed: new FeedConnection({ wsUrl: account.wsUrl, merchantId: account.merchantId, apiKey }),
  };
}

/** The work under way that the UI shows as progress (catalog sync, back-fill, ledger). */
export class ProgressBoard {
  private readonly entries = new Map<ProgressKind, ProgressStatus>();

  constructor(
    private readonly events: EventBatcher,
    private readonly clock: Clock,
  ) {}

  list(): ProgressStatus[] {
    return [...this.entries.values()];
  }

  /** `etaSeconds` left out: no estimate. */
  set(
    kind: ProgressKind,
    update: Omit<ProgressStatus, 'kind' | 'startedAt' | 'etaSeconds'> & { etaSeconds?: number | null },
  ): void {
    const startedAt = this.entries.get(kind)?.startedAt ?? toUtcIso(this.clock.now());
    this.entries.set(kind, { kind, startedAt, etaSeconds: null, ...update });
    this.events.push({ progress: this.list() });
  }

  clear(kind: ProgressKind): void {
    if (this.entries.delete(kind)) this.events.push({ progress: this.list() });
  }
}

/**
 * What every part of a session shares: the account's store, API and events, the session's timers and its
 * stop signal, and one way to report a failure. Parts never reach each other through it: the session
 * (session.ts) sequences them.
 */
export interface SessionContext {
  readonly account: SessionAccount;
  readonly store: LocalStore;
  readonly events: EventBatcher;
  readonly limiter: ClientRateLimiter;
  /** Null for an account open without its key: nothing goes over the network. */
  readonly api: LiveApi | null;
  readonly hooks: SessionHooks;
  readonly timers: Timers;
  readonly progress: ProgressBoard;
  /** Aborted when the session stops: requests under way end. */
  readonly signal: AbortSignal;
  /** When the app began opening this account: a trade changed since then is this session's news. */
  readonly openedAt: number;
  isStopped(): boolean;
  /** A failure: it becomes connection state and one log line, never an exception storm. */
  report(what: string, error: unknown): void;
}
