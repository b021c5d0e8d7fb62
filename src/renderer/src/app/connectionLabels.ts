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
