/** Money is integer USD cents everywhere. (No zod here: the renderer imports this module.) */
export type Cents = number;

const dollarFormat = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});

/** 123456 → "$1,234.56"; -500 → "-$5.00". */
export function formatCents(cents: Cents): string {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`cents must be a safe integer, got ${cents}`);
  // Integer division keeps the formatter away from binary-float rounding.
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const whole = Math.trunc(abs / 100);
  const rest = abs % 100;
  return sign + dollarFormat.format(whole).replace(/\.00$/, '') + '.' + String(rest).padStart(2, '0');
}

/** A change: "+$1.20", "-$0.16", "$0.00": the same minus as formatCents, a plus for a rise. */
export function formatSignedCents(cents: Cents): string {
  return cents > 0 ? `+${formatCents(cents)}` : formatCents(cents);
}

/** "12.3" → 1230, "$1,234.56" → 123456. Returns null for anything that is not a dollar amount with ≤ 2 decimals. */
export function parseDollarsToCents(text: string): Cents | null {
  const cleaned = text.trim().replace(/^\$/, '').replace(/,/g, '');
  const match = /^(-)?(\d{1,13})(?:\.(\d{1,2}))?$/.exec(cleaned);
  if (!match) return null;
  const [, minus, whole, fraction = ''] = match;
  const cents = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  return minus ? -cents : cents;
}
