import { nodeFetch } from './nodeFetch';
import {
  type Balance,
  type BalanceHistoryPage,
  type BalanceHistoryQuery,
  type BuyByNameRequest,
  type BuyRequest,
  type BuyResult,
  type CatalogEnvelope,
  ENDPOINTS,
  type EndpointName,
  type EndpointResponse,
  type SearchItemsRequest,
  toQueryString,
  type TradeHistoryPage,
  type TradeHistoryQuery,
} from '../../../shared/api';
import {
  abortedError,
  ApiRequestError,
  errorFromResponse,
  networkError,
  notSentError,
  parseRetryAfter,
  schemaError,
  timeoutError,
} from './errors';
import { type HeaderSource, headerValue } from './headers';
import {
  type BackoffReason,
  ClientRateLimiter,
  type RateSlot,
  type ServerRateView,
  type SlotKind,
} from './rateLimiter';

export interface MerchantAccount {
  baseUrl: string;
  merchantId: string;
  apiKey: string;
}

export interface MerchantApiClientOptions {
  /** Share one per account across the app; a private one is made when absent. */
  limiter?: ClientRateLimiter;
  timeoutMs?: number;
  /** Default: nodeFetch (node:http with keep-alive; faster to the wire than the built-in fetch). */
  fetch?: typeof fetch;
  userAgent?: string;
}

export interface CallOptions {
  signal?: AbortSignal;
  /**
   * Asked right before the request is written: at once, and again if it waits for a rate slot, when its turn
   * comes or the limiter reviews its queue. A reason instead of null ends the call unsent (`not_sent`).
   */
  admit?: () => string | null;
  /**
   * The rate slot's kind (SlotKind; default `now`): `live` for a read a feed frame asked for, `bulk` for the desk's
   * paging (back-fill, reconcile, ledger sync).
   */
  slot?: SlotKind;
}

/** What a worker needs to stream `GET /Items/GetAllItemsOnSale` itself. Holds the API key: never log it. */
export interface CatalogRequest {
  url: string;
  headers: Record<string, string>;
}

/** A bulk answer a worker streams itself: its rate slot is held until `answered`, then timed from that answer. */
export interface StreamedRequest {
  request: CatalogRequest;
  /** The worker's answer status and headers (status 0: no answer); a 429 or 503 sets the backoff. Call once. */
  answered(status: number, headers: HeaderSource): void;
  /** The typed error of a refused answer, with the key kept out of its message. */
  error(status: number, headers: HeaderSource, bodyText: string): ApiRequestError;
}

export const DEFAULT_TIMEOUT_MS = 15_000;
/** Waits when a 429 or 503 comes without a readable `Retry-After`. */
export const DEFAULT_BACKOFF_MS: Readonly<Record<429 | 503, number>> = { 429: 30_000, 503: 60_000 };
const DEFAULT_USER_AGENT = 'merchant-desk';

type Query = Record<string, string | number | boolean | undefined>;

/**
 * One request's signal: aborted by the caller's signal (often a session's, alive for hours) or by the
 * time-out, whichever comes first. Not `AbortSignal.any([signal, AbortSignal.timeout()])`: Node keeps a
 * WeakRef per call in the long-lived source signal and never prunes it (nodejs/node#55351), one
 * leaked entry per API request for the life of the session.
 */
function requestSignal(
  signal: AbortSignal | undefined,
  timeoutMs: number,
): { signal: AbortSignal; timedOut(): boolean; done(): void } {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError'));
  }, timeoutMs);
  const onAbort = () => controller.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    done: () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
}

/** An answer's `X-RateLimit-Limit/Remaining/Reset` (Reset in seconds); null unless all three are numbers. */
export function serverRateView(headers: HeaderSource): ServerRateView | null {
  const number = (name: string) => {
    const value = headerValue(headers, name);
    return value !== null && /^\d+$/.test(value.trim()) ? Number(value) : null;
  };
  const limit = number('x-ratelimit-limit');
  const remaining = number('x-ratelimit-remaining');
  const reset = number('x-ratelimit-reset');
  if (limit === null || remaining === null || reset === null) return null;
  return { limit, remaining: Math.min(remaining, limit), resetMs: reset * 1000 };
}

