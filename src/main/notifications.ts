import { existsSync } from 'node:fs';
import { nativeImage, Notification } from 'electron';
import type { Notification as EngineNotification } from '../shared/ipc';
import { BurstGate } from '../shared/notifications';
import { clickAction, planDesktopNotifications, testNotice, type DesktopNotice } from './shell/notificationModel';
import type { ShellContext } from './shellContext';

/**
 * The engine's notifications on the desktop: checked against the settings at display time, grouped, paced (a
 * trickle of trades is a few grouped notifications, not one each), and a click reported to the composer.
 */
export class DesktopNotifications {
  /** Engine notifications before the settings are known wait for them (the first snapshot). */
  private pending: EngineNotification[] = [];
  /** Shown notifications, kept referenced so their click handlers survive garbage collection. */
  private readonly live = new Set<Notification>();
  private readonly gate = new BurstGate<EngineNotification>((list, paced) => {
    const { settings } = this.ctx;
    if (!settings) return;
    for (const notice of planDesktopNotifications(list, settings, paced ? 1 : undefined)) this.show(notice);
  });

  constructor(
    private readonly ctx: ShellContext,
    private readonly onClick: (action: ReturnType<typeof clickAction>) => void,
  ) {}

  offer(list: readonly EngineNotification[]): void {
    if (!this.ctx.settings) {
      this.pending = [...this.pending, ...list].slice(-50);
      return;
    }
    this.gate.offer(list);
  }

  /** The settings are known (or changed): what waited for them goes out. */
  settingsChanged(): void {
    if (this.pending.length === 0) return;
    const waiting = this.pending;
    this.pending = [];
    this.offer(waiting);
  }

  show(notice: DesktopNotice): void {
    const { ctx, live } = this;
    ctx.testHook?.notifications.push(notice);
    if (!Notification.isSupported()) return;
    const icon = ctx.resource('icon.png');
    const notification = new Notification({
      title: notice.title,
      body: notice.body,
      urgency: notice.urgent ? 'critical' : 'normal',
      ...(process.platform !== 'darwin' && existsSync(icon) ? { icon: nativeImage.createFromPath(icon) } : {}),
    });
    live.add(notification);
    const forget = (): void => {
      live.delete(notification);
    };
    notification.on('click', () => {
      forget();
      this.onClick(clickAction(notice));
    });
    notification.on('close', forget);
    notification.on('failed', (_event, error) => {
      forget();
      ctx.log(`notification failed: ${error}`);
    });
    notification.show();
    // Some platforms never report close: do not hold them forever.
    setTimeout(forget, 10 * 60_000).unref();
  }

  /** Settings → "Send a test notification": shown now, past the pacing and the settings. */
  test(): { shown: boolean; detail: string } {
    if (!Notification.isSupported())
      return { shown: false, detail: 'This desktop has no notification service, so Merchant Desk cannot show any.' };
    this.show(testNotice());
    return { shown: true, detail: 'Sent to the desktop.' };
  }

  /** At quit: nothing held back is shown any more. */
  close(): void {
    this.gate.close();
  }
}
