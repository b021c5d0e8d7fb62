import type { AccountInput, RecipientInput, SettingsPatch } from '../../../../shared/ipc/contract';
import type { ConnectionTestResult, Recipient } from '../../../../shared/ipc/models';
import { api, errorMessage, unwrap } from '../../lib/ipc';
import { writePref } from '../../lib/persist';
import { without } from '../../lib/records';
import { withRecipients } from '../slices/settings';
import { getState, update, useStore } from '../store';
import { accountChanged } from '../accountScope';
import { applySnapshot } from '../applyBatch';
import { loadAlerts } from './alerts';
import { loadSearches } from './searches';
import { loadAgeBaseline, softRefresh } from './catalog';
import { loadTrades } from './trades';
import { loadWallet } from './wallet';
import { toast } from './ui';

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

/** Read the whole snapshot again (after the account changed, or the link to the engine came back). */
export async function reloadSnapshot(): Promise<void> {
  try {
    const snap = await unwrap(api().app.snapshot({}));
    const host = api().host;
    const before = getState().conn.account;
    useStore.setState((s) => applySnapshot(s, snap, host));
    if (accountChanged(before, snap.account)) reloadAccountData();
    softRefresh();
    void loadAgeBaseline();
  } catch (error) {
    toast('error', 'Could not refresh the app state', errorMessage(error));
  }
}

/** Another account is open: read its recipients, and what the current screen shows of it. */
function reloadAccountData(): void {
  void loadRecipients();
  void loadSearches();
  const screen = getState().ui.screen;
  if (screen === 'trades') void loadTrades();
  if (screen === 'wallet') loadWallet();
  if (screen === 'alerts') void loadAlerts();
}

export async function testAccount(input: AccountInput): Promise<ConnectionTestResult> {
  return unwrap(api().account.test(input));
}

export async function configureAccount(input: AccountInput): Promise<ConnectionTestResult> {
  const result = await unwrap(api().account.configure(input));
  if (result.ok) await reloadSnapshot();
  return result;
}

/** Leave the demo sandbox for the saved account (the choice survives a restart). */
export async function switchToSavedAccount(): Promise<ConnectionTestResult | null> {
  const name = getState().conn.account?.saved?.merchantId ?? 'your account';
  try {
    const result = await unwrap(api().account.useSaved({}));
    if (result.ok) {
      toast('success', `Back to ${name}`, result.message);
      await reloadSnapshot();
    } else toast('error', `Could not switch to ${name}`, result.message);
    return result;
  } catch (error) {
    toast('error', `Could not switch to ${name}`, errorMessage(error));
    return null;
  }
}

export async function connectDemoSandbox(): Promise<ConnectionTestResult | null> {
  try {
    const result = await unwrap(api().account.useDemo({}));
    if (result.ok) {
      toast('success', 'Demo sandbox connected', result.message);
      await reloadSnapshot();
    } else toast('error', 'Demo sandbox did not connect', result.message);
    return result;
  } catch (error) {
    toast('error', 'Demo sandbox did not connect', errorMessage(error));
    return null;
  }
}
