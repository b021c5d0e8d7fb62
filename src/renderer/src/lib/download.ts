/** Keep a file name to safe characters and make sure it ends in `.csv`. */
export function safeCsvFilename(name: string, fallback = 'export'): string {
  const base = Array.from(name, (ch) => (ch.charCodeAt(0) < 32 || '/\\?%*:|"<>'.includes(ch) ? '-' : ch))
    .join('')
    .replace(/\s+/g, '-')
    .replace(/^\.+/, '')
    .slice(0, 120);
  const withBase = base === '' || base === '.csv' ? fallback : base;
  return /\.csv$/i.test(withBase) ? withBase : `${withBase}.csv`;
}

/** Save a Blob as a file through a link. */
export function downloadBlob(filename: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Save a small text (a board's CSV made by the engine) as a file. */
export function downloadText(filename: string, text: string, type = 'text/csv;charset=utf-8'): void {
  downloadBlob(filename, new Blob([text], { type }));
}
