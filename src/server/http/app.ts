import compress from '@fastify/compress';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { renderItemImage } from '../catalog/svg';
import { SANDBOX_CHOICES } from '../config';
import { ApiError } from '../domain/apiError';
import type { SandboxCore } from '../domain/core';
import type { AdminHooks } from './adminRoutes';
import { registerAdminRoutes } from './adminRoutes';
import { createGuard } from './guard';
import { buildOpenApiDocument } from './openapi';
import { registerPublicRoutes } from './publicRoutes';
import { SlidingWindowRateLimiter } from './rateLimiter';

export interface HttpAppOptions {
  core: SandboxCore;
  adminToken: string;
  hooks: AdminHooks;
  publicUrl: () => string;
  logger?: boolean;
  onInternalError?: (error: unknown) => void;
}

/** Maps any failure to the `{error, message}` envelope; never a framework body or a stack trace. */
function toApiError(error: FastifyError | Error): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as FastifyError;
  const status = fastifyError.statusCode;
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || status === 413) {
    return new ApiError(413, 'payload_too_large', `Request body exceeds ${SANDBOX_CHOICES.bodyLimitBytes} bytes`);
  }
  if (fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || status === 415) {
    return new ApiError(400, 'invalid_request', 'Content-Type must be application/json');
  }
  if (status !== undefined && status >= 400 && status < 500) {
    return new ApiError(400, 'invalid_request', `Invalid request: ${fastifyError.message}`);
  }
  return new ApiError(500, 'internal_error', 'Internal server error');
}

export async function buildHttpApp(options: HttpAppOptions): Promise<{ app: FastifyInstance; limiter: SlidingWindowRateLimiter }> {
  const { core } = options;
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: SANDBOX_CHOICES.bodyLimitBytes,
    // Proxies are not trusted: request.ip is the socket's address.
    trustProxy: false,
    return503OnClosing: true,
  });
  const limiter = new SlidingWindowRateLimiter(() => core.clock.now());

  app.setErrorHandler((error: FastifyError, _request, reply) => {
    const apiError = toApiError(error);
    if (apiError.status >= 500 && !(error instanceof ApiError)) options.onInternalError?.(error);
    void reply.code(apiError.status).headers(apiError.headers).type('application/json; charset=utf-8').send(apiError.toBody());
  });
  app.setNotFoundHandler((request, reply) => {
    void reply
      .code(404)
      .type('application/json; charset=utf-8')
      .send({ error: 'not_found', message: `No endpoint ${request.method} ${request.url.split('?')[0]}` });
  });

  await app.register(compress, { global: true, encodings: ['gzip'], threshold: 1024 });

  app.get('/health', async () => ({ status: 'ok', lastUpdate: core.catalog.lastUpdate }));
  app.get('/openapi.json', async () => buildOpenApiDocument(options.publicUrl()));
  app.get('/img/:kind/:file', async (request, reply) => {
    const { kind, file } = request.params as { kind: string; file: string };
    const svg = file.endsWith('.svg') ? renderItemImage(kind, file.slice(0, -4)) : null;
    if (!svg) throw new ApiError(404, 'not_found', 'No such image');
    return reply.type('image/svg+xml').header('Cache-Control', 'public, max-age=86400').send(svg);
  });

  const guard = createGuard(core, limiter);
  await app.register(async (api) => {
    api.addHook('onRequest', guard);
    registerPublicRoutes(api, core);
  });
  registerAdminRoutes(app, core, options.adminToken, options.hooks);
  return { app, limiter };
}
