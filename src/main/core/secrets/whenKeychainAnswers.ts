import { setTimeout as sleep } from 'node:timers/promises';
import { SecretStoreTimeoutError } from './secretStore';

/** After a call failed while the keychain is slow, the next one is made after this, doubling up to a minute. */
export const KEYCHAIN_RETRY_FIRST_MS = 2_000;
export const KEYCHAIN_RETRY_MAX_MS = 60_000;

export interface KeychainWaitOptions {
  /** Ends the wait (rejecting with its reason): a key was entered meanwhile, another account opened, the engine closed. */
  signal: AbortSignal;
  /** A call failed: the next one is made at `nextAttemptAt` (epoch ms). */
  onRetry?(nextAttemptAt: number, error: unknown): void;
}

/**
 * The answer of a keychain call that timed out, however long the keychain takes. The call's own answer is awaited
 * (never a second call while one hangs: a locked keyring answers it once unlocked); when a call fails, `again`
 * makes it anew after a backoff.
 */
export async function whenKeychainAnswers<T>(
  timedOut: SecretStoreTimeoutError<T>,
  again: () => Promise<T>,
  options: KeychainWaitOptions,
): Promise<T> {
  let pending = timedOut.answer;
  for (let attempt = 0; ; attempt++) {
    try {
      return await untilAborted(pending, options.signal);
    } catch (error) {
      if (options.signal.aborted) throw error;
      const delay = Math.min(KEYCHAIN_RETRY_FIRST_MS * 2 ** attempt, KEYCHAIN_RETRY_MAX_MS);
      options.onRetry?.(Date.now() + delay, error);
      await sleep(delay, undefined, { signal: options.signal }).catch(() =>
        Promise.reject(options.signal.reason as Error),
      );
    }
    pending = again().catch((error: unknown) => {
      // Slow again: that call's own answer is the one to wait for (an error carries the answer of the call it timed).
      if (error instanceof SecretStoreTimeoutError) return error.answer as Promise<T>;
      throw error;
    });
  }
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
