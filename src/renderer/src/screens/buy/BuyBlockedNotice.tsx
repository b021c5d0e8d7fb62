import type { ConnectionState } from '../../../../shared/ipc/models';
import { openApiKeyField } from '../../state/actions/navigation';
import { useStore } from '../../state/store';

/** Why a buy cannot go out now, from the account and the connection the engine reports; null when it can. */
export function buyBlockedReason(state: ConnectionState | undefined, cacheOnly = false): string | null {
  // Without its key the account is offline by choice, not by the network: the way on is the key.
  if (cacheOnly)
    return 'Read-only: no API key for this account on this machine, so nothing can be bought. Enter your API key to go live.';
  switch (state) {
    case 'offline':
      return 'The marketplace cannot be reached, so a buy would not be sent. Buying resumes when the connection is back.';
    case 'maintenance':
      return 'The marketplace is under maintenance, so a buy would be refused. Buying resumes when maintenance ends.';
    case 'unauthorized':
      return 'The marketplace refused the API key or merchant ID: check them in Settings before buying.';
    default:
      return null;
  }
}

export function useBuyBlockedReason(): string | null {
  return useStore((s) => buyBlockedReason(s.conn.connection?.state, s.conn.account?.cacheOnly === true));
}

/** Shown above a buy form while buying cannot work; the form's Review button is disabled meanwhile. */
export function BuyBlockedNotice({ reason }: { reason: string | null }) {
  const cacheOnly = useStore((s) => s.conn.account?.cacheOnly === true);
  if (reason === null) return null;
  return (
    <div className="notice warn" role="status">
      {reason}
      {cacheOnly ? (
        <>
          {' '}
          <button type="button" className="link-btn" onClick={openApiKeyField}>
            Enter API key
          </button>
        </>
      ) : null}
    </div>
  );
}
