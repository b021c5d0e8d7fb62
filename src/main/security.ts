import { session, shell, type WebContents } from 'electron';
import { contentSecurityPolicy, withCspHeader } from './shell/csp';
import { isAllowedDownload, isAllowedExternalUrl, navigationVerdict, windowOpenVerdict } from './shell/urlRules';
import type { ShellContext } from './shellContext';

/** Session-wide: the CSP header, every permission refused, downloads only for the app's own exports. */
export function hardenSession(ctx: ShellContext): void {
  const { devUrl, log } = ctx;
  const policy = contentSecurityPolicy({ devServerOrigin: devUrl ? new URL(devUrl).origin : null });
  const ses = session.defaultSession;
  ses.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: withCspHeader(details.responseHeaders, policy) });
  });
  // Desktop notifications come from main; the page needs no permission at all.
  ses.setPermissionRequestHandler((_contents, permission, callback) => {
    log(`permission request refused: ${permission}`);
    callback(false);
  });
  ses.setPermissionCheckHandler(() => false);
  ses.setDevicePermissionHandler(() => false);
  ses.on('will-download', (event, item) => {
    if (isAllowedDownload(item.getURL())) return;
    log('download refused (not an export of the app)');
    event.preventDefault();
  });
}

/** Every web contents (there is one): no navigation away, no new windows, no webviews. */
export function hardenWebContents(ctx: ShellContext, contents: WebContents): void {
  const { rendererUrl, log } = ctx;
  contents.on('will-navigate', (event) => {
    const verdict = navigationVerdict(event.url, rendererUrl);
    if (verdict === 'allow') return;
    event.preventDefault();
    if (verdict === 'open-external') void openExternal(ctx, event.url);
    else log(`navigation refused: ${schemeOf(event.url)}`);
  });
  contents.on('will-redirect', (event) => {
    if (event.isMainFrame && navigationVerdict(event.url, rendererUrl) !== 'allow') {
      event.preventDefault();
      log(`redirect refused: ${schemeOf(event.url)}`);
    }
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (windowOpenVerdict(url) === 'open-external') void openExternal(ctx, url);
    else log(`window.open refused: ${schemeOf(url)}`);
    return { action: 'deny' };
  });
}

async function openExternal(ctx: ShellContext, url: string): Promise<void> {
  // Checked again at the last moment: nothing reaches the OS unless the rules allow it.
  if (!isAllowedExternalUrl(url)) return;
  try {
    await shell.openExternal(url, { activate: true });
  } catch (error) {
    ctx.log(`could not open a ${schemeOf(url)} link: ${(error as Error).message}`);
  }
}

/** For the log: the scheme only, never a full URL (it may carry a trade URL token). */
function schemeOf(url: string): string {
  const match = /^([a-z][a-z0-9+.-]*):/i.exec(url);
  return match ? `${match[1]?.toLowerCase()}: URL` : 'malformed URL';
}
