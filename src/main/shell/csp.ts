/**
 * The renderer's Content-Security-Policy. It is in force twice: as the `<meta>`
 * policy of `src/renderer/index.html` (what a `file:` page is sure to get: Electron
 * does not promise `onHeadersReceived` for file: loads) and as a response header set
 * by main (`session.webRequest.onHeadersReceived`). Where both apply the browser
 * enforces both, so the stricter wins; they are the same policy but for
 * `frame-ancestors`, which a `<meta>` policy cannot carry.
 *
 * Nothing remote may run or be fetched: scripts, styles and fonts come from the
 * app bundle; the renderer talks to the engine over IPC only (`connect-src 'self'`;
 * in the browser build `'self'` also admits the web host's own WebSocket, same host
 * and port). The one remote exception is item images: `img` URLs are whatever the
 * marketplace's API returns, and the spec names no image host, so any https origin
 * (images are passive content; `connect-src` stays closed), plus the embedded demo
 * sandbox on loopback http. Never plain http from elsewhere.
 */
export const CSP_DIRECTIVES: readonly (readonly [string, readonly string[]])[] = [
  ['default-src', ["'none'"]],
  ['script-src', ["'self'"]],
  // React sets inline style attributes (virtualised rows, chart geometry).
  ['style-src', ["'self'", "'unsafe-inline'"]],
  ['img-src', ["'self'", 'data:', 'https:', 'http://127.0.0.1:*', 'http://localhost:*']],
  ['connect-src', ["'self'"]],
  ['font-src', ["'self'"]],
  ['base-uri', ["'none'"]],
  ['form-action', ["'none'"]],
  ['frame-ancestors', ["'none'"]],
];

export interface CspOptions {
  /**
   * `electron-vite dev` only: the dev server's origin (`http://localhost:5173`).
   * Its WebSocket is added to `connect-src` for hot reload. Never set in a built app.
   */
  devServerOrigin?: string | null;
}

/** The policy as one header value. */
export function contentSecurityPolicy(options: CspOptions = {}): string {
  const dev = options.devServerOrigin ? devSocketOrigin(options.devServerOrigin) : null;
  return CSP_DIRECTIVES.map(([name, sources]) => {
    const all = name === 'connect-src' && dev ? [...sources, dev] : sources;
    return `${name} ${all.join(' ')}`;
  }).join('; ');
}

/** Directives a `<meta http-equiv>` policy cannot deliver (browsers ignore them there, with a console warning). */
const HEADER_ONLY = new Set(['frame-ancestors', 'report-uri', 'sandbox']);

/**
 * The same policy for the renderer's `<meta http-equiv="Content-Security-Policy">`
 * (`src/renderer/index.html`, and so the built `out/renderer/index.html`): every
 * directive of the header but the header-only ones.
 */
export function metaContentSecurityPolicy(): string {
  return CSP_DIRECTIVES.filter(([name]) => !HEADER_ONLY.has(name))
    .map(([name, sources]) => `${name} ${sources.join(' ')}`)
    .join('; ');
}

/** `http://localhost:5173` → `ws://localhost:5173`; null for anything that is not a loopback http(s) origin. */
function devSocketOrigin(origin: string): string | null {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (!['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) return null;
  return `${url.protocol === 'https:' ? 'wss:' : 'ws:'}//${url.host}`;
}

/**
 * Response headers with our policy set, replacing any `Content-Security-Policy`
 * the response carried (header names compare case-insensitively).
 */
export function withCspHeader(
  headers: Record<string, string[] | string> | undefined,
  policy: string,
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() === 'content-security-policy') continue;
    out[name] = Array.isArray(value) ? value : [value];
  }
  out['Content-Security-Policy'] = [policy];
  return out;
}
