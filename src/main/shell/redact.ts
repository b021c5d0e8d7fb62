/**
 * Keeps secrets out of the shell's log and error dialogs. The engine scrubs what it
 * throws and logs, but the shell also writes text it did not make: an unhandled
 * rejection's reason, the error of an engine that failed to start (a keychain or
 * environment problem may quote what it was given). Every line the shell writes goes
 * through `scrub`, which cuts out
 * - every secret it was told about (`remember`: the `MERCHANT_API_KEY` variable, the
 *   keys the Settings screen sent with `account.configure` / `account.test`), and any
 *   part of one as redactSecret finds it (a prefix, URL-encoded, in another letter case), and
 * - values that look like credentials whatever they are: `x-api-key: …`,
 *   `apiKey=…`, `"api_key": "…"`, `secret …`, `Bearer …`, `x-signature: …`, and
 *   trade-URL `token=…`.
 */

import { REDACTED, redactSecret } from '../core/engine/redactSecret';

export { REDACTED };

/** Shorter strings are not treated as secrets (they would cut ordinary words out of the log). */
const MIN_SECRET_LENGTH = 8;

/** `name: value`, `name=value`, `"name":"value"` for credential-like names; the value is replaced. */
const FIELD =
  /((?:x-)?api[-_]?key|x-merchant-key|x-signature|signature[-_]?secret|secret|password|passwd|token|access[-_]?token|admin[-_]?token)(["']?\s*[:=]\s*["']?)(?!\[redacted\])([^\s"'`,;&<>)}\]]+)/gi;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g;

export class SecretScrubber {
  private readonly secrets = new Set<string>();

  /** From now on, `secret` never appears in scrubbed text. Ignores empty and very short values. */
  remember(secret: string | null | undefined): void {
    if (typeof secret !== 'string') return;
    const value = secret.trim();
    if (value.length >= MIN_SECRET_LENGTH) this.secrets.add(value);
  }

  /** How many secrets it knows (for tests; never the secrets themselves). */
  get size(): number {
    return this.secrets.size;
  }

  scrub(text: string): string {
    let clean = text;
    // Longest first: a key that contains another is cut out whole.
    for (const secret of [...this.secrets].sort((a, b) => b.length - a.length)) clean = redactSecret(clean, secret);
    clean = clean.replace(FIELD, (_match, name: string, separator: string) => `${name}${separator}${REDACTED}`);
    clean = clean.replace(BEARER, (_match, scheme: string) => `${scheme} ${REDACTED}`);
    return clean;
  }
}

/** One line for the log from anything thrown or rejected: the stack when there is one. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

/** The message of an error for a dialog (no stack). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : describeError(error);
}
