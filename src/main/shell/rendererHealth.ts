/**
 * What to do when the renderer crashes or hangs (VS Code's windowImpl does the
 * same): reload after a crash, but stop after a few crashes in a short time
 * so a renderer that dies on load does not spin forever; offer a reload when a
 * hang lasts.
 */

export const CRASH_WINDOW_MS = 60_000;
export const MAX_CRASHES_IN_WINDOW = 3;
/** How long a window may be unresponsive before we offer to reload it. */
export const UNRESPONSIVE_GRACE_MS = 10_000;

/** `render-process-gone` reasons that are not a crash of ours (the user or the OS ended it on purpose). */
const DELIBERATE = new Set(['clean-exit']);

/** What the user is told after a crashed or killed renderer was reloaded. */
export function crashNotice(reason: string): string {
  const why = reason === 'killed' ? 'was restarted' : reason === 'oom' ? 'ran out of memory' : 'stopped unexpectedly';
  return `The Merchant Desk window ${why} (${reason}) and was reloaded. Nothing was lost: trades continue on the marketplace.`;
}

export type CrashAction = { action: 'ignore' } | { action: 'reload' } | { action: 'give-up'; message: string };

export class CrashTracker {
  private readonly crashes: number[] = [];

  /** One `render-process-gone`; `now` in ms. */
  onGone(reason: string, now: number): CrashAction {
    if (DELIBERATE.has(reason)) return { action: 'ignore' };
    this.crashes.push(now);
    while (this.crashes.length > 0 && (this.crashes[0] ?? 0) <= now - CRASH_WINDOW_MS) this.crashes.shift();
    if (this.crashes.length > MAX_CRASHES_IN_WINDOW) {
      return {
        action: 'give-up',
        message: `The Merchant Desk window stopped ${this.crashes.length} times in a minute (last reason: ${reason}). Restart the app; if it keeps happening, check the log in the data folder.`,
      };
    }
    return { action: 'reload' };
  }
}
