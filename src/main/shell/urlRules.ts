/**
 * Which URLs leave the app (opened by the OS with `shell.openExternal`) and
 * which navigations stay inside it. Everything not explicitly allowed is refused:
 * `file:`, `javascript:`, `data:`, `blob:`, custom schemes, and every `steam://`
 * command but the CS2 in-game inspect link.
 */

/** Longest URL we hand to the OS. */
export const MAX_EXTERNAL_URL_LENGTH = 2048;

/**
 * A CS2 inspect link: `steam://rungame/730/<17-digit id>/+csgo_econ_action_preview S<owner>A<asset>D<d>`
 * (or `M<listing>` for a market listing), the space written as `%20` or as is.
 */
export const INSPECT_LINK_PATTERN =
  /^steam:\/\/rungame\/730\/\d{17}\/\+csgo_econ_action_preview(?:%20| )(?:S\d{17}|M\d{1,20})A\d{1,20}D\d{1,20}$/;

export function isInspectLink(url: string): boolean {
  return url.length <= MAX_EXTERNAL_URL_LENGTH && INSPECT_LINK_PATTERN.test(url);
}

/** Allowed for `shell.openExternal`: a well-formed http(s) URL with a host and no credentials, or an inspect link. */
export function isAllowedExternalUrl(url: unknown): url is string {
  if (typeof url !== 'string' || url.length === 0 || url.length > MAX_EXTERNAL_URL_LENGTH) return false;
  if (/^steam:/i.test(url)) return isInspectLink(url);
  // Control characters and whitespace never belong in a URL we pass to the OS
  // (the URL parser would silently strip some of them).
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f]/.test(url)) return false;
  // Spelled out in full (`https:example.com` parses, but the OS may read it otherwise).
  if (!/^https?:\/\/[^/]/i.test(url)) return false;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return false;
  if (parsed.hostname === '') return false;
  // `https://user:pass@host` hides the real host from the reader.
  if (parsed.username !== '' || parsed.password !== '') return false;
  return true;
}

/**
 * The file a `file:` URL names, comparable across encoders (Node's pathToFileURL
 * and Chromium escape different characters): host plus the decoded path,
 * lower-cased for a Windows drive path (case-insensitive file system).
 */
function fileDocumentOf(url: URL): string | null {
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    return null;
  }
  if (/^\/[A-Za-z]:\//.test(path)) path = path.toLowerCase();
  return `${url.host.toLowerCase()}|${path}`;
}

function parse(url: unknown): URL | null {
  if (typeof url !== 'string' || url.length === 0) return null;
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/**
 * Whether `url` is the app itself: for a `file:` renderer the same document (any
 * query or fragment: the UI routes by `#/…`); for the dev server its origin.
 */
export function isAppNavigation(url: unknown, rendererUrl: string): boolean {
  const target = parse(url);
  const app = parse(rendererUrl);
  if (!target || !app) return false;
  if (app.protocol === 'file:') {
    const doc = fileDocumentOf(app);
    return target.protocol === 'file:' && doc !== null && fileDocumentOf(target) === doc;
  }
  if (app.protocol === 'http:' || app.protocol === 'https:') return target.origin === app.origin;
  return false;
}

/** What to do with a navigation or window request the renderer started. */
export type NavigationVerdict = 'allow' | 'open-external' | 'deny';

/** `will-navigate`: the app stays; allowed external links go to the OS; the rest is dropped. */
export function navigationVerdict(url: unknown, rendererUrl: string): NavigationVerdict {
  if (isAppNavigation(url, rendererUrl)) return 'allow';
  return isAllowedExternalUrl(url) ? 'open-external' : 'deny';
}

/**
 * `will-download`: only the renderer's own exports (a Blob link it made) may be
 * saved; the user still picks the place in the save dialog.
 */
export function isAllowedDownload(url: unknown): boolean {
  return typeof url === 'string' && url.startsWith('blob:');
}

/** `setWindowOpenHandler`: the app never opens a second window; allowed links go to the OS. */
export function windowOpenVerdict(url: unknown): Exclude<NavigationVerdict, 'allow'> {
  return isAllowedExternalUrl(url) ? 'open-external' : 'deny';
}
