import { useRef, useState } from 'react';
import { Icon } from './Icon';

/** A calendar day as the tables show dates: `YYYY-MM-DD`, and a real date. */
export function isIsoDay(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const [, y, m, d] = match.map(Number) as [number, number, number, number];
  const date = new Date(y, m - 1, d);
  return date.getFullYear() === y && date.getMonth() === m - 1 && date.getDate() === d;
}

/**
 * A day typed as YYYY-MM-DD (the browser's own date field shows the OS locale, e.g.
 * mm/dd/yyyy, while every table here is ISO), with the native calendar one click away.
 * `value` is '' or a valid day; a half-typed or invalid day stays in the field, marked.
 */
export function DateInput({
  label,
  value,
  onChange,
}: {
  label: string;
  value: string;
  onChange: (day: string) => void;
}) {
  const [draft, setDraft] = useState<string | null>(null);
  // A new value from outside (Clear): any half-typed text goes.
  const [seen, setSeen] = useState(value);
  if (seen !== value) {
    setSeen(value);
    setDraft(null);
  }
  const picker = useRef<HTMLInputElement>(null);
  const shown = draft ?? value;
  const invalid = draft !== null && draft !== '' && !isIsoDay(draft);
  const commit = (text: string) => {
    const t = text.trim();
    if (t === '' || isIsoDay(t)) {
      setDraft(null);
      if (t !== value) onChange(t);
    } else setDraft(text);
  };
  return (
    <span className={`date-input ${invalid ? 'bad' : ''}`}>
      <input
        aria-label={label}
        inputMode="numeric"
        placeholder="YYYY-MM-DD"
        maxLength={10}
        spellCheck={false}
        autoComplete="off"
        value={shown}
        aria-invalid={invalid ? true : undefined}
        title={invalid ? 'A day as YYYY-MM-DD, e.g. 2026-03-01' : undefined}
        onChange={(e) => commit(e.target.value)}
      />
      <button
        type="button"
        className="icon-btn xs"
        aria-label={`Pick ${label.toLowerCase()} from a calendar`}
        tabIndex={-1}
        onClick={() => {
          const el = picker.current;
          if (!el) return;
          try {
            el.showPicker();
          } catch {
            el.focus();
          }
        }}
      >
        <Icon name="calendar" size={13} />
      </button>
      <input
        ref={picker}
        type="date"
        className="date-picker-proxy"
        tabIndex={-1}
        aria-hidden="true"
        value={isIsoDay(shown) ? shown : ''}
        onChange={(e) => commit(e.target.value)}
      />
    </span>
  );
}
