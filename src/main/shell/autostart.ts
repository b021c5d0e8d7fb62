import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';

/**
 * Start with the session, minimised to the tray. Windows and macOS have the OS's login item
 * (`app.setLoginItemSettings`, which does nothing on Linux); Linux desktops start what the XDG autostart
 * folder lists, so there the app writes `merchant-desk.desktop` itself, running it with `--hidden`.
 */

export const HIDDEN_FLAG = '--hidden';
export const AUTOSTART_FILE_NAME = 'merchant-desk.desktop';

/** How this copy of the app was started: what a login has to run to start it again. */
export interface LaunchInfo {
  /** process.execPath: for an AppImage, the binary inside its temporary mount (gone once it exits). */
  execPath: string;
  isPackaged: boolean;
  /** app.getAppPath(): the app's folder when Electron runs it unpackaged (`electron <folder>`). */
  appPath: string;
  /** $APPIMAGE: the AppImage file itself, set by its runtime. */
  appImage?: string | undefined;
}

/** The program and arguments that start this copy again (without `--hidden`). */
export function launchCommand(launch: LaunchInfo): string[] {
  if (!launch.isPackaged) return [launch.execPath, launch.appPath];
  if (launch.appImage && isAbsolute(launch.appImage)) return [launch.appImage];
  return [launch.execPath];
}

/** `$XDG_CONFIG_HOME/autostart/merchant-desk.desktop`; the XDG spec ignores a relative XDG_CONFIG_HOME. */
export function autostartFile(env: { XDG_CONFIG_HOME?: string | undefined }, homeDir: string): string {
  const configHome = env.XDG_CONFIG_HOME;
  const base = configHome && isAbsolute(configHome) ? configHome : join(homeDir, '.config');
  return join(base, 'autostart', AUTOSTART_FILE_NAME);
}

export class AutostartError extends Error {
  override readonly name = 'AutostartError';
}

// Desktop Entry spec, "The Exec key": an argument with one of these is quoted whole.
const RESERVED = /[\s"'\\><~|&;$*?#()`]/;

/**
 * One Exec argument: quoted when it holds a reserved character (`"`, `` ` ``, `$` and `\` escaped inside the
 * quotes), `%` doubled (field codes), then the string type's own escape of `\` — applied first by readers, so a
 * literal backslash in a quoted argument is four in the file.
 */
function execArgument(arg: string): string {
  const quoted = RESERVED.test(arg) ? `"${arg.replace(/["`$\\]/g, (c) => `\\${c}`)}"` : arg;
  return quoted.replace(/%/g, '%%').replace(/\\/g, '\\\\');
}

/** The Exec value that runs `argv` exactly. Refuses what a desktop file cannot carry. */
export function desktopExec(argv: readonly string[]): string {
  const [program] = argv;
  if (!program) throw new AutostartError('There is no program to start.');
  for (const arg of argv) {
    // eslint-disable-next-line no-control-regex
    if (arg === '' || /[\u0000-\u001f\u007f]/.test(arg))
      throw new AutostartError(`The path ${JSON.stringify(arg)} cannot go in an autostart entry (control character).`);
  }
  if (program.includes('='))
    throw new AutostartError(`The program path ${program} cannot go in an autostart entry: it contains "=".`);
  return argv.map(execArgument).join(' ');
}

/** The inverse of desktopExec (what a desktop reads from the file); null when the value is not well formed. */
export function parseDesktopExec(value: string): string[] | null {
  // The string type's escapes first (\\, \s, \n, \t, \r), then the Exec quoting.
  let unescaped = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i] as string;
    if (c !== '\\') {
      unescaped += c;
      continue;
    }
    const next = value[++i];
    const map: Record<string, string> = { '\\': '\\', s: ' ', n: '\n', t: '\t', r: '\r' };
    if (next === undefined || !(next in map)) return null;
    unescaped += map[next];
  }
  const args: string[] = [];
  let current: string | null = null;
  for (let i = 0; i < unescaped.length; i++) {
    const c = unescaped[i] as string;
    if (c === ' ') {
      if (current !== null) args.push(current);
      current = null;
    } else if (c === '"') {
      current ??= '';
      for (i++; i < unescaped.length && unescaped[i] !== '"'; i++) {
        if (unescaped[i] === '\\') i++;
        if (i >= unescaped.length) return null;
        current += unescaped[i];
      }
      if (i >= unescaped.length) return null;
    } else current = (current ?? '') + c;
  }
  if (current !== null) args.push(current);
  return args.map((arg) => arg.replace(/%%/g, '%'));
}

