import type { TradesTab } from '../slices/trades';
import { EMPTY_TRADE_FILTERS } from '../slices/trades';
import { update } from '../store';
import { navigate } from './navigation';
import { resetTradeFilters } from './trades';

/** Listeners of the engine's "recipients changed" signal (Operations → Recipients re-reads its page). */
const recipientListeners = new Set<() => void>();

export function onRecipientsChanged(listener: () => void): () => void {
  recipientListeners.add(listener);
  return () => recipientListeners.delete(listener);
}

export function signalRecipientsChanged(): void {
  for (const listener of recipientListeners) listener();
}

/** Trades, filtered to one recipient (partner number), across all statuses. */
export function openRecipientTrades(partner: string): void {
  const tab: TradesTab = 'history';
  update('trades', (t) => ({ ...t, tab }));
  resetTradeFilters({ ...EMPTY_TRADE_FILTERS, recipient: partner });
  navigate('trades');
}
