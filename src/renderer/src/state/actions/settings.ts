import type { RecipientInput, SettingsPatch } from '../../../../shared/ipc/contract';
import type { Recipient } from '../../../../shared/ipc/models';
import { api, errorMessage, unwrap } from '../../lib/ipc';
import { writePref } from '../../lib/persist';
import { without } from '../../lib/records';
import { withRecipients } from '../slices/settings';
import { getState, update } from '../store';
import { toast } from './toast';
import { showWebTestNotification } from './webNotifications';

export async function loadRecipients(): Promise<void> {
  update('settings', (s) => ({ ...s, recipientsStatus: s.recipientsStatus === 'ready' ? 'ready' : 'loading' }));
  try {
    const list = await unwrap(api().recipients.list({}));
    update('settings', (s) => withRecipients(s, list));
  } catch (error) {
    update('settings', (s) => ({ ...s, recipientsStatus: 'error' }));
    toast('error', 'Could not load saved recipients', errorMessage(error));
  }
}

export async function saveRecipient(input: RecipientInput): Promise<Recipient> {
  const saved = await unwrap(api().recipients.save(input));
  update('settings', (s) => {
    const order = s.recipients[saved.id] ? s.recipientOrder : [...s.recipientOrder, saved.id];
    return { ...s, recipients: { ...s.recipients, [saved.id]: saved }, recipientOrder: order };
  });
  return saved;
}

export async function deleteRecipient(id: string): Promise<void> {
  try {
    await unwrap(api().recipients.delete({ id }));
    update('settings', (s) => ({
      ...s,
      recipients: without(s.recipients, id),
      recipientOrder: s.recipientOrder.filter((r) => r !== id),
    }));
  } catch (error) {
    toast('error', 'Could not delete the recipient', errorMessage(error));
  }
}

export async function updateSettings(patch: SettingsPatch): Promise<void> {
  // Show the change at once; the engine's answer is the truth.
  const before = getState().settings.settings;
  if (before) update('settings', (s) => ({ ...s, settings: s.settings ? { ...s.settings, ...patch } : s.settings }));
  if (patch.theme) writePref('theme', patch.theme);
  try {
    const settings = await unwrap(api().settings.update(patch));
    update('settings', (s) => ({ ...s, settings }));
  } catch (error) {
    if (before) update('settings', (s) => ({ ...s, settings: before }));
    toast('error', 'Could not save the setting', errorMessage(error));
  }
}

/** Settings → "Send a test notification": the desktop shell shows one (a checked call), a browser its own. */
export async function sendTestNotification(): Promise<{ shown: boolean; detail: string }> {
  if (getState().conn.host !== 'electron') return showWebTestNotification();
  try {
    return await unwrap(api().notifications.test({}));
  } catch (error) {
    return { shown: false, detail: errorMessage(error) };
  }
}
