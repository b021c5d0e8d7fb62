import { useId, useMemo, type CSSProperties } from 'react';
import { parseTradeUrl } from '../../../../shared/api/tradeUrl';
import { DateInput } from '../../components/DateInput';
import { STATUS_COLORS, STATUS_LABELS, FILTER_STATUSES } from '../../lib/status';
import { RECIPIENT_FILTER_ERROR, resetTradeFilters, setTradeFilters } from '../../state/actions/trades';
import { EMPTY_TRADE_FILTERS, recipientPartner } from '../../state/slices/trades';
import { useStore } from '../../state/store';

/** The longest ids the filters take: the IPC contract's limits (an order id is at most 128 characters in the API). */
export const MAX_TRADE_ID_FILTER_LENGTH = 128;
const MAX_ORDER_ID_FILTER_LENGTH = 128;

export function tradeFiltersActive(f: typeof EMPTY_TRADE_FILTERS): boolean {
  return (
    f.statuses.length > 0 ||
    f.from !== '' ||
    f.to !== '' ||
    f.externalId.trim() !== '' ||
    f.tradeId.trim() !== '' ||
    f.recipient.trim() !== '' ||
    f.webhookFailed ||
    f.errorCode !== null ||
    f.utcRange !== null
  );
}

/** The filter a failures board cell set: its outcome code and its UTC day or hour. */
function failureFilterText(f: typeof EMPTY_TRADE_FILTERS): string {
  const code = f.errorCode === null ? '' : f.errorCode === 0 ? 'No outcome code' : `Outcome ${f.errorCode}`;
  return [code, f.utcRange?.label ?? ''].filter(Boolean).join(' · ');
}

export function TradeFiltersBar() {
  const f = useStore((s) => s.trades.filters);
  return (
    <div className="filter-bar" role="group" aria-label="Trade filters">
      <div className="filter-group status-chips" role="group" aria-label="Status">
        {FILTER_STATUSES.map((status) => {
          const on = f.statuses.includes(status);
          return (
            <button
              key={status}
              type="button"
              className={`status-chip ${on ? 'on' : ''}`}
              style={{ '--status-color': STATUS_COLORS[status] } as CSSProperties}
              aria-pressed={on}
              onClick={() =>
                setTradeFilters({ statuses: on ? f.statuses.filter((x) => x !== status) : [...f.statuses, status] })
              }
            >
              <span className="status-dot" aria-hidden="true" />
              {STATUS_LABELS[status]}
            </button>
          );
        })}
      </div>
      <div className="filter-group" role="group" aria-label="Created between">
        <span className="filter-label">From</span>
        <DateInput
          label="From date"
          value={f.from}
          onChange={(day) => setTradeFilters({ from: day, utcRange: null })}
        />
        <span className="filter-label">to</span>
        <DateInput label="To date" value={f.to} onChange={(day) => setTradeFilters({ to: day, utcRange: null })} />
      </div>
      <input
        aria-label="Order ID"
        placeholder="Order ID (or its start)"
        title="Trades whose order ID starts with this"
        className="id-input"
        maxLength={MAX_ORDER_ID_FILTER_LENGTH}
        spellCheck={false}
        value={f.externalId}
        onChange={(e) => setTradeFilters({ externalId: e.target.value })}
      />
      <input
        aria-label="Trade ID"
        placeholder="Trade ID (or its start)"
        title="Trades whose ID starts with this, e.g. the shortened ID the table shows"
        className="id-input"
        maxLength={MAX_TRADE_ID_FILTER_LENGTH}
        spellCheck={false}
        value={f.tradeId}
        onChange={(e) => setTradeFilters({ tradeId: e.target.value })}
      />
      <RecipientFilter value={f.recipient} />
      <label className="check">
        <input
          type="checkbox"
          checked={f.webhookFailed}
          onChange={(e) => setTradeFilters({ webhookFailed: e.target.checked })}
        />{' '}
        Webhook failed
      </label>
      {f.errorCode !== null || f.utcRange !== null ? (
        <button
          type="button"
          className="btn ghost sm"
          onClick={() => setTradeFilters({ errorCode: null, utcRange: null })}
          aria-label={`Remove the failures board filter: ${failureFilterText(f)}`}
        >
          {failureFilterText(f)} ✕
        </button>
      ) : null}
      <button
        type="button"
        className="btn ghost sm"
        disabled={!tradeFiltersActive(f)}
        onClick={() => resetTradeFilters(EMPTY_TRADE_FILTERS)}
      >
        Clear
      </button>
    </div>
  );
}

/**
 * The recipient: a partner number typed or picked from the saved recipients (the list offers their labels), or a
 * trade URL pasted (its partner is kept; the token never leaves the field). Names the saved recipient it matches.
 */
function RecipientFilter({ value }: { value: string }) {
  const recipients = useStore((s) => s.settings.recipients);
  const order = useStore((s) => s.settings.recipientOrder);
  const listId = useId();
  const noteId = useId();
  const saved = useMemo(
    () =>
      order.flatMap((id) => {
        const r = recipients[id];
        const partner = r ? parseTradeUrl(r.tradeUrl)?.partner : undefined;
        return r && partner ? [{ partner, label: r.label }] : [];
      }),
    [recipients, order],
  );
  const partner = recipientPartner(value);
  const named = partner ? saved.find((r) => r.partner === partner)?.label : undefined;
  const note = partner === null ? RECIPIENT_FILTER_ERROR : named ? `Saved recipient: ${named}` : '';
  return (
    <span className="recipient-filter">
      <input
        aria-label="Recipient"
        aria-describedby={note ? noteId : undefined}
        aria-invalid={partner === null}
        placeholder="Recipient (partner or trade URL)"
        title="Trades to this recipient: the number after partner= in their trade URL, or the URL itself"
        className="id-input"
        list={listId}
        maxLength={512}
        spellCheck={false}
        autoComplete="off"
        value={value}
        onChange={(e) => setTradeFilters({ recipient: e.target.value })}
      />
      <datalist id={listId}>
        {saved.map((r) => (
          <option key={r.partner} value={r.partner} label={r.label} />
        ))}
      </datalist>
      {note ? (
        <span id={noteId} className={partner === null ? 'field-error' : 'field-hint'}>
          {note}
        </span>
      ) : null}
    </span>
  );
}
