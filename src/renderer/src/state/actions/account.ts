import type { AccountInput } from '../../../../shared/ipc/contract';
import type { ConnectionTestResult } from '../../../../shared/ipc/models';
import { api, errorMessage, unwrap } from '../../lib/ipc';
import { accountChanged } from '../accountScope';
import { applySnapshotAfter } from '../applyBatch';
import { readWithBatches } from '../batchesSince';
import { getState, useStore } from '../store';
import { loadAlerts } from './alerts';
import { loadAgeBaseline, softRefresh } from './catalog';
import { loadSearches } from './searches';
import { loadRecipients } from './settings';
import { toast } from './toast';
import { loadTrades } from './trades';
import { loadWallet } from './wallet';

/** Read the whole snapshot again (after the account changed, or the link to the engine came back). */
export async function reloadSnapshot(): Promise<void> {
  try {
    const { answer: snap, since } = await readWithBatches(() => unwrap(api().app.snapshot({})));
    const host = api().host;
    const before = getState().conn.account;
    useStore.setState((s) => applySnapshotAfter(s, snap, host, since));
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
