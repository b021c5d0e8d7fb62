import type { UpdateInstallResult, UpdateStatus } from '../../shared/ipc';
import { installDecision, type InstallContext, type UpdatePlan } from './updatePolicy';
import { IDLE, nextUpdateStatus, type UpdaterEvent } from './updateState';

/** What the flow needs of electron-updater's AppUpdater (its `autoUpdater`, or an AppImageUpdater in the tests). */
export interface Updater {
  autoDownload: boolean;
  autoInstallOnAppQuit: boolean;
  forceDevUpdateConfig: boolean;
  logger: { info(message?: unknown): void; warn(message?: unknown): void; error(message?: unknown): void } | null;
  on(event: 'checking-for-update' | 'update-not-available', listener: () => void): unknown;
  on(event: 'update-available' | 'update-downloaded', listener: (info: ReleaseInfo) => void): unknown;
  on(event: 'download-progress', listener: (progress: DownloadProgress) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'appimage-filename-updated', listener: (path: string) => void): unknown;
  checkForUpdates(): Promise<{ downloadPromise?: Promise<unknown> | null } | null>;
  quitAndInstall(isSilent?: boolean, isForceRunAfter?: boolean): void;
}

export interface ReleaseInfo {
  version: string;
  releaseNotes?: string | { version: string; note: string | null }[] | null;
}

export interface DownloadProgress {
  percent: number;
  transferred: number;
  total: number;
}

export type CheckingPlan = Exclude<UpdatePlan, { mode: 'off' }>;

const MAX_NOTES = 4_000;

export const INSTALL_FAILED =
  'The update could not be installed (the log says why); it stays downloaded: try again, or install it by hand.';

/** Release notes as plain text (a feed may carry HTML), several versions' notes one after the other. */
export function releaseNotesText(notes: ReleaseInfo['releaseNotes']): string | null {
  const raw =
    typeof notes === 'string'
      ? notes
      : Array.isArray(notes)
        ? notes.map((n) => `${n.version}: ${n.note ?? ''}`).join('\n')
        : '';
  const text = raw
    .replace(/<br\s*\/?>|<\/p>|<\/li>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (text === '') return null;
  return text.length > MAX_NOTES ? `${text.slice(0, MAX_NOTES - 1)}…` : text;
}

/** Log lines name a URL by its origin only (the shell's rule for its log). */
function originsOnly(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>)]+/gi, (url) => {
    try {
      const parsed = new URL(url);
      return parsed.origin === 'null' ? `${parsed.protocol}…` : `${parsed.origin}/…`;
    } catch {
      return '(a URL)';
    }
  });
}

/**
 * One updater bound to the status the status bar shows: its events mapped to UpdateStatus (updateState.ts),
 * downloads in the background only when the plan self-updates, never an install on quit, and an install only
 * through installDecision.
 */
export class UpdateFlow {
  private status: UpdateStatus = IDLE;
  /** Where an installed AppImage went when its file name carries the version (electron-updater renames it). */
  private movedAppImage: string | null = null;
  /** Set while quitAndInstall runs: an `error` then is the install's. */
  private installFailure: { failed: boolean } | null = null;

  constructor(
    private readonly updater: Updater,
    private readonly plan: CheckingPlan,
    private readonly hooks: { changed(status: UpdateStatus): void; log(line: string): void },
  ) {
    updater.autoDownload = plan.mode === 'self-update';
    updater.autoInstallOnAppQuit = false;
    // electron-updater's AppImage updater does not even check without $APPIMAGE; a plan that only announces
    // a version (and never downloads or installs) lifts that test, and only that one.
    if (plan.mode === 'notify') updater.forceDevUpdateConfig = true;
    const log = (level: string) => (message?: unknown) =>
      hooks.log(`update ${level}: ${originsOnly(String(message)).split('\n')[0] ?? ''}`);
    updater.logger = { info: () => {}, warn: log('warning'), error: log('error') };
    updater.on('checking-for-update', () => this.apply({ type: 'checking' }));
    updater.on('update-not-available', () => this.apply({ type: 'not-available' }));
    updater.on('update-available', (info) =>
      this.apply({ type: 'available', version: info.version, notes: releaseNotesText(info.releaseNotes) }),
    );
    updater.on('download-progress', (p) =>
      this.apply({ type: 'progress', percent: p.percent, transferred: p.transferred, total: p.total }),
    );
    updater.on('update-downloaded', (info) =>
      this.apply({ type: 'downloaded', version: info.version, notes: releaseNotesText(info.releaseNotes) }),
    );
    updater.on('error', (error) => {
      if (this.installFailure) this.installFailure.failed = true;
      this.apply({ type: 'error', error });
    });
    updater.on('appimage-filename-updated', (path) => (this.movedAppImage = path));
  }

  /** The AppImage to start after an install: the new file's path when it was renamed, else the same path. */
  relaunchAppImage(current: string | undefined): string | null {
    return this.movedAppImage ?? current ?? null;
  }

  get current(): UpdateStatus {
    return this.status;
  }

  /**
   * One check, and the download it starts; settles when both are done. Failures arrive as the updater's
   * `error` event (the status says them), so this never rejects.
   */
  async check(): Promise<void> {
    try {
      const result = await this.updater.checkForUpdates();
      await result?.downloadPromise;
    } catch {
      // Already reported through the `error` event.
    }
  }

  /** "Restart and install": installs only when installDecision says so. */
  install(context: Omit<InstallContext, 'status'>): UpdateInstallResult {
    const decision = installDecision({ ...context, status: this.status });
    if (decision.outcome !== 'installing') return decision;
    this.hooks.log(`update: installing ${this.status.state === 'ready' ? this.status.version : ''}`);
    const failure = { failed: false };
    this.installFailure = failure;
    try {
      if (this.plan.mode === 'self-update' && this.plan.package === 'appimage') {
        // The AppImage is replaced now, without starting the new one (electron-updater would start it while this
        // one still holds the single-instance and data-folder locks, and it would quit at once): the shell starts
        // it once this one has shut down (app.relaunch).
        this.updater.quitAndInstall(true, false);
      } else {
        // The Windows installer shows its progress and starts the new version; macOS restarts into it.
        this.updater.quitAndInstall(false, true);
      }
    } catch (error) {
      failure.failed = true;
      this.hooks.log(`update install failed: ${originsOnly(describe(error))}`);
    } finally {
      this.installFailure = null;
    }
    // electron-updater reports a failed install as an `error` (and does not quit); the download stays ready.
    return failure.failed ? { outcome: 'refused', message: INSTALL_FAILED } : decision;
  }

  private apply(event: UpdaterEvent): void {
    if (event.type === 'error') this.hooks.log(`update failed: ${originsOnly(describe(event.error))}`);
    const next = nextUpdateStatus(this.status, event, this.plan);
    // Progress repeats the same percent between ticks: the status bar hears of changes only.
    if (next === this.status || JSON.stringify(next) === JSON.stringify(this.status)) return;
    this.status = next;
    this.hooks.changed(next);
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return `${typeof code === 'string' ? `${code}: ` : ''}${error.message.split('\n')[0] ?? ''}`;
}
