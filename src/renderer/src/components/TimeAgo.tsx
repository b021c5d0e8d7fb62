import { useNow } from '../lib/clock';
import { formatAge, formatCountdown, formatDateTime, formatRelative } from '../lib/format';

/** "3 min ago", re-rendered by the shared clock; the exact time on hover. */
export function TimeAgo({ iso, short = false }: { iso: string | null; short?: boolean }) {
  const now = useNow();
  if (!iso) return <span className="muted">—</span>;
  return (
    <time dateTime={iso} title={formatDateTime(iso)} className="num">
      {short ? formatAge(iso, now) : formatRelative(iso, now)}
    </time>
  );
}

/** Time left until `iso`, or what happened once it passed. */
export function Countdown({ iso, passed = 'passed' }: { iso: string | null; passed?: string }) {
  const now = useNow();
  if (!iso) return <span className="muted">—</span>;
  const left = Date.parse(iso) - now;
  return (
    <time dateTime={iso} title={formatDateTime(iso)} className="num">
      {left > 0 ? formatCountdown(left) : passed}
    </time>
  );
}
