// Who may use the web host's bridge. No cookie: browsers send cookies to every port of a host,
// so a cookie for 127.0.0.1:A would reach whatever listens on 127.0.0.1:B too. The page holds the
// launch token itself (origin-scoped storage) and offers it in the socket's upgrade, as one of its
// subprotocols (`Sec-WebSocket-Protocol`, which a browser's WebSocket can set and a cross-site page
// cannot read); a browser the host opens gets a one-time code instead, traded for the token once.
// Judged at the upgrade, a socket without a good credential never waits anywhere: it cannot take a
// page's place, however many are opened.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** The close code of a socket refused for its credential (a page shows "session expired"). */
export const UNAUTHORIZED_CLOSE = 4401;
/** The subprotocol the host answers with; the page offers it beside its credential. */
export const BRIDGE_PROTOCOL = 'merchant-desk.bridge';
/** The credential's subprotocol: this prefix, then the token or the one-time code. */
export const TOKEN_PROTOCOL_PREFIX = 'merchant-desk.token.';
export const CODE_PROTOCOL_PREFIX = 'merchant-desk.code.';
/** Long enough for a browser to start cold, short enough that a link left unopened soon means nothing. */
export const DEFAULT_CODE_TTL_MS = 120_000;
/** A credential is a few dozen characters; anything much bigger is not one. */
const MAX_CREDENTIAL_LENGTH = 512;
/** Codes remembered at once (each browser opened is one); the oldest goes first. */
const MAX_CODES = 32;
const AFTER = 'open the URL printed by npm run web';

export const REFUSALS = {
  noCredential: `unauthorized: no token offered; ${AFTER}`,
  wrongToken: `unauthorized: this page's token is not the web host's; ${AFTER}`,
  unknownCode: `unauthorized: this link is not valid; ${AFTER}`,
  usedCode: `unauthorized: this link was already used; ${AFTER}`,
  expiredCode: `unauthorized: this link has expired; ${AFTER}`,
} as const;

export type Credential = { token: string } | { code: string };

/** The credential among the subprotocols of an upgrade (`Sec-WebSocket-Protocol`), or null: none, or more than one. */
export function offeredCredential(header: string | undefined): Credential | null {
  const offered = (header ?? '')
    .split(',')
    .map((protocol) => protocol.trim())
    .filter((protocol) => protocol.startsWith(TOKEN_PROTOCOL_PREFIX) || protocol.startsWith(CODE_PROTOCOL_PREFIX));
  const [only] = offered;
  if (offered.length !== 1 || only === undefined || only.length > MAX_CREDENTIAL_LENGTH) return null;
  return only.startsWith(TOKEN_PROTOCOL_PREFIX)
    ? { token: only.slice(TOKEN_PROTOCOL_PREFIX.length) }
    : { code: only.slice(CODE_PROTOCOL_PREFIX.length) };
}

export type CredentialVerdict =
  | {
      ok: true;
      /** Set when a code was traded: the page keeps this token for its next sockets. */ token: string | null;
    }
  | {
      ok: false;
      reason: string;
      /** A code presented a second time: someone may have used it first. */ reused: boolean;
    };

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

  /** A new one-time code: good for one socket within the code time. */
  issueCode(): string {
    const code = randomBytes(24).toString('base64url');
    this.codes.set(digest(code).toString('hex'), { expiresAt: this.now() + this.codeTtlMs, used: false });
    while (this.codes.size > MAX_CODES) this.codes.delete(this.codes.keys().next().value as string);
    return code;
  }

  /** Judges the credential a socket offered at its upgrade. */
  check(offered: Credential | null): CredentialVerdict {
    const refuse = (reason: string, reused = false): CredentialVerdict => ({ ok: false, reason, reused });
    if (offered === null) return refuse(REFUSALS.noCredential);
    if ('token' in offered) {
      // Constant-time: the digests have equal lengths whatever was sent.
      return timingSafeEqual(digest(offered.token), this.expected)
        ? { ok: true, token: null }
        : refuse(REFUSALS.wrongToken);
    }
    const entry = this.codes.get(digest(offered.code).toString('hex'));
    if (!entry) return refuse(REFUSALS.unknownCode);
    if (entry.used) return refuse(REFUSALS.usedCode, true);
    if (this.now() > entry.expiresAt) return refuse(REFUSALS.expiredCode);
    entry.used = true;
    return { ok: true, token: this.token };
  }
}
