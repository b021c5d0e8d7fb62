import type { BuyResult, Trade } from '../../../shared/api';
import { toUtcIso } from '../../../shared/time';
import type { ApiRequestError } from '../api';

/** No answer, or one that says nothing about the buy: the trade may or may not exist. */
export function outcomeUnknown(error: ApiRequestError): boolean {
  return (
    error.kind === 'timeout' ||
    error.kind === 'network' ||
    (error.status !== null && error.status >= 500 && error.status !== 503)
  );
}

/** Socket errors raised before a connection exists: the request never left this machine. */
const UNSENT_CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
  ENETUNREACH: 'network unreachable',
  EHOSTUNREACH: 'host unreachable',
  EADDRNOTAVAIL: 'address not available',
};

/** Why nothing was sent, in words, when the error proves the request never left; null otherwise. */
export function notSentReason(error: ApiRequestError): string | null {
  if (error.kind !== 'network') return null;
  const cause: unknown = error.cause;
  const code =
    typeof cause === 'object' && cause !== null && 'code' in cause ? (cause as { code: unknown }).code : null;
  return typeof code === 'string' ? (UNSENT_CAUSES[code] ?? null) : null;
}

/** When the full record cannot be fetched right away, the buy answer is enough to show a PENDING trade. */
export function synthesizePending(result: BuyResult, itemId: number | null): Trade {
  const now = toUtcIso(Date.now());
  return {
    tradeId: result.tradeId,
    externalId: result.externalId,
    status: 'PENDING',
    price: result.price,
    itemId: itemId ?? 0,
    assetId: result.assetId,
    offerId: null,
    tradeUrl: result.tradeUrl,
    market_hash_name: result.market_hash_name,
    phase: result.phase,
    float: result.float,
    webhookStatus: null,
    failReason: null,
    errorCode: null,
    createdAt: now,
    updatedAt: now,
    completedAt: null,
    cancelledAt: null,
    endProtection: null,
    rollbackAt: null,
    stage: 1,
  };
}
