import { useEffect, useId, useState } from 'react';
import type { LookupKey, OrderLookupResult } from '../../../../../shared/ipc/models';
import { Money } from '../../../components/Money';
import { StatusBadge } from '../../../components/StatusBadge';
import { formatDateTime } from '../../../lib/format';
import { errorMessage } from '../../../lib/ipc';
import { lookupOrders } from '../../../state/actions/nextBuy';

const KEY_LABELS: Record<LookupKey, string> = {
  tradeId: 'trade id',
  externalId: 'order id',
  chain: 'next attempt of the order',
  offerId: 'offer id',
  partner: 'recipient (partner id)',
  name: 'item name',
};

type State =
  | { kind: 'idle' }
  | { kind: 'searching' }
  | { kind: 'done'; result: OrderLookupResult }
  | { kind: 'error'; message: string };

/**
 * Order look-up for support: one box finds trades by order id, trade id, trade URL or partner id, offer id or item
 * name in the local history (offline too). Choosing one opens its detail: the timeline and the order's chain.
 * Mounted in the look-up dialog (palette) and meant for the Operations screen.
 */
export function OrderLookup({
  onOpen,
  initialQuery = '',
}: {
  onOpen: (tradeId: string) => void;
  /** Looked up as soon as it is shown (a link to an order); remount (`key`) to look up another. */
  initialQuery?: string;
}) {
  const id = useId();
  const [query, setQuery] = useState(initialQuery);
  const [state, setState] = useState<State>(initialQuery ? { kind: 'searching' } : { kind: 'idle' });
  const search = async () => {
    setState({ kind: 'searching' });
    try {
      setState({ kind: 'done', result: await lookupOrders(query) });
    } catch (e) {
      setState({ kind: 'error', message: errorMessage(e) });
    }
  };
  useEffect(() => {
    if (!initialQuery) return;
    let shown = true;
    lookupOrders(initialQuery).then(
      (result) => shown && setState({ kind: 'done', result }),
      (e: unknown) => shown && setState({ kind: 'error', message: errorMessage(e) }),
    );
    return () => {
      shown = false;
    };
  }, [initialQuery]);
  return (
    <div className="order-lookup">
      <form
        className="order-lookup-form"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          void search();
        }}
      >
        <label htmlFor={`${id}-q`}>Order id, trade id, trade URL, partner or steam id, offer id or item name</label>
        <div className="order-lookup-row">
          <input
            id={`${id}-q`}
            data-autofocus
            type="search"
            spellCheck={false}
            autoComplete="off"
            value={query}
            aria-describedby={`${id}-status`}
            onChange={(e) => setQuery(e.target.value)}
          />
          <button type="submit" className="btn primary" disabled={state.kind === 'searching'}>
            Look up
          </button>
        </div>
      </form>
      <div id={`${id}-status`} role="status" className="order-lookup-status small">
        {state.kind === 'searching' ? 'Looking up…' : null}
        {state.kind === 'done'
          ? state.result.hits.length === 0
            ? `No trade in the local history matches “${state.result.query}” (searched by ${state.result.searched.map((k) => KEY_LABELS[k]).join(', ')}).`
            : `${state.result.hits.length} ${state.result.hits.length === 1 ? 'trade' : 'trades'}${state.result.truncated ? `: showing the newest ${state.result.limit}` : ''}.`
          : null}
      </div>
      {state.kind === 'error' ? (
        <div className="notice error" role="alert">
          {state.message}
        </div>
      ) : null}
      {state.kind === 'done' && state.result.hits.length > 0 ? (
        <ul className="order-lookup-results" aria-label="Trades found">
          {state.result.hits.map(({ trade, matchedBy }) => (
            <li key={trade.tradeId}>
              <button type="button" className="order-lookup-hit" onClick={() => onOpen(trade.tradeId)}>
                <span className="order-lookup-name">
                  <strong>{trade.market_hash_name}</strong>
                  <span className="muted small">by {KEY_LABELS[matchedBy]}</span>
                </span>
                <span className="mono small">{trade.externalId ?? trade.tradeId}</span>
                <StatusBadge status={trade.status} />
                <Money cents={trade.price} />
                <span className="muted small num">{formatDateTime(trade.createdAt)}</span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
