import type { Balance, Trade } from '../../../shared/api';
import type { ConnectionStatus } from '../../../shared/ipc';
import type { ClientRateLimiter, MerchantApiClient } from '../api';
import type { LocalStore } from '../store';
import type { TradeSource } from '../store/types';

/**
 * What buying (by hand or by auto-buy) needs of the account open now: its cache, its live API and rate budget, and
 * a sink for the trades it makes or finds. The engine's account session is one; buying never depends on the engine.
 */
export interface BuyingAccount {
  /** Whether it holds its key: without it nothing goes over the network. */
  readonly live: boolean;
  readonly store: LocalStore;
  readonly client: MerchantApiClient;
  readonly limiter: ClientRateLimiter;
  readonly balance: Balance | null;
  readonly connection: ConnectionStatus;
  /** Stores trades and announces them like any other trade update. */
  upsertTrades(trades: Trade[], source: TradeSource): Promise<void>;
  /** Money moved (`spent`: the price of a buy just answered): the balance and the ledger are read again soon. */
  walletChanged(spent?: number): void;
  refreshBalance(): Promise<Balance | null>;
  /** A call made for the account that the API did not answer: the account catches up later, backing off. */
  reportFailure(what: string, error: unknown): void;
}
