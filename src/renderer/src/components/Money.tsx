import { formatCents, formatSignedCents } from '../lib/format';

/** A price or balance: always formatCents, always tabular figures. */
export function Money({
  cents,
  className,
  signed = false,
}: {
  cents: number | null | undefined;
  className?: string;
  signed?: boolean;
}) {
  if (cents === null || cents === undefined) return <span className={`num muted ${className ?? ''}`}>—</span>;
  const text = signed ? formatSignedCents(cents) : formatCents(cents);
  const tone = signed ? (cents > 0 ? 'pos' : cents < 0 ? 'neg' : '') : '';
  return <span className={`num money ${tone} ${className ?? ''}`}>{text}</span>;
}
