import { useId, useState } from 'react';
import type { BuyByNameInput } from '../../../../shared/ipc/contract';
import type { BuyFailure } from '../../../../shared/ipc/models';
import { parseDollarsToCents } from '../../../../shared/money';
import { Dialog } from '../../components/Dialog';
import { Field } from '../../components/Field';
import { Money } from '../../components/Money';
import { centsToInput, formatCents, formatDurationSeconds } from '../../lib/format';
import { errorMessage } from '../../lib/ipc';
import { KNOWN_PHASES } from '../../lib/rarity';
import { buyByName, checkBuyByName, type NameCheck } from '../../state/actions/buy';
import { buyNext, openBuyNext } from '../../state/actions/nextBuy';
import { closeDialog } from '../../state/actions/dialogs';
import type { BuyByNamePrefill, Dialog as DialogState } from '../../state/slices/ui';
import { BuyBlockedNotice, useBuyBlockedReason } from './BuyBlockedNotice';
import { BuyFailureView } from './BuyFailureView';
import { NameCombobox } from './NameCombobox';
import { canonicalName } from './nameSuggestions';
import { Warnings } from './Warnings';
import { BuyOptions, type BuyOptionsValue, DEFAULT_OPTIONS, optionsReady } from './BuyOptions';
import { initialRecipient } from './initialRecipient';
import { RecipientStanding } from './RecipientStanding';
import { useConfirmCheck, useFocusWhenReady } from './useConfirmCheck';
import {
  type RecipientChoice,
  recipientInput,
  RecipientPicker,
  recipientReady,
  useRecipientLabel,
} from './RecipientPicker';

type Step =
  | { kind: 'form' }
  | { kind: 'confirm'; input: BuyByNameInput; checking: boolean; check: NameCheck | null; checkError: string | null }
  | { kind: 'submitting'; input: BuyByNameInput }
  | { kind: 'failed'; input: BuyByNameInput; failure: BuyFailure; externalId: string };

/** The refusals of a buy by name after which "buy the next one" is offered (the cheapest under the same maximum). */
const NEXT_AFTER = new Set(['item_unavailable', 'price_too_high']);

const confirmStep = (input: BuyByNameInput): Step => ({
  kind: 'confirm',
  input,
  checking: true,
  check: null,
  checkError: null,
});

interface NameForm {
  name: string;
  phase: string;
  maxPrice: string;
  targeted: boolean;
  itemId: string;
  assetId: string;
}

function problems(f: NameForm) {
  const cents = parseDollarsToCents(f.maxPrice);
  return {
    name:
      f.name.trim() === ''
        ? 'The full market hash name, e.g. AK-47 | Redline (Field-Tested)'
        : f.name.length > 256
          ? 'At most 256 characters'
          : null,
    maxPrice:
      f.maxPrice.trim() === '' ? null : cents === null || cents <= 0 ? 'A dollar amount above 0, e.g. 125.50' : null,
    itemId: f.targeted && !/^[1-9]\d{0,15}$/.test(f.itemId.trim()) ? 'A positive whole number' : null,
    assetId:
      f.targeted && (f.assetId.trim() === '' || f.assetId.trim().length > 64)
        ? 'Required with the item ID (1–64 characters)'
        : null,
  };
}

/** "Buy the next one" opens at its review: the order id, name, phase, maximum and recipient the engine planned. */
function nextReview(p: BuyByNamePrefill): Step {
  const next = p.next;
  if (!next) return { kind: 'form' };
  return confirmStep({
    market_hash_name: p.market_hash_name ?? '',
    maxPrice: next.cap,
    recipient: { tradeUrl: next.tradeUrl },
    tradeDurationSeconds: Number(DEFAULT_OPTIONS.duration),
    externalId: next.externalId,
    ...(p.phase ? { phase: p.phase } : {}),
  });
}

