import { useId, useState } from 'react';
import { isValidTradeUrl, redactTradeUrl } from '../../../../shared/api/tradeUrl';
import { Field } from '../../components/Field';
import { formatDateTime } from '../../lib/format';
import { errorMessage } from '../../lib/ipc';
import { tradeUrlProblem } from '../../lib/tradeUrlHint';
import { deleteRecipient, saveRecipient } from '../../state/actions/settings';
import { toast } from '../../state/actions/ui';
import { useStore } from '../../state/store';

function RecipientRow({ id }: { id: string }) {
  const r = useStore((s) => s.settings.recipients[id]);
  const [armed, setArmed] = useState(false);
  if (!r) return null;
  return (
    <li className="recipient-row">
      <div className="recipient-main">
        <div className="strong">{r.label}</div>
        <div className="mono small muted" title={redactTradeUrl(r.tradeUrl)}>
          {redactTradeUrl(r.tradeUrl)}
        </div>
      </div>
      <span className="muted small">added {formatDateTime(r.createdAt)}</span>
      <button
        type="button"
        className={`btn sm ${armed ? 'danger' : 'ghost'}`}
        aria-label={armed ? `Confirm delete ${r.label}` : `Delete ${r.label}`}
        onBlur={() => setArmed(false)}
        onClick={() => (armed ? void deleteRecipient(r.id) : setArmed(true))}
      >
        {armed ? 'Confirm delete' : 'Delete'}
      </button>
    </li>
  );
}

export function RecipientsSection() {
  const id = useId();
  const order = useStore((s) => s.settings.recipientOrder);
  const status = useStore((s) => s.settings.recipientsStatus);
  const [label, setLabel] = useState('');
  const [url, setUrl] = useState('');
  const [touched, setTouched] = useState(false);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const urlProblem = tradeUrlProblem(url) ?? (touched && url.trim() === '' ? 'Paste the trade URL' : null);
  const labelProblem = touched && label.trim() === '' ? 'Give it a name you will recognise' : label.length > 80 ? 'At most 80 characters' : null;
  const ok = label.trim() !== '' && label.length <= 80 && isValidTradeUrl(url.trim());

  return (
    <section className="panel settings-section" aria-labelledby="settings-recipients">
      <h2 className="panel-title" id="settings-recipients">
        Saved recipients
      </h2>
      {order.length === 0 ? (
        <p className="muted small">{status === 'loading' ? 'Loading…' : 'No saved recipients yet. Save the trade URLs you deliver to, then pick them when buying.'}</p>
      ) : (
        <ul className="recipient-list" aria-label="Saved recipients">
          {order.map((rid) => (
            <RecipientRow key={rid} id={rid} />
          ))}
        </ul>
      )}
      <form
        className="settings-form inline-form"
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          setTouched(true);
          if (!ok) return;
          setSaving(true);
          setError(null);
          try {
            const saved = await saveRecipient({ label: label.trim(), tradeUrl: url.trim() });
            toast('success', 'Recipient saved', saved.label);
            setLabel('');
            setUrl('');
            setTouched(false);
          } catch (err) {
            setError(errorMessage(err));
          } finally {
            setSaving(false);
          }
        }}
      >
        <Field label="Label" htmlFor={`${id}-label`} error={labelProblem}>
          <input id={`${id}-label`} value={label} placeholder="Main storage" onChange={(e) => setLabel(e.target.value)} />
        </Field>
        <Field label="Trade URL" htmlFor={`${id}-url`} error={urlProblem} hint={isValidTradeUrl(url.trim()) ? <span className="ok-text">✓ Valid trade URL</span> : undefined} className="grow">
          <input
            id={`${id}-url`}
            type="url"
            spellCheck={false}
            autoComplete="off"
            value={url}
            placeholder="https://steamcommunity.com/tradeoffer/new/?partner=…&token=…"
            onChange={(e) => setUrl(e.target.value)}
          />
        </Field>
        <button type="submit" className="btn" disabled={saving}>
          Add recipient
        </button>
      </form>
      {error ? (
        <div className="notice error" role="alert">
          {error}
        </div>
      ) : null}
    </section>
  );
}
