import { useStore } from '../state/store';

export const BRIDGE_LOST_TEXT = 'Connection to Merchant Desk lost — reconnecting…';
export const BRIDGE_EXPIRED_TEXT = 'Session expired — open the URL printed by npm run web';

/**
 * In the browser the page reaches Merchant Desk through the web host: when that link is
 * down nothing on screen is live and no action can go through, whatever the feed said last.
 */
export function BridgeBanner() {
  const bridge = useStore((s) => s.conn.bridge);
  if (bridge === 'lost') {
    return (
      <div className="banner error bridge-banner" role="alert">
        <span className="spinner sm" aria-hidden="true" />
        <strong>{BRIDGE_LOST_TEXT}</strong>
        <span className="muted">
          {' '}
          What is on screen is frozen until it is back; nothing you do here reaches the marketplace.
        </span>
      </div>
    );
  }
  if (bridge === 'expired') {
    return (
      <div className="banner error bridge-banner" role="alert">
        <strong>{BRIDGE_EXPIRED_TEXT}</strong>
        <span className="muted">
          {' '}
          This page holds no valid access token: it was opened without the printed URL, or the web host restarted with a
          new token. Open the <code>Merchant Desk web host: http://…/?token=…</code> line&apos;s URL in this browser and
          this page reconnects by itself.
        </span>
      </div>
    );
  }
  return null;
}