/**
 * Typed calls to the Merchant Trading API for one merchant. Each call waits
 * for its rate bucket, has its own time-out, and checks the answer against the
 * endpoint's schema. It never retries: the caller decides (a buy must not be
 * repeated blindly).
 */
export class MerchantApiClient {
  readonly baseUrl: string;
  readonly merchantId: string;
  readonly limiter: ClientRateLimiter;
  readonly #apiKey: string;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;
  readonly #userAgent: string;
  /** Slots of catalog downloads handed to a worker, answers not yet reported. */
  readonly #catalogSlots: RateSlot[] = [];

  constructor(account: MerchantAccount, options: MerchantApiClientOptions = {}) {
    this.baseUrl = account.baseUrl.replace(/\/+$/, '');
    this.merchantId = account.merchantId;
    this.#apiKey = account.apiKey;
    this.limiter = options.limiter ?? new ClientRateLimiter();
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#fetch = options.fetch ?? nodeFetch;
    this.#userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  }

  getBalance(options?: CallOptions): Promise<Balance> {
    return this.#call('getBalance', {}, options);
  }

  balanceHistory(query: BalanceHistoryQuery = {}, options?: CallOptions): Promise<BalanceHistoryPage> {
    return this.#call('balanceHistory', { query }, options);
  }

  tradeHistory(query: TradeHistoryQuery = {}, options?: CallOptions): Promise<TradeHistoryPage> {
    return this.#call('tradeHistory', { query }, options);
  }

  searchItems(body: SearchItemsRequest, options?: CallOptions): Promise<CatalogEnvelope> {
    return this.#call('searchItems', { body }, options);
  }

  buy(body: BuyRequest, options?: CallOptions): Promise<BuyResult> {
    return this.#call('buy', { body }, options);
  }

  buyByName(body: BuyByNameRequest, options?: CallOptions): Promise<BuyResult> {
    return this.#call('buyByName', { body }, options);
  }

  /**
   * Takes a `catalog` slot, then hands over what a worker needs to stream the on-sale list. The slot is
   * held until `reportCatalogResponse` (oldest first), then timed from that answer.
   */
  async prepareCatalogRequest(signal?: AbortSignal): Promise<CatalogRequest> {
    const { path, bucket } = ENDPOINTS.getAllItemsOnSale;
    this.#catalogSlots.push(await this.#acquire(bucket, path, signal));
    return { url: `${this.baseUrl}${path}`, headers: this.#headers(false) };
  }

  /** The worker's answer status and headers: settles the catalog slot, and a 429 or 503 it saw still sets the backoff. */
  reportCatalogResponse(status: number, headers: HeaderSource): void {
    this.#catalogSlots.shift()?.settle(serverRateView(headers));
    this.#noteRefusal(status, parseRetryAfter(headerValue(headers, 'retry-after')));
  }

  /** The typed error of a refused catalog download (the worker's answer), with the key kept out of its message. */
  catalogError(status: number, headers: HeaderSource, bodyText: string): ApiRequestError {
    return errorFromResponse(ENDPOINTS.getAllItemsOnSale.path, status, headers, this.#scrub(bodyText));
  }

  /**
   * Takes a bulk slot for `GET /Trades/History?isActive=true` (every trade of the last 14 days, unpaged), then hands
   * over what a worker needs to stream it: a new cache's first fill (one request instead of a page per 500).
   */
  async prepareTradeWindowRequest(signal?: AbortSignal): Promise<StreamedRequest> {
    const { path, bucket } = ENDPOINTS.tradeHistory;
    const slot = await this.#acquire(bucket, path, signal, undefined, 'bulk');
    return {
      request: { url: `${this.baseUrl}${path}${toQueryString({ isActive: true })}`, headers: this.#headers(false) },
      answered: (status, headers) => {
        slot.settle(serverRateView(headers));
        this.#noteRefusal(status, parseRetryAfter(headerValue(headers, 'retry-after')));
      },
      error: (status, headers, bodyText) => errorFromResponse(path, status, headers, this.#scrub(bodyText)),
    };
  }

  toString(): string {
    return `MerchantApiClient(${this.merchantId} @ ${this.baseUrl})`;
  }

  toJSON(): { baseUrl: string; merchantId: string } {
    return { baseUrl: this.baseUrl, merchantId: this.merchantId };
  }

  async #call<N extends EndpointName>(
    name: N,
    input: { query?: Query; body?: unknown },
    options?: CallOptions,
  ): Promise<EndpointResponse<N>> {
    const endpoint = ENDPOINTS[name];
    const { path } = endpoint;
    const signal = options?.signal;
    const admit = options?.admit;
    const kind = options?.slot ?? 'now';
    const refusal = admit?.() ?? null;
    if (refusal !== null) throw notSentError(path, refusal);
    // No await when a slot is free: the request is written in the caller's task (auto-buy is a race).
    const slot =
      (signal?.aborted ? null : this.limiter.tryAcquire(endpoint.bucket, kind)) ??
      (await this.#acquire(endpoint.bucket, path, signal, admit, kind));

    const request = requestSignal(signal, this.#timeoutMs);
    const url = `${this.baseUrl}${path}${input.query ? toQueryString(input.query) : ''}`;
    let response: Response;
    let text: string;
    const doFetch = this.#fetch; // called unbound: a browser's fetch refuses a foreign `this`
    try {
      response = await doFetch(url, {
        method: endpoint.method,
        headers: this.#headers(input.body !== undefined),
        body: input.body === undefined ? undefined : JSON.stringify(input.body),
        signal: request.signal,
      });
      text = await response.text();
      slot.settle(serverRateView(response.headers));
    } catch (error) {
      slot.settle();
      if (signal?.aborted) throw abortedError(path);
      if (request.timedOut()) throw timeoutError(path, this.#timeoutMs);
      throw this.#redact(networkError(path, error));
    } finally {
      request.done();
    }

    if (!response.ok) {
      // Scrub before the body is quoted: the message keeps a 120-character snippet, which can cut the key in two.
      const error = errorFromResponse(path, response.status, response.headers, this.#scrub(text));
      this.#noteRefusal(response.status, error.retryAfterMs);
      throw this.#redact(error);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw schemaError(path, text.trim() === '' ? 'empty body' : 'body is not JSON');
    }
    const parsed = endpoint.response.safeParse(json);
    if (!parsed.success) throw schemaError(path, parsed.error);
    return parsed.data as EndpointResponse<N>;
  }

  async #acquire(
    bucket: 'catalog' | 'default',
    path: string,
    signal: AbortSignal | undefined,
    admit?: () => string | null,
    kind: SlotKind = 'now',
  ): Promise<RateSlot> {
    const gate =
      admit &&
      (() => {
        const reason = admit();
        return reason === null ? null : notSentError(path, reason);
      });
    try {
      return await this.limiter.acquire(bucket, signal, gate, kind);
    } catch (error) {
      if (error instanceof ApiRequestError) throw error; // withdrawn by `admit`
      throw abortedError(path);
    }
  }

  #noteRefusal(status: number, retryAfterMs: number | null): void {
    if (status !== 429 && status !== 503) return;
    const reason: BackoffReason = status === 503 ? 'maintenance' : 'rate-limited';
    this.limiter.noteBackoff(this.limiter.now() + (retryAfterMs ?? DEFAULT_BACKOFF_MS[status]), reason);
  }

  #headers(jsonBody: boolean): Record<string, string> {
    return {
      'x-api-key': this.#apiKey,
      'x-merchant-id': this.merchantId,
      Accept: 'application/json',
      'Accept-Encoding': 'gzip',
      'User-Agent': this.#userAgent,
      ...(jsonBody ? { 'Content-Type': 'application/json' } : {}),
    };
  }

  #scrub(text: string): string {
    return this.#apiKey ? text.split(this.#apiKey).join('[redacted]') : text;
  }

  /** A proxy or a misbehaving server may echo request headers into its body; keep the key out of messages. */
  #redact(error: ApiRequestError): ApiRequestError {
    if (!this.#apiKey || !error.message.includes(this.#apiKey)) return error;
    return new ApiRequestError({ ...error.toJSON(), message: error.message.split(this.#apiKey).join('[redacted]') });
  }
}
