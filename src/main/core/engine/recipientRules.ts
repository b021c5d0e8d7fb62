import { parseTradeUrl } from '../../../shared/api';
import type { Recipient } from '../../../shared/ipc';

/**
 * Why saving this recipient would duplicate another, or null. One saved recipient per Steam
 * account (the trade URL's partner: a new token is an edit, not a second recipient) and per
 * label (case and outer spaces ignored), so the buy dialog's list never offers two alike.
 */
export function duplicateRecipientProblem(
  saved: readonly Recipient[],
  input: { id?: string | undefined; label: string; tradeUrl: string },
): string | null {
  const partner = parseTradeUrl(input.tradeUrl)?.partner ?? null;
  const label = input.label.trim().toLowerCase();
  for (const other of saved) {
    if (other.id === input.id) continue;
    if (partner !== null && parseTradeUrl(other.tradeUrl)?.partner === partner) {
      return `This Steam account is already saved as "${other.label}": edit that recipient to change its trade URL.`;
    }
    if (other.label.trim().toLowerCase() === label)
      return `A recipient is already saved as "${other.label}": choose another label, or edit that one.`;
  }
  return null;
}
