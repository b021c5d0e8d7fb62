import type { AccountInput, ConnectionStatus } from '../../../shared/ipc';
import { sameEndpoint } from '../../../shared/endpoints';
import { toUtcIso } from '../../../shared/time';
import { EngineError } from '../ipc/engineService';
import { type SecretStore, SecretStoreTimeoutError, whenKeychainAnswers } from '../secrets';
import type { AccountCredentials, SessionAccount } from './session';

/** The account saved in the app's config (its addresses; never its key). */
type SavedAccount = Pick<AccountCredentials, 'baseUrl' | 'wsUrl' | 'merchantId'>;

/** The account's key awaited from a keychain that is slow to answer. */
interface KeyWait {
  merchantId: string;
  abort: AbortController;
  /** The connection the UIs show meanwhile: neither live nor read-only. */
  status: ConnectionStatus;
}

/** What reading an account's key gave: the key (or none), or a wait for a slow keychain (it calls back later). */
export type KeyRead = { kind: 'answered'; key: string | null } | { kind: 'waiting' };

/**
 * The accounts' API keys in the secret store, as the engine needs them. A keychain slow to answer (busy, or locked
 * until unlocked) is not "no key": the account is told to wait, and hears the key when the keychain gives it. A key
 * entered meanwhile wins over the keychain's late answer, and is stored when the keychain answers.
 */
export class AccountKeys {
  /** Whether the saved account's key is in the store, cached: the keychain may be slow, and snapshots are frequent. */
  private known: { merchantId: string; configured: boolean } | null = null;
  private wait: KeyWait | null = null;
  /** Storing an entered key in a keychain slow to answer. */
  private storing: AbortController | null = null;

  constructor(
    private readonly secrets: SecretStore,
    private readonly log: (line: string) => void,
    /** The connection to show while a key is awaited. */
    private readonly announce: (status: ConnectionStatus) => void,
  ) {}

  /**
   * The key the store holds for `account`. When the keychain is slow and the account brings no key of its own (the
   * command line's), the answer is `waiting`, and `whenAnswered` hears the key (or none) once the keychain gives it.
   */
  async read(account: SessionAccount, whenAnswered: (key: string | null) => void): Promise<KeyRead> {
    this.endWait();
    try {
      const key = await this.secrets.get(account.merchantId);
      this.known = { merchantId: account.merchantId, configured: key !== null };
      return { kind: 'answered', key };
    } catch (error) {
      this.log(`keychain: ${(error as Error).message}`);
      if (!(error instanceof SecretStoreTimeoutError)) {
        this.known = { merchantId: account.merchantId, configured: false };
        return { kind: 'answered', key: null };
      }
      // The command line's key serves this run rather than waiting.
      if (account.apiKey !== null) return { kind: 'answered', key: null };
      this.awaitKey(account.merchantId, error as SecretStoreTimeoutError<string | null>, whenAnswered);
      return { kind: 'waiting' };
    }
  }

  /** Stops awaiting a slow keychain's answer: what it says later does not replace the account opened since. */
  endWait(): void {
    this.wait?.abort.abort(new Error('no longer waiting for the keychain'));
    this.wait = null;
  }

  /** The connection to show while `merchantId`'s key is awaited, or null. */
  waitingStatus(merchantId: string): ConnectionStatus | null {
    return this.wait?.merchantId === merchantId ? this.wait.status : null;
  }

  close(): void {
    this.endWait();
    this.storing?.abort(new Error('the engine closed'));
  }

  /** Read once per account (the secret store has its own time-out), then kept until the key is configured again. */
  async isConfigured(merchantId: string): Promise<boolean> {
    if (this.known?.merchantId === merchantId) return this.known.configured;
    // Awaited for the open account: not known yet, and no second call while one hangs.
    if (this.wait?.merchantId === merchantId) return false;
    let late = null as Promise<unknown> | null;
    const key = await this.secrets.get(merchantId).catch((error: unknown) => {
      if (error instanceof SecretStoreTimeoutError) late = error.answer;
      return null;
    });
    const known = { merchantId, configured: key !== null };
    this.known = known;
    // A slow keychain's late answer still counts, without asking it again.
    void late?.then(
      (answer) => (known.configured = answer !== null),
      () => {},
    );
    return known.configured;
  }

  /** The key the store holds for `merchantId`, or null; a keychain still slow to answer is said as such. */
  async stored(merchantId: string): Promise<string | null> {
    const slow = new EngineError(
      'unavailable',
      `The OS keychain has not answered yet for ${merchantId} (busy, or locked: unlock it): wait for it, or enter the API key`,
    );
    if (this.wait?.merchantId === merchantId) throw slow;
    return this.secrets.get(merchantId).catch((error: unknown) => {
      if (error instanceof SecretStoreTimeoutError) throw slow;
      return null;
    });
  }