/** "Buy by name": the cheapest match at or below a maximum price, or one targeted item. */
export function BuyByNameDialog({ dialog }: { dialog: Extract<DialogState, { kind: 'buyByName' }> }) {
  const id = useId();
  const p = dialog.prefill;
  const [form, setForm] = useState<NameForm>({
    name: p.market_hash_name ?? '',
    phase: p.phase ?? '',
    maxPrice: centsToInput(p.maxPrice ?? null),
    targeted: p.itemId !== undefined,
    itemId: p.itemId !== undefined ? String(p.itemId) : '',
    assetId: p.assetId ?? '',
  });
  const next = p.next;
  const [recipient, setRecipient] = useState<RecipientChoice>(() =>
    next ? { kind: 'paste', url: next.tradeUrl } : initialRecipient(),
  );
  const [options, setOptions] = useState<BuyOptionsValue>(
    next ? { ...DEFAULT_OPTIONS, externalId: next.externalId } : DEFAULT_OPTIONS,
  );
  const [step, setStep] = useState<Step>(() => nextReview(p));
  const [error, setError] = useState<string | null>(null);
  const recipientText = useRecipientLabel(recipient);
  const blocked = useBuyBlockedReason();
  const bad = problems(form);
  const maxCents = parseDollarsToCents(form.maxPrice);
  const ready =
    !bad.name &&
    !bad.maxPrice &&
    !bad.itemId &&
    !bad.assetId &&
    maxCents !== null &&
    maxCents > 0 &&
    recipientReady(recipient) &&
    optionsReady(options);
  const set = (patch: Partial<NameForm>) => setForm((f) => ({ ...f, ...patch }));

  const build = (): BuyByNameInput => ({
    market_hash_name: form.name.trim(),
    maxPrice: maxCents ?? 0,
    recipient: recipientInput(recipient),
    tradeDurationSeconds: Number(options.duration),
    ...(options.externalId.trim() ? { externalId: options.externalId.trim() } : {}),
    ...(form.targeted
      ? { itemId: Number(form.itemId.trim()), assetId: form.assetId.trim() }
      : form.phase
        ? { phase: form.phase }
        : {}),
  });

  // The same pre-checks as buy by id, against the listing this buy will most likely get.
  const confirmInput = step.kind === 'confirm' && step.checking ? step.input : null;
  useConfirmCheck(confirmInput, checkBuyByName, (input, outcome) =>
    setStep((s) =>
      s.kind === 'confirm' && s.input === input
        ? { ...s, checking: false, ...(outcome.ok ? { check: outcome.result } : { checkError: outcome.error }) }
        : s,
    ),
  );

  const confirmRef = useFocusWhenReady<HTMLButtonElement>(step.kind === 'confirm' && !step.checking);

  const submit = async (input: BuyByNameInput) => {
    setError(null);
    setStep({ kind: 'submitting', input });
    try {
      const outcome = next
        ? await buyNext({
            from: next.from,
            externalId: next.externalId,
            maxPrice: input.maxPrice,
            ...(input.tradeDurationSeconds !== undefined ? { tradeDurationSeconds: input.tradeDurationSeconds } : {}),
          })
        : await buyByName(input);
      if (!outcome.ok) setStep({ kind: 'failed', input, failure: outcome.failure, externalId: outcome.externalId });
    } catch (e) {
      setError(errorMessage(e));
      setStep({ kind: 'confirm', input, checking: false, check: null, checkError: null });
    }
  };

  /** Review the buy of the cached name meant by what was typed (★, ™ and case ignored). */
  const review = async () => {
    const name = await canonicalName(form.name);
    if (name !== form.name) set({ name });
    setStep(confirmStep({ ...build(), market_hash_name: name }));
  };

  const busy = step.kind === 'submitting';
  return (
    <Dialog
      title={next ? 'Buy the next one' : 'Buy by name'}
      onClose={closeDialog}
      className="buy-dialog"
      subtitle={
        next
          ? `The cheapest listing of the same name for the same recipient, at most the original's ${formatCents(next.cap)}.`
          : 'Buys the cheapest matching item at or below your maximum price.'
      }
    >
      {step.kind === 'form' ? (
        <form
          className="dialog-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (ready && blocked === null) void review();
          }}
        >
          <Field label="Market hash name" htmlFor={`${id}-name`} error={form.name ? bad.name : null}>
            <NameCombobox
              id={`${id}-name`}
              value={form.name}
              invalid={form.name !== '' && bad.name !== null}
              onChange={(name) => set({ name })}
            />
          </Field>
          <div className="form-row">
            <Field
              label="Phase"
              htmlFor={`${id}-phase`}
              hint={form.targeted ? 'Ignored when targeting an item' : 'Only for phase items (Doppler…)'}
            >
              <select
                id={`${id}-phase`}
                value={form.phase}
                disabled={form.targeted}
                onChange={(e) => set({ phase: e.target.value })}
              >
                <option value="">Any phase</option>
                {KNOWN_PHASES.map((ph) => (
                  <option key={ph} value={ph}>
                    {ph}
                  </option>
                ))}
              </select>
            </Field>
            <Field
              label="Max price ($)"
              htmlFor={`${id}-max`}
              error={bad.maxPrice}
              hint="Refused if the item costs more"
            >
              <input
                id={`${id}-max`}
                inputMode="decimal"
                placeholder="0.00"
                value={form.maxPrice}
                onChange={(e) => set({ maxPrice: e.target.value })}
              />
            </Field>
          </div>
          <label className="check">
            <input type="checkbox" checked={form.targeted} onChange={(e) => set({ targeted: e.target.checked })} />{' '}
            Target one specific item
          </label>
          {form.targeted ? (
            <div className="form-row">
              <Field label="Item ID" htmlFor={`${id}-item`} error={form.itemId ? bad.itemId : null}>
                <input
                  id={`${id}-item`}
                  inputMode="numeric"
                  value={form.itemId}
                  onChange={(e) => set({ itemId: e.target.value })}
                />
              </Field>
              <Field label="Asset ID" htmlFor={`${id}-asset`} error={form.assetId ? bad.assetId : null}>
                <input
                  id={`${id}-asset`}
                  spellCheck={false}
                  value={form.assetId}
                  onChange={(e) => set({ assetId: e.target.value })}
                />
              </Field>
            </div>
          ) : null}
          <RecipientPicker value={recipient} onChange={setRecipient} />
          <RecipientStanding choice={recipient} />
          <BuyOptions value={options} onChange={setOptions} />
          <BuyBlockedNotice reason={blocked} />
          <footer className="dialog-actions">
            <button type="button" className="btn ghost" onClick={closeDialog}>
              Cancel
            </button>
            <button type="submit" className="btn primary" disabled={!ready || blocked !== null}>
              Review buy
            </button>
          </footer>
        </form>
      ) : step.kind === 'failed' ? (
        <>
          <BuyFailureView failure={step.failure} busy={busy} />
          <footer className="dialog-actions">
            <button type="button" className="btn ghost" onClick={closeDialog}>
              Close
            </button>
            {next ? null : (
              <button type="button" className="btn" onClick={() => setStep({ kind: 'form' })}>
                Edit
              </button>
            )}
            {NEXT_AFTER.has(step.failure.code) ? (
              <button
                type="button"
                className="btn"
                onClick={() => void openBuyNext({ refusedExternalId: step.externalId })}
              >
                Buy the next one
              </button>
            ) : null}
            {step.failure.retryable ? (
              <button type="button" className="btn" onClick={() => void submit(step.input)}>
                Try again
              </button>
            ) : null}
          </footer>
        </>
      ) : (
        <div className="confirm">
          <dl className="confirm-facts">
            <div>
              <dt>Item</dt>
              <dd>
                <strong>{step.input.market_hash_name}</strong>
                {step.input.phase ? <span className="tag">{step.input.phase}</span> : null}
                {step.input.itemId ? <span className="muted small"> · item {step.input.itemId}</span> : null}
              </dd>
            </div>
            <div>
              <dt>You pay at most</dt>
              <dd>
                <Money cents={step.input.maxPrice} className="huge" />
              </dd>
            </div>
            <div>
              <dt>Recipient</dt>
              <dd className="mono small">{recipientText}</dd>
            </div>
            <div>
              <dt>Offer expires after</dt>
              <dd>{formatDurationSeconds(step.input.tradeDurationSeconds ?? 1800)}</dd>
            </div>
            {step.input.externalId ? (
              <div>
                <dt>Order ID</dt>
                <dd className="mono">{step.input.externalId}</dd>
              </div>
            ) : null}
          </dl>
          {step.kind === 'confirm' ? (
            <>
              {step.checking ? (
                <div className="muted small checking">
                  <span className="spinner sm" aria-hidden="true" /> Checking limits, funds and the local catalog…
                </div>
              ) : null}
              {step.check?.candidate ? (
                <p className="muted small candidate">
                  Cheapest match in the local catalog: <Money cents={step.check.candidate.price} className="strong" />{' '}
                  (item <span className="num">{step.check.candidate.itemId}</span>
                  {step.check.candidate.phase ? `, ${step.check.candidate.phase}` : ''}).
                </p>
              ) : null}
              <Warnings warnings={step.check?.warnings ?? []} />
              {step.checkError ? <div className="notice warn">Pre-checks could not run: {step.checkError}</div> : null}
            </>
          ) : null}
          {error ? (
            <div className="notice error" role="alert">
              {error}
            </div>
          ) : null}
          <footer className="dialog-actions">
            <button
              type="button"
              className="btn ghost"
              disabled={busy}
              onClick={() => (next ? closeDialog() : setStep({ kind: 'form' }))}
            >
              {next ? 'Cancel' : 'Back'}
            </button>
            <button
              ref={confirmRef}
              type="button"
              className="btn primary"
              disabled={busy || (step.kind === 'confirm' && step.checking)}
              onClick={() => void submit(step.input)}
            >
              {busy ? <span className="spinner sm" aria-hidden="true" /> : null}
              Confirm buy
            </button>
          </footer>
        </div>
      )}
    </Dialog>
  );
}
