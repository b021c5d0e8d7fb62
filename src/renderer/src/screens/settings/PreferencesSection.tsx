import { type CSSProperties, useId, useState } from 'react';
import type { TradeStatus } from '../../../../shared/api';
import { FILTER_STATUSES, STATUS_COLORS, STATUS_LABELS } from '../../lib/status';
import { requestWebNotifications, webNotificationPermission } from '../../state/actions/boot';
import { sendTestNotification, updateSettings } from '../../state/actions/settings';
import { toast } from '../../state/actions/toast';
import { useStore } from '../../state/store';

function WebNotifications() {
  const [permission, setPermission] = useState(webNotificationPermission);
  if (permission === 'unsupported')
    return <p className="muted small">This browser cannot show desktop notifications; in-app toasts still appear.</p>;
  if (permission === 'granted') return <p className="ok-text small">Desktop notifications are on for this browser.</p>;
  if (permission === 'denied')
    return (
      <p className="warn-text small">
        Desktop notifications are blocked for this page. Allow them in the browser’s site settings.
      </p>
    );
  return (
    <button
      type="button"
      className="btn"
      onClick={async () => {
        const result = await requestWebNotifications();
        setPermission(result);
        if (result === 'granted') toast('success', 'Desktop notifications enabled');
      }}
    >
      Enable desktop notifications
    </button>
  );
}

/** Shows one now, and says where to look when the system keeps it quiet. */
function TestNotification({ host }: { host: 'electron' | 'web' | null }) {
  const hintId = useId();
  const [result, setResult] = useState<{ shown: boolean; detail: string } | null>(null);
  return (
    <div className="test-notify">
      <button
        type="button"
        className="btn"
        aria-describedby={hintId}
        onClick={async () => setResult(await sendTestNotification())}
      >
        Send a test notification
      </button>
      <p className={`small ${result && !result.shown ? 'warn-text' : 'ok-text'}`} role="status">
        {result?.detail ?? ''}
      </p>
      <p className="muted small" id={hintId}>
        Nothing appeared? The system may be keeping notifications quiet: check Focus Assist or Do Not Disturb
        {host === 'web'
          ? ', and that this browser may show notifications (the system’s notification settings, and the site’s).'
          : ' (Windows: Settings → System → Notifications; macOS: System Settings → Notifications and Focus; Linux: your desktop’s notification settings), and that Merchant Desk is allowed to show them.'}
      </p>
    </div>
  );
}

export function NotificationsSection() {
  const settings = useStore((s) => s.settings.settings);
  const host = useStore((s) => s.conn.host);
  const statuses = settings?.notifyStatuses ?? [];
  const toggle = (status: TradeStatus, on: boolean) =>
    void updateSettings({ notifyStatuses: on ? [...statuses, status] : statuses.filter((s) => s !== status) });
  return (
    <section className="panel settings-section" aria-labelledby="settings-notifications">
      <h2 className="panel-title" id="settings-notifications">
        Notifications
      </h2>
      <p className="muted small">Notify me when a trade becomes:</p>
      <div className="check-grid" role="group" aria-label="Notify on trade status">
        {FILTER_STATUSES.map((status) => (
          <label
            key={status}
            className="check status-check"
            style={{ '--status-color': STATUS_COLORS[status] } as CSSProperties}
          >
            <input
              type="checkbox"
              disabled={!settings}
              checked={statuses.includes(status)}
              onChange={(e) => toggle(status, e.target.checked)}
            />
            <span className="status-dot" aria-hidden="true" />
            {STATUS_LABELS[status]}
          </label>
        ))}
      </div>
      <label className="check">
        <input
          type="checkbox"
          disabled={!settings}
          checked={settings?.notifyAlerts ?? false}
          onChange={(e) => void updateSettings({ notifyAlerts: e.target.checked })}
        />{' '}
        Notify me when an alert rule fires
      </label>
      {host === 'web' ? (
        <div className="web-notify">
          <WebNotifications />
        </div>
      ) : null}
      <TestNotification host={host} />
    </section>
  );
}

export function AppearanceSection() {
  const theme = useStore((s) => s.settings.settings?.theme ?? 'dark');
  const closeToTray = useStore((s) => s.settings.settings?.closeToTray ?? false);
  const host = useStore((s) => s.conn.host);
  const ready = useStore((s) => s.settings.settings !== null);
  return (
    <section className="panel settings-section" aria-labelledby="settings-appearance">
      <div className="panel-head compact">
        <h2 className="panel-title" id="settings-appearance">
          Appearance
        </h2>
        <div className="segmented" role="radiogroup" aria-label="Theme">
          {(['dark', 'light'] as const).map((t) => (
            <label key={t} className={`segment ${theme === t ? 'on' : ''}`}>
              <input
                type="radio"
                name="theme"
                value={t}
                disabled={!ready}
                checked={theme === t}
                onChange={() => void updateSettings({ theme: t })}
              />
              {t === 'dark' ? 'Dark' : 'Light'}
            </label>
          ))}
        </div>
      </div>
      {host === 'electron' ? (
        <label className="check">
          <input
            type="checkbox"
            checked={closeToTray}
            onChange={(e) => void updateSettings({ closeToTray: e.target.checked })}
          />{' '}
          Keep running in the tray when the window closes
        </label>
      ) : null}
      {host === 'electron' ? <StartWithSession /> : null}
    </section>
  );
}

/** Desktop only (a browser tab cannot start itself): the shell keeps the OS's login entry in step and corrects the setting to what is really on. */
function StartWithSession() {
  const ready = useStore((s) => s.settings.settings !== null);
  const on = useStore((s) => s.settings.settings?.startWithSession === true);
  const stateId = useId();
  return (
    <>
      <label className="check">
        <input
          type="checkbox"
          disabled={!ready}
          checked={on}
          aria-describedby={stateId}
          onChange={(e) => void updateSettings({ startWithSession: e.target.checked })}
        />{' '}
        Start with the session, in the tray
      </label>
      <p className="muted small" id={stateId} role="status">
        {on ? 'On: Merchant Desk starts in the tray when you log in.' : 'Off: Merchant Desk starts when you open it.'}
      </p>
    </>
  );
}
