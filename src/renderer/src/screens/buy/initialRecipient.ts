import { readPref } from '../../lib/persist';
import { getState } from '../../state/store';
import type { RecipientChoice } from './RecipientPicker';

/** The last saved recipient used, else the first saved one, else paste. */
export function initialRecipient(): RecipientChoice {
  const { recipients, recipientOrder } = getState().settings;
  const last = readPref('lastRecipient');
  if (last && recipients[last]) return { kind: 'saved', id: last };
  const first = recipientOrder[0];
  return first ? { kind: 'saved', id: first } : { kind: 'paste', url: '' };
}
