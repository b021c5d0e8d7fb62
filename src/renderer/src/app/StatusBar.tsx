import type { ProgressStatus, RateLimitStatus } from '../../../shared/ipc/models';
import { timeLeftText } from '../../../shared/timeLeft';
import { Countdown } from '../components/TimeAgo';
import { detailWithoutDelay, nextAttemptAt } from '../lib/connectionDetail';
import { formatInt } from '../lib/format';
import { navigate } from '../state/actions/navigation';
import { useStore } from '../state/store';
import { AutoBuyStatusItem } from './AutoBuyStatusItem';
import { BRIDGE_EXPIRED_TEXT, BRIDGE_LOST_TEXT } from './BridgeBanner';
import { connectionLabel } from './connectionLabels';
import { ExportStatusItem } from './ExportStatusItem';
import { UpdateStatusItem } from './UpdateStatusItem';

const PROGRESS_LABELS: Record<ProgressStatus['kind'], string> = {
  'catalog-sync': 'Catalog sync',
  'history-backfill': 'Trade history back-fill',
  'ledger-sync': 'Ledger sync',
};

function Feed() {
  const connection = useStore((s) => s.conn.connection);
  const rateLimit = useStore((s) => s.conn.rateLimit);
  const boot = useStore((s) => s.conn.boot);
  const bridge = useStore((s) => s.conn.bridge);
  const keyAwaited = useStore((s) => s.conn.account?.awaitingKeyStore === true);
  // The page's own link to Merchant Desk comes first: the feed state it last heard is stale.
  if (bridge === 'lost' || bridge === 'expired') {
    const text = bridge === 'lost' ? BRIDGE_LOST_TEXT : BRIDGE_EXPIRED_TEXT;
    return (
      <span className={`sb-item conn-state state-${bridge === 'lost' ? 'reconnecting' : 'unauthorized'}`} title={text}>
        <span className="status-dot" aria-hidden="true" />
        <strong>{bridge === 'lost' ? 'Disconnected' : 'Session expired'}</strong>
        <span className="sb-detail">{text}</span>
      </span>
    );
  }
  if (!connection) {
    return (
      <span className="sb-item conn-state state-connecting">
        <span className="status-dot" aria-hidden="true" /> {boot === 'failed' ? 'Engine unreachable' : 'Starting…'}
      </span>
    );
  }
  const next = nextAttemptAt(connection, rateLimit);
  return (
    <span className={`sb-item conn-state state-${connection.state}`} title={connection.detail}>
      <span className="status-dot" aria-hidden="true" />
      <strong>{connectionLabel(connection.state, keyAwaited)}</strong>
      <span className="sb-detail">{next ? detailWithoutDelay(connection.detail) : connection.detail}</span>
      {next ? (
        <span className="muted">
          {' '}
          · retry in <Countdown iso={next} passed="now" />
        </span>
      ) : null}
    </span>
  );
}

function Meter({ label, remaining, limit }: { label: string; remaining: number; limit: number }) {
  const ratio = limit > 0 ? remaining / limit : 0;
  const tone = ratio < 0.15 ? 'low' : ratio < 0.4 ? 'mid' : 'ok';
  return (
    <span className={`meter ${tone}`} title={`${label}: ${remaining} of ${limit} requests left this minute`}>
      <span className="meter-label">{label}</span>
      <span className="meter-bar" aria-hidden="true">
        <span style={{ width: `${Math.round(ratio * 100)}%` }} />
      </span>
      <span className="num">
        {remaining}/{limit}
      </span>
    </span>
  );
}

function RateLimits({ rl, maintenance }: { rl: RateLimitStatus | null; maintenance: boolean }) {
  if (!rl) return null;
  return (
    <span className="sb-item rate" aria-label="Rate-limit headroom">
      <Meter label="API" remaining={rl.defaultRemaining} limit={rl.defaultLimit} />
      <Meter label="Catalog" remaining={rl.catalogRemaining} limit={rl.catalogLimit} />
      {/* In maintenance the feed item counts down to the next try: one countdown, not two. */}
      {rl.backoffUntil && !maintenance ? (
        <span className="badge warn">
          Backing off <Countdown iso={rl.backoffUntil} passed="…" />
        </span>
      ) : null}
    </span>
  );
}

/** One piece of background work: its bar, and what it is at ("page 12 of 280 · about 3 min left"). */
export function Progress({ p }: { p: ProgressStatus }) {
  const pct = p.total ? Math.min(100, Math.round((p.done / p.total) * 100)) : null;
  const left = timeLeftText(p.etaSeconds);
  const phase = left ? `${p.phase} · ${left}` : p.phase;
  const spokenLeft = timeLeftText(p.etaSeconds, true);
  const amount = p.total ? `${formatInt(p.done)} of ${formatInt(p.total)}` : `${formatInt(p.done)} so far`;
  return (
    <span className="sb-item progress" title={`${PROGRESS_LABELS[p.kind]}: ${phase}`}>
      <span className="progress-label">{PROGRESS_LABELS[p.kind]}</span>
      <span
        className={`progress-bar ${pct === null ? 'indeterminate' : ''}`}
        role="progressbar"
        aria-label={PROGRESS_LABELS[p.kind]}
        aria-valuemin={0}
        aria-valuemax={p.total ?? undefined}
        aria-valuenow={p.total ? p.done : undefined}
        aria-valuetext={spokenLeft ? `${amount}, ${spokenLeft}` : amount}
      >
        <span style={{ width: pct === null ? undefined : `${pct}%` }} />
      </span>
      <span className="num muted">{p.total ? `${pct}%` : formatInt(p.done)}</span>
      <span className="muted sb-detail">{phase}</span>
    </span>
  );
}

/** The bottom bar: feed state, rate-limit headroom, badges, background work, counters. */
export function StatusBar() {
  const state = useStore((s) => s.conn.connection?.state);
  const rl = useStore((s) => s.conn.rateLimit);
  const progress = useStore((s) => s.conn.progress);
  const active = useStore((s) => s.conn.activeTrades);
  const unacked = useStore((s) => s.conn.unacknowledgedFirings);
  const demo = useStore((s) => s.conn.account?.demo ?? false);
  const down = useStore((s) => s.conn.bridge === 'lost' || s.conn.bridge === 'expired');
  return (
    <section className="statusbar" aria-label="Status bar">
      <Feed />
      {down ? <span className="badge error">DISCONNECTED</span> : null}
      {!down && state === 'offline' ? <span className="badge error">OFFLINE</span> : null}
      {!down && state === 'maintenance' ? <span className="badge warn">MAINTENANCE</span> : null}
      {!down && state === 'unauthorized' ? <span className="badge error">UNAUTHORIZED</span> : null}
      {demo ? <span className="badge demo">DEMO</span> : null}
      <RateLimits rl={rl} maintenance={!down && state === 'maintenance'} />
      <span className="sb-progress" aria-live="polite">
        {progress.map((p) => (
          <Progress key={p.kind} p={p} />
        ))}
        <ExportStatusItem />
        <UpdateStatusItem />
      </span>
      <span className="sb-spacer" />
      <AutoBuyStatusItem />
      <button type="button" className="sb-btn" onClick={() => navigate('trades')} title="Open active trades">
        <span className="num strong">{active}</span> active trade{active === 1 ? '' : 's'}
      </button>
      <button
        type="button"
        className={`sb-btn ${unacked ? 'attention' : ''}`}
        onClick={() => navigate('alerts')}
        title="Open alerts"
      >
        <span className="num strong">{unacked}</span> unacknowledged alert{unacked === 1 ? '' : 's'}
      </button>
    </section>
  );
}
