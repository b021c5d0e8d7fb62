import { useId, useState } from 'react';
import { Field } from '../../components/Field';
import { api, errorMessage, unwrap } from '../../lib/ipc';
import { toast } from '../../state/actions/toast';
import { update, useStore } from '../../state/store';

/** Webhook replay (Operations → Webhook health): off by default; the merchant's own webhook URL. */
export function ReplaySection() {
  const id = useId();
  const settings = useStore((s) => s.settings.settings);
  const [url, setUrl] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  /** The switch as the user just set it, until the engine answers (a controlled box would spring back meanwhile). */
  const [pendingEnabled, setPendingEnabled] = useState<boolean | null>(null);
  const enabled = settings?.webhookReplayEnabled === true;
  const current = settings?.webhookReplayUrl ?? null;

  const save = async (patch: { webhookReplayEnabled?: boolean; webhookReplayUrl?: string | null }) => {
    setSaving(true);
    try {
      const saved = await unwrap(api().settings.update(patch));
      update('settings', (s) => ({ ...s, settings: saved }));
      // Only the URL's own save empties the field: the switch's answer must not wipe a URL typed meanwhile.
      if (patch.webhookReplayUrl !== undefined) setUrl('');
      setError(null);
      toast('success', saved.webhookReplayEnabled ? 'Webhook replay is on' : 'Webhook replay is off');
    } catch (problem) {
      setError(errorMessage(problem));
    } finally {
      setSaving(false);
      setPendingEnabled(null);
    }
  };

  return (
    <section className="panel settings-section" aria-labelledby={`${id}-title`}>
      <h2 className="panel-title" id={`${id}-title`}>
        Webhook replay
      </h2>
      <p className="muted small">
        Re-send missed trade_updated webhooks to your own back end from Operations → Webhook health, signed with your
        API key exactly as the marketplace signs them (the key stays in the desk). Public http(s) addresses only.
        {current ? ` Now: ${new URL(current).host} (the path is not shown).` : ''}
      </p>
      <label className="check">
        <input
          type="checkbox"
          disabled={!settings || saving}
          checked={pendingEnabled ?? enabled}
          onChange={(event) => {
            setPendingEnabled(event.target.checked);
            void save({ webhookReplayEnabled: event.target.checked });
          }}
        />
        Allow replaying missed webhooks
      </label>
      <form
        className="forward-form"
        onSubmit={(event) => {
          event.preventDefault();
          void save({ webhookReplayUrl: url.trim() });
        }}
      >
        <Field label={current ? 'New webhook URL' : 'Your webhook URL'} htmlFor={`${id}-url`} error={error}>
          <input
            id={`${id}-url`}
            type="url"
            spellCheck={false}
            autoComplete="off"
            value={url}
            disabled={!settings}
            onChange={(event) => {
              setUrl(event.target.value);
              setError(null);
            }}
            placeholder="https://"
          />
        </Field>
        <div className="form-actions">
          <button type="submit" className="btn primary" disabled={!settings || saving || url.trim() === ''}>
            Save
          </button>
        </div>
      </form>
    </section>
  );
}
