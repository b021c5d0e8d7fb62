import { api, errorMessage, unwrap } from '../../lib/ipc';
import { update } from '../store';
import { toast } from './toast';

/** The desktop app's update state at start (later changes come as `update` events); the web host has none. */
export async function loadUpdateStatus(): Promise<void> {
  if (api().host !== 'electron') return;
  try {
    const status = await unwrap(api().updates.status({}));
    // An event heard meanwhile is newer than this answer.
    update('conn', (c) => (c.update === null ? { ...c, update: status } : c));
  } catch {
    // Without an answer the status bar shows nothing about updates; the next event brings the state.
  }
}

/** "Restart and install" (and its "Install now" after the question about armed auto-buy). */
export async function installUpdate(confirmed: boolean): Promise<void> {
  try {
    const result = await unwrap(api().updates.install({ confirmed }));
    update('conn', (c) => ({ ...c, updateQuestion: result.outcome === 'confirm' ? result.message : null }));
    if (result.outcome === 'refused') toast('warn', 'The update was not installed', result.message);
    else if (result.outcome === 'installing') toast('info', 'Installing the update', result.message);
  } catch (error) {
    toast('error', 'The update could not be installed', errorMessage(error));
  }
}

export function dismissUpdateQuestion(): void {
  update('conn', (c) => ({ ...c, updateQuestion: null }));
}
