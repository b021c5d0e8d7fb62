type Field = string | number | null | undefined;

/** One RFC 4180 field: quoted when it holds a comma, quote or line break, quotes doubled. */
export function csvField(value: Field): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const text = String(value);
  // A leading =, +, - or @ would run as a formula in a spreadsheet, and so would one behind a
  // leading tab or carriage return, which spreadsheets drop; a plain decimal (centsToDecimal's
  // "-15.00") cannot, and must stay a number.
  const safe = /^[=+\-@\t\r]/.test(text) && !/^-\d+(\.\d+)?$/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One CSV record with its CRLF. */
export function csvLine(row: readonly Field[]): string {
  return `${row.map(csvField).join(',')}\r\n`;
}

/** RFC 4180 CSV: fields with a comma, quote or line break are quoted, quotes doubled. */
export function toCsv(header: readonly string[], rows: readonly (readonly Field[])[]): string {
  return [header, ...rows].map(csvLine).join('');
}

/** Cents as a plain decimal for spreadsheets: 123456 → "1234.56". */
export function centsToDecimal(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
