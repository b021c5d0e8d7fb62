import { Icon } from '../components/Icon';
import { Money } from '../components/Money';
import { formatDateTime } from '../lib/format';
import { togglePalette } from '../state/actions/dialogs';
import { balanceIsLive } from '../state/slices/wallet';
import { SCREENS } from '../state/slices/ui';
import { useStore } from '../state/store';
import { SavedSearchesNav } from './SavedSearchesNav';

function NavBadge({ screen }: { screen: string }) {
  const active = useStore((s) => s.conn.activeTrades);
  const unacked = useStore((s) => s.conn.unacknowledgedFirings);
  const unread = useStore((s) => s.inbox.unread);
  const n = screen === 'trades' ? active : screen === 'alerts' ? unacked : screen === 'notifications' ? unread : 0;
  if (!n) return null;
  return (
    <span className={`nav-badge ${screen === 'alerts' ? 'alert' : ''}`} aria-hidden="true">
      {n > 99 ? '99+' : n}
    </span>
  );
}

export function Nav() {
  const screen = useStore((s) => s.ui.screen);
  const available = useStore((s) => s.wallet.balance?.total_available);
  const balanceAt = useStore((s) => s.wallet.balanceAt);
  const cached = useStore((s) => s.wallet.balance !== null && !balanceIsLive(s.conn.connection?.state));
  const demo = useStore((s) => s.conn.account?.demo ?? false);
  return (
    <nav className="nav" aria-label="Main">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true">
          <svg viewBox="0 0 20 20" width="18" height="18">
            <path
              d="M3 14l4-5 3 3 4-6 3 4"
              fill="none"
              stroke="currentColor"
              strokeWidth="2"
              strokeLinecap="round"
              strokeLinejoin="round"
            />
          </svg>
        </span>
        <span className="brand-name">Merchant Desk</span>
      </div>
      {demo ? (
        <div className="demo-flag" title="Connected to the embedded demo sandbox, not a real marketplace">
          DEMO SANDBOX
        </div>
      ) : null}
      <ul className="nav-list">
        {SCREENS.map((s) => (
          <li key={s.id}>
            <a
              href={`#/${s.id}`}
              aria-current={screen === s.id ? 'page' : undefined}
              className={`nav-link ${screen === s.id ? 'on' : ''}`}
            >
              <Icon name={s.id} size={17} />
              <span className="nav-label">{s.label}</span>
              <NavBadge screen={s.id} />
              <kbd className="nav-key" aria-hidden="true">
                G {s.key}
              </kbd>
            </a>
            {s.id === 'catalog' ? <SavedSearchesNav /> : null}
          </li>
        ))}
      </ul>
      <div className="nav-foot">
        <div
          className="nav-balance"
          title={balanceAt ? `Given by the marketplace at ${formatDateTime(balanceAt)}` : undefined}
        >
          <span className="muted small">Available{cached ? ' · cached' : ''}</span>
          <Money cents={available} className="strong" />
        </div>
        <button type="button" className="palette-btn" onClick={togglePalette}>
          <Icon name="command" size={14} />
          <span>Commands</span>
          <kbd aria-hidden="true">Ctrl K</kbd>
        </button>
      </div>
    </nav>
  );
}
