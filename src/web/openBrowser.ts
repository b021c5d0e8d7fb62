// Opening the user's browser on the web host. A browser's command line is readable by every local
// user (`ps`) for as long as it runs, so it gets a one-time link (`WebHost.openUrl()`), never the
// token. Its environment is the desktop session's, not ours: no MERCHANT_API_KEY, no web token.
import { spawn } from 'node:child_process';

/** What a browser and its launcher need of the environment: display, session bus, locale, paths, proxies. */
const PASSED_NAMES = [
  /^(PATH|HOME|USER|LOGNAME|SHELL|LANG|LANGUAGE|TZ|TMPDIR|TEMP|TMP)$/i,
  /^LC_[A-Z]+$/,
  /^(DISPLAY|WAYLAND_DISPLAY|XAUTHORITY|DBUS_SESSION_BUS_ADDRESS|DESKTOP_SESSION|BROWSER)$/,
  /^XDG_[A-Z_]+$/,
  /^(GNOME_DESKTOP_SESSION_ID|KDE_FULL_SESSION|KDE_SESSION_VERSION)$/,
  /^(HTTP|HTTPS|NO|ALL)_PROXY$/i,
  // macOS
  /^__CF_USER_TEXT_ENCODING$/,
  // Windows (names there ignore case)
  /^(SYSTEMROOT|SYSTEMDRIVE|WINDIR|COMSPEC|PATHEXT|USERPROFILE|USERNAME|USERDOMAIN|HOMEDRIVE|HOMEPATH)$/i,
  /^(APPDATA|LOCALAPPDATA|PROGRAMDATA|PROGRAMFILES|PROGRAMFILES\(X86\)|COMMONPROGRAMFILES)$/i,
];

/** The variables of `env` a browser gets: an allow-list, so a secret under any name stays behind. */
export function browserEnvironment(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const passed: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && PASSED_NAMES.some((pattern) => pattern.test(name))) passed[name] = value;
  }
  return passed;
}

export function browserCommand(url: string, platform: NodeJS.Platform): [string, string[]] {
  if (platform === 'darwin') return ['open', [url]];
  if (platform === 'win32') return ['rundll32', ['url.dll,FileProtocolHandler', url]];
  return ['xdg-open', [url]];
}

export interface OpenBrowserOptions {
  env?: Readonly<Record<string, string | undefined>>;
  platform?: NodeJS.Platform;
  log?: (line: string) => void;
}

/** Opens `url` in the default browser, best effort (a Linux machine without a display simply skips it). */
export function openBrowser(url: string, options: OpenBrowserOptions = {}): void {
  const { env = process.env, platform = process.platform, log = () => {} } = options;
  if (platform === 'linux' && !env['DISPLAY'] && !env['WAYLAND_DISPLAY']) return;
  const [command, args] = browserCommand(url, platform);
  const failed = () => log('web: could not open a browser; open the URL above yourself.');
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true, env: browserEnvironment(env) });
    child.on('error', failed);
    child.unref();
  } catch {
    failed();
  }
}
