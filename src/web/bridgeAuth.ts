// Who may use the web host's bridge. No cookie: browsers send cookies to every port of a host,
// so a cookie for 127.0.0.1:A would reach whatever listens on 127.0.0.1:B too. The page holds the
// launch token itself (origin-scoped storage) and sends it as the socket's first frame, the
// `hello`; a browser the host opens gets a one-time code instead, traded for the token once.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** The close code of a socket refused for its credential (a page shows "session expired"). */
export const UNAUTHORIZED_CLOSE = 4401;
export const DEFAULT_HELLO_TIMEOUT_MS = 10_000;
/** Long enough for a browser to start cold, short enough that a link left unopened soon means nothing. */
export const DEFAULT_CODE_TTL_MS = 120_000;
/** A hello is a few dozen bytes; anything much bigger is not one. */
const MAX_HELLO_BYTES = 4096;
/** Codes remembered at once (each browser opened is one); the oldest goes first. */
const MAX_CODES = 32;
const AFTER = 'open the URL printed by npm run web';

export const REFUSALS = {
  noHello: `unauthorized: the first message must be a hello; ${AFTER}`,
  lateHello: `unauthorized: no hello in time; ${AFTER}`,
  wrongToken: `unauthorized: this page's token is not the web host's; ${AFTER}`,
  unknownCode: `unauthorized: this link is not valid; ${AFTER}`,
  usedCode: `unauthorized: this link was already used; ${AFTER}`,
  expiredCode: `unauthorized: this link has expired; ${AFTER}`,
} as const;

export type HelloVerdict =
  | { ok: true; /** Set when a code was traded: the page keeps this token for its next sockets. */ token: string | null }
  | { ok: false; reason: string; /** A code presented a second time: someone may have used it first. */ reused: boolean };

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

export interface BridgeCredentialsOptions {
  codeTtlMs?: number;
  now?: () => number;
}

export class BridgeCredentials {
  private readonly expected: Buffer;
  /** By the code's digest (hex): when it expires and whether it was used. */
  private readonly codes = new Map<string, { expiresAt: number; used: boolean }>();
  private readonly codeTtlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly token: string,
    options: BridgeCredentialsOptions = {},
  ) {
    this.expected = digest(token);
    this.codeTtlMs = options.codeTtlMs ?? DEFAULT_CODE_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  /** A new one-time code: good for one hello within the code time. */
  issueCode(): string {
    const code = randomBytes(24).toString('base64url');
    this.codes.set(digest(code).toString('hex'), { expiresAt: this.now() + this.codeTtlMs, used: false });
    while (this.codes.size > MAX_CODES) this.codes.delete(this.codes.keys().next().value as string);
    return code;
  }

  /** Judges a socket's first frame. */
  check(frame: string): HelloVerdict {
    const refuse = (reason: string, reused = false): HelloVerdict => ({ ok: false, reason, reused });
    if (frame.length > MAX_HELLO_BYTES) return refuse(REFUSALS.noHello);
    let hello: unknown;
    try {
      hello = JSON.parse(frame);
    } catch {
      return refuse(REFUSALS.noHello);
    }
    if (typeof hello !== 'object' || hello === null || (hello as { type?: unknown }).type !== 'hello') return refuse(REFUSALS.noHello);
    const { token, code } = hello as { token?: unknown; code?: unknown };
    if (typeof token === 'string' && code === undefined) {
      // Constant-time: the digests have equal lengths whatever was sent.
      return timingSafeEqual(digest(token), this.expected) ? { ok: true, token: null } : refuse(REFUSALS.wrongToken);
    }
    if (typeof code === 'string' && token === undefined) {
      const entry = this.codes.get(digest(code).toString('hex'));
      if (!entry) return refuse(REFUSALS.unknownCode);
      if (entry.used) return refuse(REFUSALS.usedCode, true);
      if (this.now() > entry.expiresAt) return refuse(REFUSALS.expiredCode);
      entry.used = true;
      return { ok: true, token: this.token };
    }
    return refuse(REFUSALS.noHello);
  }
}
