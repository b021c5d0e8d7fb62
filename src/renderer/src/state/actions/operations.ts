import type { TradesTab } from '../slices/trades';
import { EMPTY_TRADE_FILTERS } from '../slices/trades';
import { update } from '../store';
import { navigate } from './navigation';
import { resetTradeFilters } from './trades';

/** Listeners of the engine's "recipients changed" signal (Operations → Recipients and Reversals re-read). */
const recipientListeners = new Set<() => void>();
/** Listeners of "ledger changed" (Reversals shows each reversal's TRADE ROLLBACK entry, which comes after the trade). */
const ledgerListeners = new Set<() => void>();

function listen(listeners: Set<() => void>, listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export const onRecipientsChanged = (listener: () => void) => listen(recipientListeners, listener);
export const onLedgerChanged = (listener: () => void) => listen(ledgerListeners, listener);

export function signalRecipientsChanged(): void {
  for (const listener of recipientListeners) listener();
}

export function signalLedgerChanged(): void {
  for (const listener of ledgerListeners) listener();
}

/** Trades, filtered to one recipient (partner number), across all statuses. */
export function openRecipientTrades(partner: string): void {
  const tab: TradesTab = 'history';
  update('trades', (t) => ({ ...t, tab }));
  resetTradeFilters({ ...EMPTY_TRADE_FILTERS, recipient: partner });
  navigate('trades');
}
