/**
 * Response headers as fetch (`Headers`) or node:http / a worker message
 * (a plain object, possibly with array values) gives them.
 */
export type HeaderSource = Headers | Readonly<Record<string, string | readonly string[] | number | undefined>>;

/** The first value of a header, looked up case-insensitively; null when absent. */
export function headerValue(headers: HeaderSource, name: string): string | null {
  if (headers instanceof Headers) return headers.get(name);
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    if (Array.isArray(value)) return value[0] ?? null;
    return String(value);
  }
  return null;
}
