import { useState } from 'react';
import type { BuyByIdInput } from '../../../../shared/ipc/contract';
import type { BuyFailure, BuyWarning } from '../../../../shared/ipc/models';
import { Warnings } from './Warnings';
import { Dialog } from '../../components/Dialog';
import { ItemImage } from '../../components/ItemImage';
import { Money } from '../../components/Money';
import { formatCents, formatDurationSeconds, formatFloat } from '../../lib/format';
import { errorMessage } from '../../lib/ipc';
import { buyById, checkBuy } from '../../state/actions/buy';
import { closeDialog } from '../../state/actions/dialogs';
import type { Dialog as DialogState } from '../../state/slices/ui';
import { useStore } from '../../state/store';
import { BuyBlockedNotice, useBuyBlockedReason } from './BuyBlockedNotice';
import { BuyFailureView } from './BuyFailureView';
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
  | { kind: 'confirm'; input: BuyByIdInput; checking: boolean; warnings: BuyWarning[]; checkError: string | null }
  | { kind: 'submitting'; input: BuyByIdInput }
  | { kind: 'failed'; input: BuyByIdInput; failure: BuyFailure };

/** "Buy item": recipient, options, a confirm step with the exact price, then the outcome. */
export function BuyDialog({ dialog }: { dialog: Extract<DialogState, { kind: 'buy' }> }) {
  const { row } = dialog;
  const livePrice = useStore((s) => s.catalog.rows[row.itemId]?.price);
  const gone = useStore((s) => s.catalog.removed[row.itemId] === true);
  const [price, setPrice] = useState(row.price);
  const [recipient, setRecipient] = useState<RecipientChoice>(initialRecipient);
  const [options, setOptions] = useState<BuyOptionsValue>(DEFAULT_OPTIONS);
  const [step, setStep] = useState<Step>({ kind: 'form' });
  const [error, setError] = useState<string | null>(null);
  const recipientText = useRecipientLabel(recipient);
  const blocked = useBuyBlockedReason();
  const moved = livePrice !== undefined && livePrice !== price;
  const ready = recipientReady(recipient) && optionsReady(options);

  const buildInput = (atPrice: number): BuyByIdInput => ({
    itemId: row.itemId,
    assetId: row.assetId,
    price: atPrice,
    recipient: recipientInput(recipient),
    tradeDurationSeconds: Number(options.duration),
    ...(options.externalId.trim() ? { externalId: options.externalId.trim() } : {}),
  });

  const confirmRef = useFocusWhenReady<HTMLButtonElement>(step.kind === 'confirm' && !step.checking);

  const confirmInput = step.kind === 'confirm' ? step.input : null;
  useConfirmCheck(confirmInput, checkBuy, (input, outcome) =>
    setStep((s) =>
      s.kind === 'confirm' && s.input === input
        ? { ...s, checking: false, ...(outcome.ok ? { warnings: outcome.result } : { checkError: outcome.error }) }
        : s,
    ),
  );

  const submit = async (input: BuyByIdInput) => {
    setError(null);
    setStep({ kind: 'submitting', input });
    try {
      const outcome = await buyById(input);
      if (!outcome.ok) setStep({ kind: 'failed', input, failure: outcome.failure });
    } catch (e) {
      setError(errorMessage(e));
      setStep({ kind: 'confirm', input, checking: false, warnings: [], checkError: null });
    }
  };

  const review = () => {
    if (!ready || blocked !== null) return;
    setStep({ kind: 'confirm', input: buildInput(price), checking: true, warnings: [], checkError: null });
  };

  const busy = step.kind === 'submitting';
  return (
    <Dialog title="Buy item" onClose={closeDialog} className="buy-dialog">
      <div className="buy-item">
        <ItemImage src={row.img} name={row.market_hash_name} rarity={row.rarityColor} size={88} />
        <div className="buy-item-main">
          <div className="buy-item-name">{row.market_hash_name}</div>
          <div className="muted small">
            {row.phase ? `${row.phase} · ` : ''}Float <span className="num">{formatFloat(row.float)}</span> · Item{' '}
            <span className="num">{row.itemId}</span>
          </div>
        </div>
        <div className="buy-item-price">
          <Money cents={step.kind === 'form' ? price : step.input.price} className="big" />
        </div>
      </div>

      {gone ? <div className="notice error">This item just left sale; the buy will most likely be refused.</div> : null}
      {moved && step.kind !== 'submitting' ? (
        <div className="notice warn">
          The price moved to <Money cents={livePrice} className="strong" /> since you opened this.{' '}
          <button
            type="button"
            className="link-btn"
            onClick={() => {
              setPrice(livePrice);
              setStep({ kind: 'form' });
            }}
          >
            Use {formatCents(livePrice)}
          </button>
        </div>
      ) : null}

      {step.kind === 'form' ? (
        <form
          className="dialog-form"
          onSubmit={(e) => {
            e.preventDefault();
            review();
          }}
        >
          <RecipientPicker value={recipient} onChange={setRecipient} />
          <RecipientStanding choice={recipient} />
          <BuyOptions value={options} onChange={setOptions} />
          <BuyBlockedNotice reason={blocked} />
          <footer className="dialog-actions">
            <button type="button" className="btn ghost" onClick={closeDialog}>
              Cancel
            </button>
            <button type="submit" className="btn primary" data-autofocus disabled={!ready || blocked !== null}>
              Review buy
            </button>
          </footer>
        </form>
      ) : step.kind === 'failed' ? (
        <>
          <BuyFailureView
            failure={step.failure}
            busy={busy}
            onRebuy={(newPrice) => void submit({ ...step.input, price: newPrice })}
          />
          <footer className="dialog-actions">
            <button type="button" className="btn ghost" onClick={closeDialog}>
              Close
            </button>
            <button type="button" className="btn" onClick={() => setStep({ kind: 'form' })}>
              Edit
            </button>
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
              <dt>You pay</dt>
              <dd>
                <Money cents={step.input.price} className="huge" />
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
                  <span className="spinner sm" aria-hidden="true" /> Checking limits and funds…
                </div>
              ) : null}
              <Warnings warnings={step.warnings} />
              {step.checkError ? <div className="notice warn">Pre-checks could not run: {step.checkError}</div> : null}
            </>
          ) : null}
          {error ? (
            <div className="notice error" role="alert">
              {error}
            </div>
          ) : null}
          <footer className="dialog-actions">
            <button type="button" className="btn ghost" disabled={busy} onClick={() => setStep({ kind: 'form' })}>
              Back
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
