import type { AlertRule, AppSettings, UpdateInstallResult, UpdateStatus } from '../../shared/ipc';
import { countActiveAutoBuyRules } from './quitGuard';

/**
 * Which update path applies to this copy of the app, and when an install may happen. Electron-free: the shell's
 * update part (../updates.ts) reads the inputs from Electron and acts on the answers.
 */

export interface UpdateEnvironment {
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  /**
   * `<resources>/package-type`, trimmed (electron-builder writes it into a .deb, .rpm or pacman package;
   * electron-updater picks its Linux updater by it); null when the file is absent (an AppImage).
   */
  packageType: string | null;
  isPackaged: boolean;
}

export type SelfUpdatingPackage = 'appimage' | 'nsis' | 'mac';

export type UpdatePlan =
  /** No checks at all. */
  | { mode: 'off'; reason: string }
  /** Check, download in the background, install on "Restart and install". */
  | { mode: 'self-update'; package: SelfUpdatingPackage }
  /** Check only: a newer version is announced with why this copy cannot install it itself. */
  | { mode: 'notify'; package: 'deb' | 'rpm' | 'pacman' | 'appimage'; reason: string };

/** AppImageLauncher's FUSE mount (`/run/user/<uid>/appimagelauncherfs/0001.AppImage`): read-only, not the real file. */
const LAUNCHER_MOUNT = /(^|\/)appimagelauncherfs(\/|$)/;

const PACKAGE_MANAGER = 'update with your package manager';

export function updatePlan(input: UpdateEnvironment): UpdatePlan {
  if (!input.isPackaged)
    return { mode: 'off', reason: 'Updates are checked by the installed app only (a development build).' };
  if (input.platform === 'win32') return { mode: 'self-update', package: 'nsis' };
  if (input.platform === 'darwin') return { mode: 'self-update', package: 'mac' };
  if (input.platform !== 'linux') return { mode: 'off', reason: `No updates are published for ${input.platform}.` };
  const type = input.packageType;
  if (type === 'deb' || type === 'rpm' || type === 'pacman') {
    const how = type === 'deb' ? 'apt' : type === 'rpm' ? 'dnf' : 'pacman';
    return {
      mode: 'notify',
      package: type,
      reason: `Installed from a .${type === 'pacman' ? 'pkg.tar' : type} package: ${PACKAGE_MANAGER} (${how}).`,
    };
  }
  return appImagePlan(input.env['APPIMAGE']);
}

function appImagePlan(appImage: string | undefined): UpdatePlan {
  const download = 'download the new AppImage from the release page and replace this one.';
  if (!appImage) {
    return {
      mode: 'notify',
      package: 'appimage',
      reason: `This copy was not started as an AppImage ($APPIMAGE is not set), so it cannot replace itself: ${download}`,
    };
  }
  if (LAUNCHER_MOUNT.test(appImage)) {
    return {
      mode: 'notify',
      package: 'appimage',
      reason:
        'This AppImage runs from AppImageLauncher’s read-only mount, so it cannot replace itself: download the new ' +
        'AppImage and open it to let AppImageLauncher integrate it.',
    };
  }
  if (!appImage.startsWith('/') || appImage.includes('\0')) {
    return {
      mode: 'notify',
      package: 'appimage',
      reason: `This AppImage’s location ($APPIMAGE) is not an absolute path, so it cannot replace itself: ${download}`,
    };
  }
  return { mode: 'self-update', package: 'appimage' };
}

export interface InstallContext {
  status: UpdateStatus;
  /** Buys sent and not answered yet (the engine's `buysInFlight()`). */
  buysInFlight: number;
  /** Auto-buy rules that would buy right now (armedAutoBuyRules); null: not known (the rules could not be read). */
  autoBuyRules: number | null;
  /** The merchant said yes to installing with auto-buy armed. */
  confirmed: boolean;
}

/** Whether "Restart and install" installs now, asks first, or is refused (and why). */
export function installDecision(input: InstallContext): UpdateInstallResult {
  const { status } = input;
  if (status.state === 'manual') return { outcome: 'refused', message: status.reason };
  if (status.state !== 'ready') return { outcome: 'refused', message: 'No update is downloaded and ready to install.' };
  if (input.buysInFlight > 0) {
    const buys = input.buysInFlight === 1 ? 'A buy is' : `${input.buysInFlight} buys are`;
    return {
      outcome: 'refused',
      message: `${buys} waiting for the marketplace’s answer: install once ${input.buysInFlight === 1 ? 'it has' : 'they have'} one.`,
    };
  }
  if (input.autoBuyRules !== 0 && !input.confirmed) {
    const rules =
      input.autoBuyRules === null
        ? 'Auto-buy may be armed (its rules could not be read).'
        : `${input.autoBuyRules === 1 ? '1 auto-buy rule is' : `${input.autoBuyRules} auto-buy rules are`} armed.`;
    return {
      outcome: 'confirm',
      message: `${rules} Restarting stops auto-buy until Merchant Desk is back. Install version ${status.version} now?`,
    };
  }
  return { outcome: 'installing', message: `Restarting into version ${status.version}…` };
}

/**
 * Auto-buy rules that would buy right now (a dry run buys nothing): none while stop-all is on or alerts are paused;
 * null when the rules are unknown.
 */
export function armedAutoBuyRules(
  rules: readonly Pick<AlertRule, 'enabled' | 'autoBuy'>[] | null,
  settings: Pick<AppSettings, 'alertsPaused' | 'autoBuyStopped'>,
): number | null {
  if (settings.autoBuyStopped === true) return 0;
  if (rules === null) return null;
  return countActiveAutoBuyRules(
    rules.filter((rule) => rule.autoBuy.dryRun !== true),
    settings.alertsPaused,
  );
}
