import { useId, useRef, useState } from 'react';
import { isValidTradeUrl, redactTradeUrl } from '../../../../shared/api/tradeUrl';
import type { Recipient } from '../../../../shared/ipc/models';
import { Field } from '../../components/Field';
import { formatDateTime } from '../../lib/format';
import { errorMessage } from '../../lib/ipc';
import { tradeUrlProblem } from '../../lib/tradeUrlHint';
import { deleteRecipient, saveRecipient } from '../../state/actions/settings';
import { toast } from '../../state/actions/toast';
import { useStore } from '../../state/store';

function RecipientRow({
  id,
  editing,
  onEdit,
}: {
  id: string;
  editing: boolean;
  onEdit: (recipient: Recipient) => void;
}) {
  const r = useStore((s) => s.settings.recipients[id]);
  const [armed, setArmed] = useState(false);
  if (!r) return null;
  return (
    <li className={`recipient-row ${editing ? 'editing' : ''}`}>
      <div className="recipient-main">
        <div className="strong">{r.label}</div>
        <div className="mono small muted" title={redactTradeUrl(r.tradeUrl)}>
          {redactTradeUrl(r.tradeUrl)}
        </div>
      </div>
      <span className="muted small">added {formatDateTime(r.createdAt)}</span>
      <button
        type="button"
        className="btn sm ghost"
        aria-label={`Edit ${r.label}`}
        aria-pressed={editing}
        onClick={() => onEdit(r)}
      >
        Edit
      </button>
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

/** Another saved recipient this one would duplicate (same Steam account or label), as the engine judges it. */
function duplicateOf(
  recipients: Record<string, Recipient>,
  editingId: string | null,
  label: string,
  url: string,
): Recipient | null {
  const partner = /[?&]partner=(\d+)/.exec(url)?.[1];
  const key = label.trim().toLowerCase();
  for (const other of Object.values(recipients)) {
    if (other.id === editingId) continue;
    if (key !== '' && other.label.trim().toLowerCase() === key) return other;
    if (partner !== undefined && /[?&]partner=(\d+)/.exec(other.tradeUrl)?.[1] === partner) return other;
  }
  return null;
}

export function RecipientsSection() {
  const id = useId();
  const order = useStore((s) => s.settings.recipientOrder);
  const recipients = useStore((s) => s.settings.recipients);
  const status = useStore((s) => s.settings.recipientsStatus);
  const [editingId, setEditingId] = useState<string | null>(null);
  const [label, setLabel] = useState('');
  const [url, setUrl] = useState('');
  const [touched, setTouched] = useState(false);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const labelRef = useRef<HTMLInputElement>(null);
  const duplicate = duplicateOf(recipients, editingId, label, url.trim());
  const urlProblem = tradeUrlProblem(url) ?? (touched && url.trim() === '' ? 'Paste the trade URL' : null);
  const labelProblem =
    touched && label.trim() === ''
      ? 'Give it a name you will recognise'
      : label.length > 80
        ? 'At most 80 characters'
        : null;
  const ok = label.trim() !== '' && label.length <= 80 && isValidTradeUrl(url.trim()) && duplicate === null;

  const reset = () => {
    setEditingId(null);
    setLabel('');
    setUrl('');
    setTouched(false);
    setError(null);
  };
  const startEdit = (recipient: Recipient) => {
    setEditingId(recipient.id);
    setLabel(recipient.label);
    setUrl(recipient.tradeUrl);
    setTouched(false);
    setError(null);
    labelRef.current?.focus();
  };

  return (
    <section className="panel settings-section" aria-labelledby="settings-recipients">
      <h2 className="panel-title" id="settings-recipients">
        Saved recipients
      </h2>
      {order.length === 0 ? (
        <p className="muted small">
          {status === 'loading'
            ? 'Loading…'
            : 'No saved recipients yet. Save the trade URLs you deliver to, then pick them when buying.'}
        </p>
      ) : (
        <ul className="recipient-list" aria-label="Saved recipients">
          {order.map((rid) => (
            <RecipientRow key={rid} id={rid} editing={rid === editingId} onEdit={startEdit} />
          ))}
        </ul>
      )}
      <form
        className="settings-form inline-form"
        aria-label={editingId ? 'Edit recipient' : 'Add recipient'}
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          setTouched(true);
          if (!ok) return;
          setSaving(true);
          setError(null);
          try {
            const saved = await saveRecipient({
              ...(editingId ? { id: editingId } : {}),
              label: label.trim(),
              tradeUrl: url.trim(),
            });
            toast('success', editingId ? 'Recipient updated' : 'Recipient saved', saved.label);
            reset();
          } catch (err) {
            setError(errorMessage(err));
          } finally {
            setSaving(false);
          }
        }}
      >
        <Field label="Label" htmlFor={`${id}-label`} error={labelProblem}>
          <input
            ref={labelRef}
            id={`${id}-label`}
            maxLength={80}
            value={label}
            placeholder="Main storage"
            onChange={(e) => setLabel(e.target.value)}
          />
        </Field>
        <Field
          label="Trade URL"
          htmlFor={`${id}-url`}
          error={urlProblem}
          hint={isValidTradeUrl(url.trim()) ? <span className="ok-text">✓ Valid trade URL</span> : undefined}
          className="grow"
        >
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
          {editingId ? 'Save changes' : 'Add recipient'}
        </button>
        {editingId ? (
          <button type="button" className="btn ghost" onClick={reset}>
            Cancel edit
          </button>
        ) : null}
      </form>
      {duplicate ? (
        <div className="notice warn" role="status">
          Already saved as “{duplicate.label}” ({redactTradeUrl(duplicate.tradeUrl)}):{' '}
          {editingId ? 'choose another label or account.' : 'edit that recipient instead.'}{' '}
          {editingId !== duplicate.id ? (
            <button type="button" className="link-btn" onClick={() => startEdit(duplicate)}>
              Edit “{duplicate.label}”
            </button>
          ) : null}
        </div>
      ) : null}
      {error ? (
        <div className="notice error" role="alert">
          {error}
        </div>
      ) : null}
    </section>
  );
}
