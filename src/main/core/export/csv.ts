/** RFC 4180 CSV: fields with a comma, quote or line break are quoted, quotes doubled. */
export function toCsv(
  header: readonly string[],
  rows: readonly (readonly (string | number | null | undefined)[])[],
): string {
  const field = (value: string | number | null | undefined): string => {
    if (value === null || value === undefined) return '';
    const text = String(value);
    // A leading =, +, - or @ would run as a formula in a spreadsheet, and so would one behind a
    // leading tab or carriage return, which spreadsheets drop; a plain decimal (centsToDecimal's
    // "-15.00") cannot, and must stay a number.
    const safe =
      /^[=+\-@\t\r]/.test(text) && typeof value === 'string' && !/^-\d+(\.\d+)?$/.test(text) ? `'${text}` : text;
    return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  return [header, ...rows].map((row) => row.map(field).join(',')).join('\r\n') + '\r\n';
}

/** Cents as a plain decimal for spreadsheets: 123456 → "1234.56". */
export function centsToDecimal(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
