import type { TradeStatus } from '../../../shared/api';

/**
 * THE one colour per trade status. Every badge, timeline dot, chart mark and
 * filter chip reads it from here (as `--status-color`).
 */
export const STATUS_COLORS: Record<TradeStatus, string> = {
  CREATING: '#a78bfa',
  PENDING: '#f5b942',
  SENT: '#4fa3ff',
  COMPLETED: '#34c77b',
  CANCELLED: '#8a93a3',
  FAILED: '#f0524f',
  EXPIRED: '#d9853b',
  REVERSED: '#e055c4',
  REJECTED: '#b23a48',
};

export const STATUS_LABELS: Record<TradeStatus, string> = {
  CREATING: 'Creating',
  PENDING: 'Pending',
  SENT: 'Sent',
  COMPLETED: 'Completed',
  CANCELLED: 'Cancelled',
  FAILED: 'Failed',
  EXPIRED: 'Expired',
  REVERSED: 'Reversed',
  REJECTED: 'Rejected',
};

export const STATUS_MEANINGS: Record<TradeStatus, string> = {
  CREATING: 'Offer is being created',
  PENDING: 'Waiting for the trade offer to be created',
  SENT: 'Offer sent, waiting for the recipient to accept',
  COMPLETED: 'Item delivered',
  CANCELLED: 'Declined, countered, or the item was sold elsewhere',
  FAILED: 'Platform error, recipient unavailable, or items invalid',
  EXPIRED: 'Recipient did not accept in time',
  REVERSED: 'A completed trade was reversed on the platform',
  REJECTED: 'Rejected before the request was received',
};

/** Order statuses are offered in filters. */
export const FILTER_STATUSES: readonly TradeStatus[] = [
  'PENDING',
  'SENT',
  'COMPLETED',
  'CANCELLED',
  'FAILED',
  'EXPIRED',
  'REVERSED',
  'REJECTED',
];
