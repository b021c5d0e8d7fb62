import type { AccountSummary } from '../../../shared/ipc/models';
import { initialAlerts } from './slices/alerts';
import { initialCatalog } from './slices/catalog';
import { initialSearches } from './slices/searches';
import { initialTrades } from './slices/trades';
import { initialWallet } from './slices/wallet';
import type { AppState } from './store';

/**
 * Which account's data the page shows: the demo or an account, and its merchant (the engine keeps one
 * cache per pair). Null before the first snapshot or while no account is open.
 */
export function accountScopeKey(account: AccountSummary | null): string | null {
  if (!account || account.merchantId === null) return null;
  return `${account.demo ? 'demo' : 'account'}:${account.merchantId}`;
}

/** Whether `next` shows another account than the page held (a first account is no change). */
export function accountChanged(before: AccountSummary | null, next: AccountSummary | null): boolean {
  const was = accountScopeKey(before);
  return was !== null && was !== accountScopeKey(next);
}

/**
 * Everything that belongs to the account the page held, dropped: saved recipients and searches, alert rules and
 * firings, the catalog's filters, pages, selection and detail, the trades' and ledger's filters, pages and
 * detail, an open dialog (a buy of the other account's item). Kept: the screen, tabs and page sizes.
 */
export function withoutAccountScope(
  state: AppState,
): Pick<AppState, 'catalog' | 'trades' | 'wallet' | 'alerts' | 'settings' | 'searches' | 'ui'> {
  return {
    // A new generation: pages still on their way for the old account are not taken.
    catalog: { ...initialCatalog, info: state.catalog.info, generation: state.catalog.generation + 1 },
    trades: { ...initialTrades, tab: state.trades.tab, limit: state.trades.limit },
    wallet: {
      ...initialWallet,
      balance: state.wallet.balance,
      balanceAt: state.wallet.balanceAt,
      limit: state.wallet.limit,
    },
    alerts: initialAlerts,
    settings: { ...state.settings, recipients: {}, recipientOrder: [], recipientsStatus: 'idle' },
    searches: initialSearches,
    ui: { ...state.ui, dialog: null },
  };
}
