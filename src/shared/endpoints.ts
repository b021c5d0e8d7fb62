/**
 * Two URLs name the same endpoint: compared as parsed (host case, default port), a trailing slash aside.
 * The stored API key goes only to the saved account's own endpoints, so the engine and Settings ask the same question.
 */
export function sameEndpoint(a: string, b: string): boolean {
  const normal = (url: string) => new URL(url).href.replace(/\/+$/, '');
  try {
    return normal(a.trim()) === normal(b.trim());
  } catch {
    return false;
  }
}