  /**
   * The credentials a test or save uses. A key typed in the call goes where the call says; the stored key goes only
   * to the saved account's own base URL and WebSocket URL, so no caller can have it delivered somewhere else.
   */
  async credentialsFor(input: AccountInput, saved: SavedAccount | null): Promise<AccountCredentials> {
    const baseUrl = input.baseUrl.replace(/\/+$/, '');
    if (input.apiKey !== undefined) {
      return { baseUrl, wsUrl: input.wsUrl, merchantId: input.merchantId, apiKey: input.apiKey };
    }
    if (saved?.merchantId !== input.merchantId) {
      throw new EngineError('invalid_input', `No API key stored for ${input.merchantId}: enter it`);
    }
    if (!sameEndpoint(saved.baseUrl, baseUrl) || !sameEndpoint(saved.wsUrl, input.wsUrl)) {
      throw new EngineError(
        'invalid_input',
        `The stored API key of ${saved.merchantId} is only sent to the saved account's addresses (${saved.baseUrl}, ${saved.wsUrl}): to use other addresses, enter the API key`,
      );
    }
    const apiKey = await this.stored(saved.merchantId);
    if (!apiKey) throw new EngineError('invalid_input', `No API key stored for ${saved.merchantId}: enter it`);
    return { baseUrl: saved.baseUrl, wsUrl: saved.wsUrl, merchantId: saved.merchantId, apiKey };
  }

  /**
   * Stores an entered key, which wins over whatever a slow keychain answers later. A keychain slow to answer gets it
   * when it does (asked again after a failure, until the engine closes or another key is entered); the key is used
   * meanwhile, never lost. Returns what to tell the user then.
   */
  async store(merchantId: string, apiKey: string): Promise<string | null> {
    this.endWait();
    this.storing?.abort(new Error('another key was entered'));
    this.storing = null;
    try {
      await this.secrets.set(merchantId, apiKey);
      this.known = { merchantId, configured: true };
      return null;
    } catch (error) {
      if (!(error instanceof SecretStoreTimeoutError)) throw error;
      this.known = { merchantId, configured: true };
      const storing = new AbortController();
      this.storing = storing;
      this.log(
        `keychain: ${error.message}; the key entered for ${merchantId} is used now and stored when the keychain answers`,
      );
      void whenKeychainAnswers(error as SecretStoreTimeoutError<void>, () => this.secrets.set(merchantId, apiKey), {
        signal: storing.signal,
        onRetry: (nextAttemptAt, failure) =>
          this.log(
            `keychain: storing the key of ${merchantId}: ${(failure as Error).message}; trying again at ${toUtcIso(nextAttemptAt)}`,
          ),
      }).then(
        () => this.log(`the OS keychain stored the key of ${merchantId}`),
        () => {}, // another key was entered, or the engine closed
      );
      return 'The OS keychain has not confirmed storing the key yet: it is used now and stored when the keychain answers';
    }
  }

  private awaitKey(
    merchantId: string,
    timedOut: SecretStoreTimeoutError<string | null>,
    whenAnswered: (key: string | null) => void,
  ): void {
    this.log(
      `waiting for the OS keychain: the cached data of ${merchantId} opens meanwhile; it goes live when the keychain gives its key`,
    );
    const wait: KeyWait = { merchantId, abort: new AbortController(), status: keyWaitStatus(merchantId) };
    this.wait = wait;
    void whenKeychainAnswers(timedOut, () => this.secrets.get(merchantId), {
      signal: wait.abort.signal,
      onRetry: (nextAttemptAt, failure) => {
        this.log(`keychain: ${(failure as Error).message}; asking again at ${toUtcIso(nextAttemptAt)}`);
        wait.status = { ...wait.status, nextAttemptAt: toUtcIso(nextAttemptAt) };
        if (this.wait === wait) this.announce(wait.status);
      },
    }).then(
      (key) => {
        if (this.wait !== wait) return;
        this.wait = null;
        this.known = { merchantId, configured: key !== null };
        this.log(`the OS keychain answered for ${merchantId}`);
        whenAnswered(key);
      },
      () => {}, // ended: a key was entered, another account opened, or the engine closed
    );
  }
}

/** The connection while the account's key is awaited from a slow keychain (`nextAttemptAt` is set after a failed call). */
function keyWaitStatus(merchantId: string): ConnectionStatus {
  return {
    state: 'connecting',
    detail: `Waiting for the OS keychain to give the API key of ${merchantId} (it is busy, or locked: unlock it); the account goes live when it answers`,
    nextAttemptAt: null,
    since: toUtcIso(Date.now()),
  };
}
