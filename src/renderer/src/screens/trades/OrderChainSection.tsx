import { useEffect, useState } from 'react';
import type { Trade } from '../../../../shared/api';
import type { OrderChain } from '../../../../shared/ipc/models';
import { Money } from '../../components/Money';
import { StatusBadge } from '../../components/StatusBadge';
import { formatCents } from '../../lib/format';
import { errorMessage } from '../../lib/ipc';
import { navigate } from '../../state/actions/navigation';
import { loadOrderChain, openBuyNext } from '../../state/actions/nextBuy';

/** A trade that ended so that "buy the next one" applies: sold elsewhere. */
export const soldElsewhere = (trade: Trade) => trade.status === 'CANCELLED' && trade.errorCode === 505;

/**
 * The order's attempts (ORDER → ORDER#2 → …) with each outcome, and "Buy the next one" when the latest was sold
 * elsewhere or refused. Shown for a trade of a chain, or one sold elsewhere; reloaded as the trade changes.
 */
export function OrderChainSection({ trade }: { trade: Trade }) {
  const [chain, setChain] = useState<OrderChain | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { tradeId, updatedAt, externalId } = trade;
  useEffect(() => {
    if (externalId === null) return;
    let live = true;
    loadOrderChain({ tradeId }).then(
      (c) => live && (setChain(c), setError(null)),
      (e: unknown) => live && setError(errorMessage(e)),
    );
    return () => {
      live = false;
    };
  }, [tradeId, updatedAt, externalId]);
  if (externalId === null) {
    return soldElsewhere(trade) ? (
      <section className="detail-section" aria-label="Order chain">
        <h3>Order</h3>
        <p className="muted small">This trade has no order id: buy the item again by name.</p>
      </section>
    ) : null;
  }
  if (error) {
    return (
      <section className="detail-section" aria-label="Order chain">
        <h3>Order</h3>
        <div className="notice error small">Could not load the order&apos;s attempts: {error}</div>
      </section>
    );
  }
  if (!chain || (chain.attempts.length < 2 && !chain.next && !soldElsewhere(trade))) return null;
  const next = chain.next;
  return (
    <section className="detail-section" aria-label="Order chain">
      <h3>Order {chain.root}</h3>
      <ol className="order-chain">
        {chain.attempts.map((attempt) => (
          <li key={attempt.externalId} aria-current={attempt.trade?.tradeId === tradeId ? 'true' : undefined}>
            {attempt.trade && attempt.trade.tradeId !== tradeId ? (
              <button
                type="button"
                className="link-btn mono"
                onClick={() => navigate('trades', (attempt.trade as Trade).tradeId)}
              >
                {attempt.externalId}
              </button>
            ) : (
              <span className="mono">{attempt.externalId}</span>
            )}{' '}
            {attempt.trade ? (
              <>
                <StatusBadge status={attempt.trade.status} />
                {attempt.trade.errorCode !== null ? (
                  <span className="muted small"> {attempt.trade.errorCode}</span>
                ) : null}{' '}
                <Money cents={attempt.trade.price} />
              </>
            ) : (
              <span className="small neg">refused: {attempt.refusal?.code}, no trade</span>
            )}
          </li>
        ))}
      </ol>
      {next ? (
        <div className="next-buy">
          <p className="small">
            Next: <span className="mono">{next.externalId}</span>, the cheapest {next.market_hash_name}
            {next.phase ? ` (${next.phase})` : ''} at most {formatCents(next.maxPrice)} (the original&apos;s price), for
            the same recipient.{' '}
            {next.cheapest ? (
              <>
                Cheapest in the catalog now: <Money cents={next.cheapest.price} className="strong" />.
              </>
            ) : (
              <strong>No listing at or under {formatCents(next.maxPrice)} in the catalog now: nothing to buy.</strong>
            )}
          </p>
          <button
            type="button"
            className="btn primary sm"
            disabled={!next.cheapest}
            onClick={() => void openBuyNext({ tradeId })}
          >
            Buy the next one…
          </button>
        </div>
      ) : chain.unavailable ? (
        <p className="muted small">{chain.unavailable}</p>
      ) : null}
    </section>
  );
}
