import { useEffect, useRef } from 'react';
import type { BuyFailure } from '../../../../shared/ipc/models';
import { Money } from '../../components/Money';
import { TimeAgo } from '../../components/TimeAgo';
import { formatCents, formatDateTime } from '../../lib/format';

const TITLES: Record<string, string> = {
  price_changed: 'The price changed',
  price_too_high: 'Every match costs more than your maximum',
  partner_blocked: 'The recipient is temporarily blocked',
  insufficient_balance: 'Not enough balance',
  item_unavailable: 'The item is no longer available',
  too_many_active_trades: 'Too many active trades',
  invalid_tradeurl: 'The trade URL was refused',
  duplicate_external_id: 'That order ID was used before',
  asset_mismatch: 'The asset changed',
  maintenance: 'The marketplace is under maintenance',
  rate_limited: 'Rate limited',
  not_sent: 'Not sent: the marketplace could not be reached',
  outcome_unknown: 'No answer: the buy may or may not have gone through',
};

/** A refused buy: what happened, what to do, and the one-click follow-ups. */
export function BuyFailureView({
  failure,
  onRebuy,
  busy,
}: {
  failure: BuyFailure;
  onRebuy?: (price: number) => void;
  busy: boolean;
}) {
  const rebuyRef = useRef<HTMLButtonElement>(null);
  const offersRebuy = failure.code === 'price_changed' && failure.newPrice !== undefined && onRebuy !== undefined;
  // Keyboard-first: the one-click re-buy has the focus, so Enter buys at the new price.
  useEffect(() => {
    if (offersRebuy) rebuyRef.current?.focus();
  }, [offersRebuy, failure]);
  return (
    <div className="buy-failure" role="alert">
      <div className="failure-head">
        <span className="failure-icon" aria-hidden="true">
          !
        </span>
        <div>
          <div className="failure-title">{TITLES[failure.code] ?? 'The buy did not go through'}</div>
          <code className="failure-code">{failure.code}</code>
        </div>
      </div>
      <p className="failure-message">{failure.message}</p>
      {failure.code === 'partner_blocked' && failure.blockedUntil ? (
        <p className="failure-fact">
          Blocked until <strong className="num">{formatDateTime(failure.blockedUntil)}</strong> (
          <TimeAgo iso={failure.blockedUntil} />)
        </p>
      ) : null}
      {failure.code === 'insufficient_balance' && failure.available !== undefined ? (
        <p className="failure-fact">
          Available to spend: <Money cents={failure.available} className="strong" />
        </p>
      ) : null}
      <p className="failure-next">
        <span className="muted">Next step: </span>
        {failure.nextStep}
      </p>
      {offersRebuy ? (
        <button
          ref={rebuyRef}
          type="button"
          className="btn primary"
          disabled={busy}
          onClick={() => onRebuy?.(failure.newPrice as number)}
        >
          Buy at {formatCents(failure.newPrice as number)}
          <kbd aria-hidden="true">Enter</kbd>
        </button>
      ) : null}
    </div>
  );
}
