import type { CSSProperties } from 'react';
import type { TradeStatus } from '../../../shared/api';
import { STATUS_COLORS, STATUS_LABELS, STATUS_MEANINGS } from '../lib/status';

export function statusStyle(status: TradeStatus): CSSProperties {
  return { '--status-color': STATUS_COLORS[status] } as CSSProperties;
}

export function StatusBadge({ status }: { status: TradeStatus }) {
  return (
    <span className="status-badge" style={statusStyle(status)} title={STATUS_MEANINGS[status]}>
      <span className="status-dot" aria-hidden="true" />
      {STATUS_LABELS[status]}
    </span>
  );
}
