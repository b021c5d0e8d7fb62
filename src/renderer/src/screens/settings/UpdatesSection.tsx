import { updateSettings } from '../../state/actions/settings';
import { useStore } from '../../state/store';

/** The desktop app's update checks (the web host has no updates: nothing to switch). */
export function UpdatesSection() {
  const host = useStore((s) => s.conn.host);
  const settings = useStore((s) => s.settings.settings);
  if (host !== 'electron') return null;
  return (
    <section className="panel settings-section" aria-labelledby="settings-updates">
      <h2 className="panel-title" id="settings-updates">
        Updates
      </h2>
      <label className="check">
        <input
          type="checkbox"
          role="switch"
          disabled={!settings}
          checked={settings?.checkForUpdates !== false}
          onChange={(e) => void updateSettings({ checkForUpdates: e.target.checked })}
        />{' '}
        Check for updates
      </label>
      <p className="muted small">
        At start and every 6 hours. A new version downloads in the background and installs only when you choose “Restart
        and install” in the status bar.
      </p>
    </section>
  );
}
