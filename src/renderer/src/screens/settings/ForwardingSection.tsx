import { useId, useState } from 'react';
import { forwardHost, parseForwardUrl } from '../../../../shared/forwardUrl';
import { Field } from '../../components/Field';
import { formatDateTime } from '../../lib/format';
import { api, errorMessage, unwrap } from '../../lib/ipc';
import { toast } from '../../state/actions/toast';
import { update, useStore } from '../../state/store';

type ForwardCategory = 'trade' | 'alert' | 'auto-buy' | 'connection';

const CATEGORIES: { value: ForwardCategory; label: string }[] = [
  { value: 'trade', label: 'Trades' },
  { value: 'alert', label: 'Alerts' },
  { value: 'auto-buy', label: 'Auto-buy' },
  { value: 'connection', label: 'Connection' },
];

/** "To the phone": notifications forwarded to a chat webhook (Discord-compatible, or a Telegram bot). */
export function ForwardingSection() {
  const id = useId();
  const settings = useStore((s) => s.settings.settings);
  const status = useStore((s) => s.away.forwarding);
  const [url, setUrl] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const current = settings?.forwardUrl ?? null;
  const categories = settings?.forwardCategories ?? [];

  const save = async (forwardUrl: string | null, forwardCategories?: ForwardCategory[]) => {
    setSaving(true);
    try {
      const saved = await unwrap(
        api().settings.update({ forwardUrl, ...(forwardCategories ? { forwardCategories } : {}) }),
      );
      update('settings', (s) => ({ ...s, settings: saved }));
      setUrl('');
      setError(null);
      toast(
        'success',
        forwardUrl === null ? 'Forwarding turned off' : `Forwarding to ${forwardHost(saved.forwardUrl ?? '')}`,
      );
    } catch (problem) {
      setError(errorMessage(problem));
    } finally {
      setSaving(false);
    }
  };

  const submit = () => {
    const parsed = parseForwardUrl(url);
    if (!parsed.ok) {
      setError(parsed.problem);
      return;
    }
    void save(url.trim());
  };

  const toggle = async (category: ForwardCategory, on: boolean) => {
    const next = on ? [...categories, category] : categories.filter((c) => c !== category);
    try {
      const saved = await unwrap(api().settings.update({ forwardCategories: next }));
      update('settings', (s) => ({ ...s, settings: saved }));
    } catch (problem) {
      toast('error', 'Could not save the setting', errorMessage(problem));
    }
  };

  return (
    <section className="panel settings-section" aria-labelledby={`${id}-title`}>
      <h2 className="panel-title" id={`${id}-title`}>
        Forward to a chat
      </h2>
      <p className="muted small">
        {current
          ? `Forwarding to ${forwardHost(current)} (the URL's token is not shown). At most one message every few seconds; bursts are merged.`
          : 'Off. Paste a Discord webhook URL, or a Telegram bot URL: https://api.telegram.org/bot<token>/sendMessage?chat_id=<chat>.'}{' '}
        No API key or trade URL token is ever sent.
      </p>
      <form
        className="forward-form"
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <Field label={current ? 'New webhook URL' : 'Webhook URL'} htmlFor={`${id}-url`} error={error}>
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
          {current ? (
            <button type="button" className="btn" disabled={saving} onClick={() => void save(null)}>
              Turn off
            </button>
          ) : null}
        </div>
      </form>
      <div className="check-grid" role="group" aria-label="Forward these notifications">
        {CATEGORIES.map(({ value, label }) => (
          <label key={value} className="check">
            <input
              type="checkbox"
              disabled={!settings}
              checked={categories.includes(value)}
              onChange={(event) => void toggle(value, event.target.checked)}
            />
            {label}
          </label>
        ))}
      </div>
      {current && status ? (
        <p className={status.problem ? 'warn-text small' : 'muted small'} role="status" data-testid="forward-status">
          {status.problem ??
            (status.lastSentAt
              ? `Last message delivered ${formatDateTime(status.lastSentAt)}.`
              : 'Nothing forwarded yet.')}
          {status.pending > 0 ? ` ${status.pending} waiting.` : ''}
        </p>
      ) : null}
    </section>
  );
}
