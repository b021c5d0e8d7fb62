/**
 * App updates as the status bar shows them (the desktop app only: the web host has none, and answers
 * `updates.status` with null). The shell's update part keeps one of these and sends each change in a batch of
 * its own (`EngineEventBatch.update`).
 */
export type UpdateStatus =
  | { state: 'idle' }
  | { state: 'checking' }
  /** A newer version was found; its download starts in the background. */
  | { state: 'available'; version: string; notes: string | null }
  | { state: 'downloading'; version: string; percent: number; transferred: number; total: number }
  /** Downloaded and verified: "Restart and install" installs it. */
  | { state: 'ready'; version: string; notes: string | null }
  /** A newer version exists but this copy cannot update itself (a .deb, an AppImage under a launcher): why. */
  | { state: 'manual'; version: string; notes: string | null; reason: string }
  /** A check or download failed: a plain sentence, never a stack. */
  | { state: 'error'; message: string };

/**
 * The answer to "Restart and install": `installing` (the app quits and restarts into the new version),
 * `confirm` (auto-buy is armed: ask the merchant, then call again with `confirmed`), `refused` (why not now).
 */
export interface UpdateInstallResult {
  outcome: 'installing' | 'confirm' | 'refused';
  message: string;
}
