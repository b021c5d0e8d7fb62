import type { AlertRule } from '../../shared/ipc';

/**
 * Quitting with work in flight asks first (like the Honey Framework UI with
 * open orders): trades keep moving on the marketplace while the app is closed,
 * and auto-buy rules stop acting until it is reopened.
 */

export interface QuitState {
  activeTrades: number;
  /** Enabled rules with auto-buy on (see `countActiveAutoBuyRules`). */
  autoBuyRules: number;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The question to ask before quitting, or null when nothing is in flight. */
export function quitWarning(state: QuitState): string | null {
  const trades = Math.max(0, Math.floor(state.activeTrades || 0));
  const rules = Math.max(0, Math.floor(state.autoBuyRules || 0));
  const parts: string[] = [];
  if (trades > 0) parts.push(`${plural(trades, 'trade is', 'trades are')} still active`);
  if (rules > 0) parts.push(`${plural(rules, 'auto-buy rule is', 'auto-buy rules are')} on`);
  if (parts.length === 0) return null;
  return `${parts.join(' and ')}. Quit anyway?`;
}

/** The dialog's secondary text: what quitting does to each. */
export function quitDetail(state: QuitState): string {
  const lines: string[] = [];
  if (state.activeTrades > 0) {
    lines.push('Active trades keep going on the marketplace; Merchant Desk catches up with them when you reopen it.');
  }
  if (state.autoBuyRules > 0) lines.push('Auto-buy stops until you reopen Merchant Desk.');
  return lines.join(' ');
}

export const QUIT_BUTTONS = ['Quit anyway', 'Cancel'] as const;
export const QUIT_BUTTON_INDEX = { quit: 0, cancel: 1 } as const;

/** Rules that would buy on their own right now: enabled, auto-buy on, and alerts not paused. */
export function countActiveAutoBuyRules(
  rules: readonly Pick<AlertRule, 'enabled' | 'autoBuy'>[],
  alertsPaused: boolean,
): number {
  if (alertsPaused) return 0;
  return rules.filter((rule) => rule.enabled && rule.autoBuy.enabled).length;
}
