// Whether the real OS keychain answers here, for the tests that use it. Locally without a Secret Service they
// are skipped with one line; in CI (CI=true) they always run, and fail without one instead of skipping silently.
import { KeytarSecretStore, SecretStoreTimeoutError, whenKeychainAnswers } from '../../src/main/core/secrets';

/** A keychain slow to answer (a busy machine) is waited for this long before the tests take it for absent. */
const SLOW_KEYCHAIN_DEADLINE_MS = 120_000;

export async function keychainProblem(): Promise<string | null> {
  const keychain = new KeytarSecretStore();
  try {
    await keychain.probe();
    return null;
  } catch (error) {
    if (!(error instanceof SecretStoreTimeoutError)) return (error as Error).message;
    // There, but slow: wait for its answer, as the app does.
    try {
      await whenKeychainAnswers(error, () => keychain.probe(), {
        signal: AbortSignal.timeout(SLOW_KEYCHAIN_DEADLINE_MS),
      });
      return null;
    } catch (late) {
      return `${error.message}, and still no answer after ${SLOW_KEYCHAIN_DEADLINE_MS / 1000} s (${(late as Error).message})`;
    }
  }
}

/** True when the keychain tests of `what` must be skipped (and says so once). */
export async function skipKeychainTests(what: string): Promise<boolean> {
  const problem = await keychainProblem();
  const skip = problem !== null && process.env['CI'] !== 'true';
  if (skip) console.warn(`${what} skipped: ${problem} (run under scripts/with-keyring.sh)`);
  return skip;
}
