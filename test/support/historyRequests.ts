// What a request seen at a fault proxy is, for the tests of a new cache's first fill: one streamed answer of the last
// 14 days (`isActive=true`), then the older history's pages.
import type { FaultProxy } from './faultProxy';

/** A Trades/History request of the new cache's fill (what is older than the window): a `to`, no `from`, no other filter. */
export function fillQuery(path: string): URLSearchParams | null {
  if (!path.startsWith('/Trades/History?')) return null;
  const params = new URLSearchParams(path.slice(path.indexOf('?') + 1));
  const filtered = ['from', 'status', 'tradeId', 'webhookStatus', 'externalId', 'isActive'].some((k) => params.has(k));
  return params.has('to') && !filtered ? params : null;
}

/** The fill's pages the proxy saw (from its `since`th request on). */
export const fillRequests = (proxy: FaultProxy, since = 0): URLSearchParams[] =>
  proxy.requests.slice(since).flatMap((request) => fillQuery(request.path) ?? []);

/** The one streamed answer of the last 14 days. */
export const isWindowRequest = (path: string): boolean => /^\/Trades\/History\?(.*&)?isActive=true/.test(path);

/** The window requests the proxy saw (from its `since`th request on). */
export const windowRequests = (proxy: FaultProxy, since = 0): number =>
  proxy.requests.slice(since).filter((request) => isWindowRequest(request.path)).length;
