// Whether the real OS keychain answers here, for the tests that use it. Locally without a Secret Service they
// are skipped with one line; in CI (CI=true) they always run, and fail without one instead of skipping silently.
import { KeytarSecretStore } from '../../src/main/core/secrets';

export async function keychainProblem(): Promise<string | null> {
  try {
    await new KeytarSecretStore({ probeTimeoutMs: 3_000 }).probe();
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** True when the keychain tests of `what` must be skipped (and says so once). */
export async function skipKeychainTests(what: string): Promise<boolean> {
  const problem = await keychainProblem();
  const skip = problem !== null && process.env['CI'] !== 'true';
  if (skip) console.warn(`${what} skipped: ${problem} (run under scripts/with-keyring.sh)`);
  return skip;
}
