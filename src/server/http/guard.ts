import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateBucket } from '../../shared/api';
import { ENDPOINTS } from '../../shared/api';
import { ApiError, IP_NOT_ALLOWED_MESSAGE, MAINTENANCE_MESSAGE, unauthorized } from '../domain/apiError';
import type { SandboxCore } from '../domain/core';
import { IpAllowlist } from './ipAllowlist';
import type { SlidingWindowRateLimiter } from './rateLimiter';

/** Seconds a client is told to wait while maintenance is on. */
const MAINTENANCE_RETRY_AFTER_SECONDS = 60;

const bucketByPath = new Map<string, RateBucket>(Object.values(ENDPOINTS).map((e) => [e.path, e.bucket]));

function singleHeader(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Runs before every public endpoint, in this order: maintenance (503), credentials (401), IP allowlist
 * (403), rate limit (429). Each refusal is the spec's `{error, message}` envelope. Wrong credentials are
 * answered 401 every time and slow nobody down: a merchant whose key is right is never refused for
 * another client's failures, whatever address they share (docs/sandbox.md, "Authentication").
 */
export function createGuard(core: SandboxCore, limiter: SlidingWindowRateLimiter) {
  const allowlist = new IpAllowlist();
  return async function guard(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (core.maintenance) {
      throw new ApiError(503, 'maintenance', MAINTENANCE_MESSAGE, {
        'Retry-After': String(MAINTENANCE_RETRY_AFTER_SECONDS),
      });
    }
    const merchant = core.merchants.authenticate(
      singleHeader(request, 'x-merchant-id'),
      singleHeader(request, 'x-api-key'),
    );
    if (!merchant) throw unauthorized();
    if (core.seedingHistory.has(merchant.merchantId)) {
      // Its ledger and trades are being written; a buy meanwhile would break the balance chain.
      throw new ApiError(503, 'unavailable', "The merchant's history is being seeded. Please try again later.", {
        'Retry-After': '5',
      });
    }
    if (!(await allowlist.allows(merchant.ipAllowlist, request.ip))) {
      throw new ApiError(403, 'ip_not_allowed', IP_NOT_ALLOWED_MESSAGE);
    }
    const path = request.routeOptions.url ?? request.url.split('?')[0] ?? '';
    const decision = limiter.take(merchant.merchantId, bucketByPath.get(path) ?? 'default');
    const resetSeconds = Math.ceil(decision.resetMs / 1000);
    reply.header('X-RateLimit-Limit', decision.limit);
    reply.header('X-RateLimit-Remaining', decision.remaining);
    reply.header('X-RateLimit-Reset', resetSeconds);
    if (!decision.allowed) {
      throw new ApiError(429, 'rate_limited', 'Rate limit exceeded', {
        'Retry-After': String(Math.max(1, resetSeconds)),
      });
    }
    request.merchant = merchant;
  };
}
