import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { app } from 'electron';
import type * as ElectronUpdater from 'electron-updater';
import type { AlertRule, UpdateInstallResult, UpdateStatus } from '../shared/ipc';
import { dispatchIpc } from './core/ipc/dispatch';
import { describeError } from './shell/redact';
import { UpdateFlow } from './shell/updateFlow';
import { armedAutoBuyRules, updatePlan } from './shell/updatePolicy';
import { UpdateSchedule } from './shell/updateSchedule';
import type { ShellContext } from './shellContext';

export interface UpdateHooks {
  /** The status bar's update state changed. */
  changed(status: UpdateStatus): void;
}

/**
 * App updates through electron-updater's `autoUpdater`, made only when this copy's plan checks at all
 * (shell/updatePolicy.ts); its events become the status bar's state (shell/updateFlow.ts), checked on the schedule of
 * shell/updateSchedule.ts, installed only by "Restart and install" through the install decision.
 */
export class AppUpdates {
  private flow: UpdateFlow | null = null;
  private appImage = false;
  private schedule: UpdateSchedule | null = null;
  private planned = false;
  /** quitAndInstall was called: the quit that follows asks nothing. */
  installing = false;

  constructor(
    private readonly ctx: ShellContext,
    private readonly hooks: UpdateHooks,
  ) {}

  /** Any settings change: the first (after `ready`) decides the plan and starts the checks it allows. */
  settingsChanged(): void {
    if (!this.planned) {
      this.planned = true;
      try {
        this.plan();
      } catch (error) {
        // Updates never stand in the way of the app: no checks this run, and the log says why.
        this.ctx.log(`updates unavailable: ${describeError(error)}`);
      }
    }
    this.schedule?.settingsChanged();
  }

  status(): UpdateStatus | null {
    return this.flow?.current ?? null;
  }

  async install(confirmed: boolean): Promise<UpdateInstallResult> {
    const flow = this.flow;
    if (!flow) return { outcome: 'refused', message: 'This copy of Merchant Desk does not update itself.' };
    const engine = this.ctx.engine?.engine;
    let autoBuyRules: number | null = 0;
    if (engine && this.ctx.settings) {
      const rules = await dispatchIpc(engine, 'alerts.rules', {});
      autoBuyRules = armedAutoBuyRules(rules.ok ? (rules.value as AlertRule[]) : null, this.ctx.settings);
    }
    // Read after the rules: a buy that started meanwhile counts.
    const decision = flow.install({ buysInFlight: engine?.buysInFlight() ?? 0, autoBuyRules, confirmed });
    if (decision.outcome !== 'installing') return decision;
    this.installing = true;
    // An AppImage was replaced without starting the new one: it starts once this one has exited.
    const appImage = this.appImage ? flow.relaunchAppImage(process.env['APPIMAGE']) : null;
    if (appImage) app.relaunch({ execPath: appImage, args: process.argv.slice(1) });
    return decision;
  }

  stop(): void {
    this.schedule?.stop();
  }

  private plan(): void {
    const plan = updatePlan({
      platform: process.platform,
      env: process.env,
      packageType: readPackageType(),
      isPackaged: app.isPackaged,
    });
    this.ctx.log(`updates: ${plan.mode === 'self-update' ? `self-update (${plan.package})` : plan.reason}`);
    if (plan.mode === 'off') return;
    this.appImage = plan.mode === 'self-update' && plan.package === 'appimage';
    // Loaded only here: its `autoUpdater` picks the updater for this package and needs a packaged Electron app.
    const { autoUpdater } = createRequire(import.meta.url)('electron-updater') as typeof ElectronUpdater;
    const flow = new UpdateFlow(autoUpdater, plan, { changed: (s) => this.hooks.changed(s), log: this.ctx.log });
    this.flow = flow;
    this.schedule = new UpdateSchedule(
      {
        setTimeout: (run, ms) => setTimeout(run, ms),
        clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
      },
      () => void flow.check(),
      () => this.ctx.settings !== null && this.ctx.settings.checkForUpdates !== false,
    );
    this.schedule.start();
  }
}

/** `<resources>/package-type`, which electron-builder writes into .deb/.rpm/pacman packages (electron-updater reads it too). */
function readPackageType(): string | null {
  try {
    return readFileSync(join(process.resourcesPath, 'package-type'), 'utf8').trim();
  } catch {
    return null;
  }
}
