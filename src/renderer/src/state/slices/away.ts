import type { AwaySummary, ForwardStatus } from '../../../../shared/ipc/models';

/** "While you were away" (shown until dismissed) and the forwarder's state for Settings. */
export interface AwaySlice {
  summary: AwaySummary | null;
  /** The `at` of the summary the user dismissed (kept across reloads of the page). */
  dismissedAt: string | null;
  forwarding: ForwardStatus | null;
}

export const initialAway: AwaySlice = { summary: null, dismissedAt: null, forwarding: null };

/** The key under which the dismissed summary's time is kept (lib/persist). */
export const AWAY_DISMISSED_PREF = 'away-summary-dismissed';

export function visibleAwaySummary(slice: AwaySlice): AwaySummary | null {
  return slice.summary && slice.summary.at !== slice.dismissedAt ? slice.summary : null;
}