/** The icon's name in the theme (the deb installs it as the package's name; a missing one shows a generic icon). */
const ICON_NAME = 'merchant-desk';

/** The autostart entry's text. */
export function autostartEntry(argv: readonly string[]): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=Merchant Desk',
    'Comment=Start Merchant Desk in the tray when you log in',
    `Exec=${desktopExec([...argv, HIDDEN_FLAG])}`,
    `Icon=${ICON_NAME}`,
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

/** What the autostart folder holds for the app: nothing, an entry that starts this copy, or another's. */
export interface AutostartOnDisk {
  present: boolean;
  /**
   * The entry runs exactly `argv --hidden` and is not switched off by the desktop (`Hidden=true`, or
   * `X-GNOME-Autostart-enabled=false` from a startup-applications tool). False: a stale path (the AppImage moved).
   */
  current: boolean;
}

export function readAutostart(file: string, argv: readonly string[]): AutostartOnDisk {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { present: false, current: false };
    throw new AutostartError(`Could not read ${file}: ${(error as Error).message}`);
  }
  const exec = /^Exec=(.*)$/m.exec(text)?.[1];
  const parsed = exec === undefined ? null : parseDesktopExec(exec);
  const wanted = [...argv, HIDDEN_FLAG];
  const switchedOff = /^Hidden=true\s*$/m.test(text) || /^X-GNOME-Autostart-enabled=false\s*$/m.test(text);
  return {
    present: true,
    current:
      !switchedOff && parsed !== null && parsed.length === wanted.length && parsed.every((arg, i) => arg === wanted[i]),
  };
}

/** What applying the switch left on disk: `on` is the truth to show, `error` what went wrong. */
export interface AutostartResult {
  on: boolean;
  /** The file was written or removed (false: it already was as asked). */
  changed: boolean;
  error: string | null;
}

/**
 * Makes the autostart folder match the switch: an entry that starts this copy hidden (written through a temp
 * file and a rename; rewritten when it points elsewhere), or none. Never throws: a failure leaves the file as it
 * was, and the result says what that is.
 */
export function applyXdgAutostart(file: string, enabled: boolean, argv: () => readonly string[]): AutostartResult {
  let before: AutostartOnDisk = { present: false, current: false };
  try {
    if (!enabled) {
      before = readAutostart(file, []);
      if (!before.present) return { on: false, changed: false, error: null };
      rmSync(file);
      return { on: false, changed: true, error: null };
    }
    const command = argv();
    before = readAutostart(file, command);
    if (before.current) return { on: true, changed: false, error: null };
    const content = autostartEntry(command);
    mkdirSync(dirname(file), { recursive: true });
    const temp = `${file}.${process.pid}.tmp`;
    try {
      writeFileSync(temp, content, { mode: 0o644 });
      renameSync(temp, file);
    } catch (error) {
      rmSync(temp, { force: true, recursive: true });
      throw error;
    }
    return { on: true, changed: true, error: null };
  } catch (error) {
    const what = enabled ? 'turn on' : 'turn off';
    const why = error instanceof AutostartError ? error.message : `${file}: ${(error as Error).message}`;
    return { on: before.present, changed: false, error: `Could not ${what} starting with the session. ${why}` };
  }
}

/** Windows and macOS: what to hand `app.setLoginItemSettings` (macOS: hidden by the OS, as it ignores args). */
export function loginItemSettings(
  platform: NodeJS.Platform,
  enabled: boolean,
): { openAtLogin: boolean; args: string[]; openAsHidden?: boolean } {
  return platform === 'darwin'
    ? { openAtLogin: enabled, args: [HIDDEN_FLAG], openAsHidden: true }
    : { openAtLogin: enabled, args: [HIDDEN_FLAG] };
}

/** Whether this platform starts the app with a login item (else an XDG autostart entry). */
export function usesLoginItem(platform: NodeJS.Platform): boolean {
  return platform === 'win32' || platform === 'darwin';
}

/**
 * Starts with no window (to the tray) when launched with `--hidden` (or by macOS as a hidden login item), and only
 * if there is a tray to come back from: a desktop without a status area shows the window.
 */
export function startsHidden(argv: readonly string[], openedAsHidden: boolean, trayExists: boolean): boolean {
  return trayExists && (openedAsHidden || argv.includes(HIDDEN_FLAG));
}

/** The setting as it should read after applying: what is really on disk. null: it already says so. */
export function honestSetting(wanted: boolean, result: Pick<AutostartResult, 'on'>): boolean | null {
  return result.on === wanted ? null : result.on;
}
