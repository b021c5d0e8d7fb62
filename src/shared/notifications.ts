import type { NavigateTarget, Notification, NotificationCategory, NotificationSeverity } from './ipc/models';

/**
 * What every surface (toasts, the notification centre, desktop and browser
 * notifications, sounds) derives from an engine notification: its category,
 * its severity and how a burst folds into one line. Pure, shared by the
 * engine, the shell and the renderer so they always agree.
 */

export const NOTIFICATION_CATEGORIES: readonly NotificationCategory[] = ['trade', 'alert', 'auto-buy', 'connection'];
export const NOTIFICATION_SEVERITIES: readonly NotificationSeverity[] = ['success', 'danger', 'warning', 'neutral'];

export const CATEGORY_LABELS: Record<NotificationCategory, string> = {
  trade: 'Trades',
  alert: 'Alerts',
  'auto-buy': 'Auto-buy',
  connection: 'Connection',
};

export const SEVERITY_LABELS: Record<NotificationSeverity, string> = {
  success: 'Success',
  danger: 'Problem',
  warning: 'Warning',
  neutral: 'Info',
};

const TRADE_STATUS_SEVERITY: Record<string, NotificationSeverity> = {
  COMPLETED: 'success',
  CANCELLED: 'danger',
  FAILED: 'danger',
  EXPIRED: 'danger',
  REJECTED: 'danger',
  REVERSED: 'warning',
};

/** `trade:<tradeId>:<STATUS>` (the engine's id for trade notifications) → the status. */
export function tradeStatusOfNotification(notification: Pick<Notification, 'id' | 'kind'>): string | null {
  if (notification.kind !== 'trade') return null;
  return /:([A-Z]+)$/.exec(notification.id)?.[1] ?? null;
}

export function notificationCategory(
  notification: Pick<Notification, 'id' | 'kind' | 'category'>,
): NotificationCategory {
  if (notification.category) return notification.category;
  if (notification.kind === 'trade') return 'trade';
  if (notification.id.startsWith('auto-buy')) return 'auto-buy';
  if (notification.kind === 'system') return 'connection';
  return 'alert';
}

export function notificationSeverity(
  notification: Pick<Notification, 'id' | 'kind' | 'category' | 'severity'>,
): NotificationSeverity {
  if (notification.severity) return notification.severity;
  const status = tradeStatusOfNotification(notification);
  if (status) return TRADE_STATUS_SEVERITY[status] ?? 'neutral';
  if (notification.id.startsWith('auto-buy-skip')) return 'warning';
  return 'neutral';
}

/** A run of notifications shown as one line: "12 trades delivered". */
export interface NotificationGroup<T extends Notification = Notification> {
  /** The first notification's id. */
  id: string;
  category: NotificationCategory;
  severity: NotificationSeverity;
  /** The one notification's title, or the burst's ("12 trades delivered"). */
  title: string;
  /** The one notification's body, or the first few titles of the burst. */
  body: string;
  /** What clicking it opens: the one target every member shares, else null. */
  target: Notification['target'];
  at: string;
  members: T[];
}

const TRADE_STATUS_PAST: Record<string, string> = {
  PENDING: 'pending',
  CREATING: 'being created',
  SENT: 'sent',
  COMPLETED: 'delivered',
  CANCELLED: 'cancelled',
  FAILED: 'failed',
  EXPIRED: 'expired',
  REVERSED: 'reversed',
  REJECTED: 'rejected',
};

/**
 * What may fold together: the same category, severity and trade status, and the same producer
 * (the id's prefix), so an away summary or a forwarder report never hides inside another group.
 */
function groupKey(notification: Pick<Notification, 'id' | 'kind' | 'category' | 'severity'>): string {
  const status = tradeStatusOfNotification(notification);
  const producer = notification.id.split(':', 1)[0] ?? '';
  return `${notificationCategory(notification)}:${notificationSeverity(notification)}:${status ?? ''}:${producer}`;
}

/** "12 trades delivered", "1 alert fired": what a group is, counted. */
export function countedTitle(first: Notification, count: number): string {
  const many = count !== 1;
  const status = tradeStatusOfNotification(first);
  if (status) return `${count} trade${many ? 's' : ''} ${TRADE_STATUS_PAST[status] ?? status.toLowerCase()}`;
  switch (notificationCategory(first)) {
    case 'alert':
      return `${count} alert${many ? 's' : ''} fired`;
    case 'auto-buy':
      return `${count} auto-buy update${many ? 's' : ''}`;
    case 'connection':
      return `${count} connection change${many ? 's' : ''}`;
    default:
      return `${count} trade update${many ? 's' : ''}`;
  }
}

function groupOf<T extends Notification>(members: T[]): NotificationGroup<T> {
  const first = members[0] as T;
  const one = members.length === 1;
  const targets = new Set(members.map((n) => JSON.stringify(n.target)));
  const shown = members.slice(0, 3).map((n) => n.title);
  return {
    id: first.id,
    category: notificationCategory(first),
    severity: notificationSeverity(first),
    title: one ? first.title : countedTitle(first, members.length),
    body: one
      ? first.body
      : `${shown.join(', ')}${members.length > shown.length ? ` and ${members.length - shown.length} more` : ''}`,
    target: targets.size === 1 ? first.target : null,
    at: first.at,
    members,
  };
}

