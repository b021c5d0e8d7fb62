import type { IpcMethod } from './contract';

/**
 * The method names alone, without zod, for the sandboxed preload bundle.
 * The type below fails to compile if this list and IPC_METHODS disagree.
 */
export const IPC_METHOD_NAMES = [
  'app.snapshot',
  'catalog.query',
  'catalog.item',
  'catalog.refresh',
  'trades.query',
  'trades.get',
  'trades.exportCsv',
  'wallet.ledger',
  'wallet.balanceSeries',
  'wallet.exportCsv',
  'operations.runway',
  'buy.check',
  'buy.byId',
  'buy.byName',
  'recipients.list',
  'recipients.save',
  'recipients.delete',
  'searches.list',
  'searches.save',
  'searches.delete',
  'alerts.rules',
  'alerts.saveRule',
  'alerts.deleteRule',
  'alerts.firings',
  'alerts.acknowledge',
  'alerts.rearm',
  'alerts.preview',
  'alerts.skips',
  'settings.update',
  'account.configure',
  'account.test',
  'account.useDemo',
  'account.useSaved',
  'connection.retryNow',
  'notifications.list',
  'notifications.markRead',
  'operations.webhookHealth',
  'operations.recipients',
  'operations.recipient',
  'operations.reversals',
  'operations.reversersCsv',
  'operations.replayWebhooks',
] as const satisfies readonly IpcMethod[];

type Missing = Exclude<IpcMethod, (typeof IPC_METHOD_NAMES)[number]>;
export const methodNamesAreComplete: [Missing] extends [never] ? true : Missing = true;
