import { Countdown, TimeAgo } from '../components/TimeAgo';
import { detailWithoutDelay, nextAttemptAt } from '../lib/connectionDetail';
import { formatDateTime } from '../lib/format';
import { retryConnectionNow } from '../state/actions/connection';
import { navigate, openApiKeyField } from '../state/actions/navigation';
import { useStore } from '../state/store';

/** Says plainly when what is on screen is not live. */
export function OfflineBanner() {
  const connection = useStore((s) => s.conn.connection);
  const rateLimit = useStore((s) => s.conn.rateLimit);
  const syncedAt = useStore((s) => s.catalog.info.syncedAt);
  const cacheOnly = useStore((s) => s.conn.account?.cacheOnly === true);
  if (!connection) return null;
  const cached = syncedAt ? (
    <>
      {' '}
      — showing cached data from <span className="num">{formatDateTime(syncedAt)}</span> (<TimeAgo iso={syncedAt} />)
    </>
  ) : (
    ' — no cached data yet'
  );
  const nextAt = nextAttemptAt(connection, rateLimit);
  const next = nextAt ? (
    <span className="muted">
      {' '}
      · next attempt in <Countdown iso={nextAt} passed="a moment" />
    </span>
  ) : null;
  // Without its API key the account cannot connect: the action is entering the key, not retrying.
  const retry = (
    <>
      {' '}
      {cacheOnly ? (
        <button type="button" className="link-btn" onClick={openApiKeyField}>
          Enter API key
        </button>
      ) : (
        <button type="button" className="link-btn" onClick={() => void retryConnectionNow()}>
          Retry now
        </button>
      )}
    </>
  );
  switch (connection.state) {
    case 'offline':
      return (
        <div className="banner error" role="status">
          <strong>Offline</strong>
          {cached}. {nextAt ? detailWithoutDelay(connection.detail) : connection.detail}
          {next}
          {retry}
        </div>
      );
    case 'maintenance':
      return (
        <div className="banner warn" role="status">
          <strong>Marketplace maintenance</strong>
          {cached}. Buying is unavailable until it ends.{next}
          {retry}
        </div>
      );
    case 'unauthorized':
      return (
        <div className="banner error" role="status">
          <strong>Not authorized</strong> — the API key or merchant ID was refused. {connection.detail}{' '}
          <button type="button" className="link-btn" onClick={() => navigate('settings')}>
            Open Settings
          </button>
        </div>
      );
    default:
      return null;
  }
}
