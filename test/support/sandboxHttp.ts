import type { Sandbox } from '../../src/server/sandbox';

/** Plain HTTP helpers for tests: what an outside tool would send, nothing of the app's client. */

export interface HttpAnswer<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export interface MerchantCredentials {
  merchantId: string;
  apiKey: string;
}

export const TEST_TRADE_URL = 'https://steamcommunity.com/tradeoffer/new/?partner=12345678&token=AbCd1234';

export function tradeUrlFor(partner: number): string {
  return `https://steamcommunity.com/tradeoffer/new/?partner=${partner}&token=AbCd1234`;
}

async function send<T>(url: string, init: RequestInit): Promise<HttpAnswer<T>> {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text.length > 0 ? JSON.parse(text) : null;
  } catch {
    // Non-JSON answers stay text so a test can assert on them.
  }
  return { status: response.status, headers: response.headers, body: body as T };
}

export function merchantApi(sandbox: Pick<Sandbox, 'baseUrl'>, credentials: MerchantCredentials) {
  const headers = { 'x-api-key': credentials.apiKey, 'x-merchant-id': credentials.merchantId };
  return {
    get: <T = unknown>(path: string) => send<T>(`${sandbox.baseUrl}${path}`, { headers }),
    post: <T = unknown>(path: string, body: unknown) =>
      send<T>(`${sandbox.baseUrl}${path}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    raw: <T = unknown>(path: string, init: RequestInit) =>
      send<T>(`${sandbox.baseUrl}${path}`, {
        ...init,
        headers: { ...headers, ...(init.headers as Record<string, string>) },
      }),
  };
}

export function adminApi(sandbox: Pick<Sandbox, 'baseUrl' | 'adminToken'>) {
  const headers = { 'x-admin-token': sandbox.adminToken, 'content-type': 'application/json' };
  const call = <T>(method: string, path: string, body?: unknown) =>
    send<T>(`${sandbox.baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return {
    get: <T = unknown>(path: string) =>
      send<T>(`${sandbox.baseUrl}${path}`, { headers: { 'x-admin-token': sandbox.adminToken } }),
    post: <T = unknown>(path: string, body: unknown = {}) => call<T>('POST', path, body),
    patch: <T = unknown>(path: string, body: unknown) => call<T>('PATCH', path, body),
    delete: <T = unknown>(path: string) =>
      send<T>(`${sandbox.baseUrl}${path}`, { method: 'DELETE', headers: { 'x-admin-token': sandbox.adminToken } }),
    async createMerchant(input: Record<string, unknown> = {}): Promise<MerchantCredentials & Record<string, unknown>> {
      const answer = await call<MerchantCredentials & Record<string, unknown>>('POST', '/admin/merchants', input);
      if (answer.status !== 201) throw new Error(`createMerchant: ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer.body;
    },
    async transition(tradeId: string, body: Record<string, unknown>) {
      const answer = await call<Record<string, unknown>>('POST', `/admin/trades/${tradeId}/transition`, body);
      if (answer.status !== 200) throw new Error(`transition: ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer.body;
    },
    async advance(seconds: number) {
      const answer = await call<{ now: string }>('POST', '/admin/clock/advance', { seconds });
      if (answer.status !== 200) throw new Error(`advance: ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer.body;
    },
  };
}

/** The element at `index`, failing the test loudly when it is missing. */
export function at<T>(rows: readonly T[], index = 0): T {
  const row = rows[index];
  if (row === undefined) throw new Error(`expected an element at ${index}, got ${rows.length} rows`);
  return row;
}
