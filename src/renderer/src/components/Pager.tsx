import { formatInt } from '../lib/format';

/** "1–50 of 1,234" with previous / next and a page size (when there is a choice); a capped total reads "of 2,000+". */
export function Pager({
  offset,
  limit,
  total,
  capped = false,
  sizes,
  onChange,
  busy,
  label = 'Pages',
}: {
  offset: number;
  limit: number;
  total: number;
  /** `total` is a floor: at least that many match, and the pages reach that far. */
  capped?: boolean;
  sizes: readonly number[];
  onChange: (offset: number, limit: number) => void;
  busy?: boolean;
  /** The navigation landmark's name: another one on the same screen needs its own. */
  label?: string;
}) {
  const from = total === 0 ? 0 : offset + 1;
  const to = Math.min(total, offset + limit);
  return (
    <div className="pager" role="navigation" aria-label={label}>
      <span className="num muted" aria-live="polite">
        {formatInt(from)}–{formatInt(to)} of {formatInt(total)}
        {capped ? '+' : ''}
      </span>
      {/* The visible words are the accessible name (speech input users say what they see). */}
      <button
        type="button"
        className="btn sm"
        disabled={busy || offset === 0}
        onClick={() => onChange(Math.max(0, offset - limit), limit)}
      >
        <span aria-hidden="true">‹</span> Previous page
      </button>
      <button
        type="button"
        className="btn sm"
        disabled={busy || offset + limit >= total}
        onClick={() => onChange(offset + limit, limit)}
      >
        Next page <span aria-hidden="true">›</span>
      </button>
      {sizes.length > 1 ? (
        <label className="pager-size">
          <span className="muted">Rows</span>
          <select aria-label="Rows per page" value={limit} onChange={(e) => onChange(0, Number(e.target.value))}>
            {sizes.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      ) : null}
    </div>
  );
}
