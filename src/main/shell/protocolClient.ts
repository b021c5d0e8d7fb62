/**
 * Where the app registers itself as the `merchantdesk://` handler, and where a launch's command line holds a link.
 * The packages declare the scheme themselves (electron-builder's `protocols`: the .deb's .desktop file gets
 * `x-scheme-handler/merchantdesk`, the mac app's Info.plist a URL type); the app must do it only where no package
 * does: an AppImage (no installed .desktop of ours), and Windows, whose per-user registration a run from source
 * (`electron .`) needs as Electron's path plus the app's.
 */
import { resolve } from 'node:path';
import { DEEP_LINK_SCHEME } from '../../shared/deepLinks';

export interface LaunchEnvironment {
  platform: NodeJS.Platform;
  /** `process.defaultApp`: run from source by the electron binary (`electron .`), not packaged. */
  defaultApp: boolean;
  /** `$APPIMAGE`: the AppImage file this run was started from (set by the AppImage runtime). */
  appImage: string | undefined;
  execPath: string;
  argv: readonly string[];
}

/** `app.setAsDefaultProtocolClient`'s arguments after the scheme, or null: the package registers it (or nothing can). */
export type ProtocolRegistration = null | { path?: string; args?: string[] };

export function protocolRegistration(env: LaunchEnvironment): ProtocolRegistration {
  if (env.defaultApp) {
    // From source only Windows can point the scheme at `electron.exe <app dir>`; elsewhere the dev binary is no handler.
    const appDir = env.argv[1];
    return env.platform === 'win32' && appDir ? { path: env.execPath, args: [resolve(appDir)] } : null;
  }
  if (env.platform === 'win32') return {};
  if (env.platform === 'linux' && env.appImage) return {};
  // macOS: the Info.plist's URL type; a .deb: its .desktop file.
  return null;
}

/** The `merchantdesk:` link among a launch's arguments (the OS passes it as one), if any. */
export function linkInArgv(argv: readonly string[]): string | null {
  const prefix = `${DEEP_LINK_SCHEME}:`;
  return argv.find((arg) => arg.toLowerCase().startsWith(prefix)) ?? null;
}