/**
 * Folds runs of the same category, severity and trade status whose times lie
 * within `windowMs` of the run's first into one group, keeping the list's
 * order (a burst of twelve deliveries is one line, not twelve).
 */
export function groupNotifications<T extends Notification>(
  list: readonly T[],
  windowMs = 60_000,
): NotificationGroup<T>[] {
  return notificationRuns(list, windowMs).map(groupOf);
}

/** The members of each line groupNotifications makes, from what the grouping reads (the unread count needs no more). */
export function notificationRuns<T extends Pick<Notification, 'id' | 'kind' | 'category' | 'severity' | 'at'>>(
  list: readonly T[],
  windowMs = 60_000,
): T[][] {
  const runs: { key: string; startMs: number; members: T[] }[] = [];
  for (const notification of list) {
    const key = groupKey(notification);
    const atMs = Date.parse(notification.at);
    const last = runs[runs.length - 1];
    if (last && last.key === key && Math.abs(atMs - last.startMs) <= windowMs) last.members.push(notification);
    else runs.push({ key, startMs: atMs, members: [notification] });
  }
  return runs.map((run) => run.members);
}

/**
 * One batch's notifications folded by category, severity and trade status,
 * whatever their order (a reconnect that settles twelve trades at once is
 * "12 trades delivered"), in the order each group first appears.
 */
export function groupBurst<T extends Notification>(list: readonly T[]): NotificationGroup<T>[] {
  const groups = new Map<string, T[]>();
  for (const notification of list) {
    const key = groupKey(notification);
    const members = groups.get(key);
    if (members) members.push(notification);
    else groups.set(key, [notification]);
  }
  return [...groups.values()].map(groupOf);
}

/**
 * What clicking one desktop or browser notice made of these opens: the one target they all share; else Trades
 * when every one is about trades (a burst of deliveries, a "While you were away" summary); else nothing.
 */
export function noticeTarget(members: readonly Notification[]): NavigateTarget | null {
  const first = members[0];
  if (!first) return null;
  const targets = new Set(members.map((n) => JSON.stringify(n.target)));
  if (targets.size === 1 && first.target) return first.target;
  return members.every((n) => notificationCategory(n) === 'trade') ? { type: 'trades' } : null;
}

/** Trade bodies name the recipient by label or partner number, never by the trade URL (its token is a secret). */
export function recipientWords(tradeUrl: string, labels: ReadonlyMap<string, string> = new Map()): string {
  const label = labels.get(tradeUrl);
  if (label) return label;
  const partner = /[?&]partner=(\d{1,10})/.exec(tradeUrl)?.[1];
  return partner ? `partner ${partner}` : 'an unknown recipient';
}

export interface BurstGateOptions {
  /** After a notice is shown, later ones wait this long and then show together. */
  windowMs?: number;
  now?: () => number;
  setTimer?: (run: () => void, ms: number) => unknown;
  clearTimer?: (timer: unknown) => void;
}

/**
 * Paces desktop and browser notifications across batches: the first batch
 * shows at once, and whatever arrives in the next `windowMs` waits and is
 * shown as one notice when the window ends (so fifteen trades settling over a
 * minute and a half are a handful of grouped notifications, not thirty).
 * The in-app toasts and the centre are not paced.
 */
export class BurstGate<T> {
  private readonly windowMs: number;
  private readonly now: () => number;
  private readonly setTimer: (run: () => void, ms: number) => unknown;
  private readonly clearTimer: (timer: unknown) => void;
  private lastShownAt = Number.NEGATIVE_INFINITY;
  private held: T[] = [];
  private timer: unknown = null;

  constructor(
    /** `paced`: the list waited for the window (several batches' worth): show it as one notice. */
    private readonly show: (list: T[], paced: boolean) => void,
    options: BurstGateOptions = {},
  ) {
    this.windowMs = options.windowMs ?? 15_000;
    this.now = options.now ?? Date.now;
    this.setTimer = options.setTimer ?? ((run, ms) => setTimeout(run, ms));
    this.clearTimer = options.clearTimer ?? ((timer) => clearTimeout(timer as ReturnType<typeof setTimeout>));
  }

  offer(list: readonly T[]): void {
    if (list.length === 0) return;
    const now = this.now();
    if (this.held.length === 0 && now - this.lastShownAt >= this.windowMs) {
      this.lastShownAt = now;
      this.show([...list], false);
      return;
    }
    this.held.push(...list);
    this.timer ??= this.setTimer(() => this.release(), Math.max(0, this.lastShownAt + this.windowMs - now));
  }

  /** Shows what waits now (the window ended, or the app is closing). */
  release(): void {
    if (this.timer !== null) this.clearTimer(this.timer);
    this.timer = null;
    if (this.held.length === 0) return;
    const list = this.held;
    this.held = [];
    this.lastShownAt = this.now();
    this.show(list, true);
  }

  close(): void {
    if (this.timer !== null) this.clearTimer(this.timer);
    this.timer = null;
    this.held = [];
  }
}
