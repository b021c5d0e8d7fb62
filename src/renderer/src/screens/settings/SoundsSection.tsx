import type { NotificationCategory } from '../../../../shared/ipc/models';
import { CATEGORY_LABELS, NOTIFICATION_CATEGORIES } from '../../../../shared/notifications';
import { webAudioChime } from '../../lib/sound';
import { updateSettings } from '../../state/actions/settings';
import { toggled } from '../../state/slices/inbox';
import { useStore } from '../../state/store';

/** Sounds: off until a kind is chosen; one switch mutes them all and keeps the choice. */
export function SoundsSection() {
  const settings = useStore((s) => s.settings.settings);
  const chosen = settings?.soundCategories ?? [];
  const muted = settings?.soundMuted === true;
  const toggle = (category: NotificationCategory) =>
    void updateSettings({ soundCategories: toggled(chosen, category) });
  return (
    <section className="panel settings-section" aria-labelledby="settings-sounds">
      <h2 className="panel-title" id="settings-sounds">
        Sounds
      </h2>
      <p className="muted small">Play a short sound for these notifications (off by default):</p>
      <div className="check-grid" role="group" aria-label="Play a sound for">
        {NOTIFICATION_CATEGORIES.map((category) => (
          <div key={category} className="sound-choice">
            <label className="check">
              <input
                type="checkbox"
                disabled={!settings}
                checked={chosen.includes(category)}
                onChange={() => toggle(category)}
              />
              {CATEGORY_LABELS[category]}
            </label>
            <button
              type="button"
              className="btn sm ghost"
              onClick={() => webAudioChime(category)}
              aria-label={`Play the ${CATEGORY_LABELS[category]} sound`}
            >
              Play
            </button>
          </div>
        ))}
      </div>
      <label className="check">
        <input
          type="checkbox"
          disabled={!settings}
          checked={muted}
          onChange={(e) => void updateSettings({ soundMuted: e.target.checked })}
        />{' '}
        Mute all sounds
      </label>
    </section>
  );
}
