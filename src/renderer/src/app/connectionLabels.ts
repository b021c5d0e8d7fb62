import type { ConnectionState } from '../../../shared/ipc/models';

export const CONNECTION_LABELS: Record<ConnectionState, string> = {
  connecting: 'Connecting',
  connected: 'Live',
  reconnecting: 'Reconnecting',
  polling: 'Polling',
  offline: 'Offline',
  maintenance: 'Maintenance',
  unauthorized: 'Unauthorized',
};

/** The state's label; while the account's key is awaited from a slow keychain, that (the engine reports it as connecting). */
export function connectionLabel(state: ConnectionState, keyAwaited: boolean): string {
  return keyAwaited && state === 'connecting' ? 'Waiting for the keychain…' : CONNECTION_LABELS[state];
}
