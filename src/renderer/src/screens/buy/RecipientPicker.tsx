import { useId } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { isValidTradeUrl, redactTradeUrl } from '../../../../shared/api/tradeUrl';
import { Field } from '../../components/Field';
import { tradeUrlProblem } from '../../lib/tradeUrlHint';
import { useStore } from '../../state/store';

export type RecipientChoice = { kind: 'saved'; id: string } | { kind: 'paste'; url: string };

export function recipientInput(choice: RecipientChoice): { recipientId: string } | { tradeUrl: string } {
  return choice.kind === 'saved' ? { recipientId: choice.id } : { tradeUrl: choice.url.trim() };
}

export function recipientReady(choice: RecipientChoice): boolean {
  return choice.kind === 'saved' ? choice.id !== '' : isValidTradeUrl(choice.url.trim());
}

/** Describe the chosen recipient for the confirm step, token redacted. */
export function useRecipientLabel(choice: RecipientChoice): string {
  const saved = useStore((s) => (choice.kind === 'saved' ? s.settings.recipients[choice.id] : undefined));
  if (choice.kind === 'saved') return saved ? `${saved.label} · ${redactTradeUrl(saved.tradeUrl)}` : 'Saved recipient';
  return redactTradeUrl(choice.url.trim());
}

/** Saved recipients or a pasted trade URL, validated as you type. */
export function RecipientPicker({
  value,
  onChange,
}: {
  value: RecipientChoice;
  onChange: (c: RecipientChoice) => void;
}) {
  const id = useId();
  const { order, recipients } = useStore(
    useShallow((s) => ({ order: s.settings.recipientOrder, recipients: s.settings.recipients })),
  );
  const problem = value.kind === 'paste' ? tradeUrlProblem(value.url) : null;
  const valid = value.kind === 'paste' && isValidTradeUrl(value.url.trim());
  return (
    <div className="recipient-picker">
      {order.length > 0 ? (
        <Field label="Recipient" htmlFor={`${id}-saved`}>
          <select
            id={`${id}-saved`}
            value={value.kind === 'saved' ? value.id : ''}
            onChange={(e) =>
              onChange(e.target.value === '' ? { kind: 'paste', url: '' } : { kind: 'saved', id: e.target.value })
            }
          >
            {order.map((rid) => {
              const r = recipients[rid];
              return r ? (
                <option key={rid} value={rid}>
                  {r.label} — {redactTradeUrl(r.tradeUrl)}
                </option>
              ) : null;
            })}
            <option value="">Paste a trade URL…</option>
          </select>
        </Field>
      ) : null}
      {value.kind === 'paste' ? (
        <Field
          label="Recipient trade URL"
          htmlFor={`${id}-url`}
          error={problem}
          hint={
            valid ? (
              <span className="ok-text">✓ Valid trade URL</span>
            ) : (
              'Paste the recipient’s trade offer link from Steam'
            )
          }
        >
          <input
            id={`${id}-url`}
            type="url"
            data-autofocus
            inputMode="url"
            autoComplete="off"
            spellCheck={false}
            placeholder="https://steamcommunity.com/tradeoffer/new/?partner=…&token=…"
            value={value.url}
            aria-invalid={problem ? true : undefined}
            aria-describedby={`${id}-url-msg`}
            onChange={(e) => onChange({ kind: 'paste', url: e.target.value })}
            className={valid ? 'valid' : ''}
          />
        </Field>
      ) : null}
    </div>
  );
}
