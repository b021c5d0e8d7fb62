import type { ExportStatus } from '../../../shared/ipc/models';
import { formatInt } from '../lib/format';
import { cancelExport, dismissExport, openExport } from '../state/actions/exports';
import { useStore } from '../state/store';

const WHAT: Record<ExportStatus['kind'], string> = { trades: 'Trades', ledger: 'Ledger' };

/**
 * The latest CSV export in the status bar (older ones never come back once it is dismissed): its progress with
 * Cancel, then the file's action or why it ended.
 */
export function ExportStatusItem() {
  const latest = useStore((s) => s.conn.exports[0]);
  const dismissed = useStore((s) => (latest ? s.conn.dismissedExports.includes(latest.id) : true));
  if (!latest || dismissed) return null;
  const what = WHAT[latest.kind];
  const dismiss = (
    <button
      type="button"
      className="sb-btn"
      onClick={() => dismissExport(latest.id)}
      aria-label={`Dismiss the ${what.toLowerCase()} export`}
    >
      ×
    </button>
  );
  if (latest.state === 'running') {
    const pct = latest.total > 0 ? Math.min(100, Math.round((latest.done / latest.total) * 100)) : 0;
    return (
      <span className="sb-item progress export-status" title={latest.filename}>
        <span className="progress-label">{what} export</span>
        <span
          className="progress-bar"
          role="progressbar"
          aria-label={`${what} export`}
          aria-valuemin={0}
          aria-valuemax={latest.total}
          aria-valuenow={latest.done}
          aria-valuetext={`${formatInt(latest.done)} of ${formatInt(latest.total)} rows`}
        >
          <span style={{ width: `${pct}%` }} />
        </span>
        <span className="num muted">
          {formatInt(latest.done)} of {formatInt(latest.total)}
        </span>
        <button type="button" className="sb-btn" onClick={() => void cancelExport(latest.id)}>
          Cancel export
        </button>
      </span>
    );
  }
  if (latest.state === 'done') {
    return (
      <span className="sb-item export-status" title={latest.filename}>
        <span className="progress-label">
          {what} exported: {formatInt(latest.done)} rows
        </span>
        <button type="button" className="sb-btn" onClick={() => void openExport(latest)}>
          {latest.delivery === 'download' ? 'Download CSV' : 'Show in folder'}
        </button>
        {dismiss}
      </span>
    );
  }
  return (
    <span className="sb-item export-status" title={latest.error ?? latest.filename}>
      <span className="progress-label">
        {latest.state === 'failed' ? `${what} export failed` : `${what} export cancelled`}
      </span>
      {latest.error ? <span className="muted sb-detail">{latest.error}</span> : null}
      {dismiss}
    </span>
  );
}
