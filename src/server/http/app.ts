import compress from '@fastify/compress';
import { gzipSync } from 'node:zlib';
import type { RateBucket } from '../../shared/api';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { renderItemImage } from '../catalog/svg';
import { SANDBOX_CHOICES } from '../config';
import { ApiError } from '../domain/apiError';
import { acceptsGzip } from '../domain/catalog';
import type { SandboxCore } from '../domain/core';
import type { AdminHooks } from './adminRoutes';
import { registerAdminRoutes } from './adminRoutes';
import { createGuard } from './guard';
import { buildOpenApiDocument } from './openapi';
import { registerPublicRoutes } from './publicRoutes';
import { SlidingWindowRateLimiter } from './rateLimiter';
import { createClientErrorHandler, frameworkErrorAnswer, nodeServerTimeouts, type HttpTimeouts } from './transport';

export const SHUTTING_DOWN_MESSAGE = 'The sandbox is shutting down. Please try again later.';

export interface HttpAppOptions {
  core: SandboxCore;
  adminToken: string;
  hooks: AdminHooks;
  publicUrl: () => string;
  timeouts: HttpTimeouts;
  logger?: boolean;
  onInternalError?: (error: unknown) => void;
  /** Requests a window per bucket; the spec's (RATE_LIMITS) where absent. */
  rateLimits?: Record<RateBucket, number>;
}

/** Maps any failure to the `{error, message}` envelope; never a framework body or a stack trace. */
function toApiError(error: FastifyError | Error): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as FastifyError;
  const status = fastifyError.statusCode;
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || status === 413) {
    return new ApiError(413, 'payload_too_large', `Request body exceeds ${SANDBOX_CHOICES.bodyLimitBytes} bytes`);
  }
  // Request bodies may come compressed (@fastify/compress): gzip, deflate or br, else refused.
  if (fastifyError.code === 'FST_CP_ERR_INVALID_CONTENT_ENCODING') {
    return new ApiError(
      400,
      'invalid_request',
      `${fastifyError.message}; send the body uncompressed or as gzip, deflate or br`,
    );
  }
  if (fastifyError.code === 'FST_CP_ERR_INVALID_CONTENT') {
    return new ApiError(
      400,
      'invalid_request',
      'The request body could not be decompressed as its Content-Encoding says',
    );
  }
  if (fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || status === 415) {
    return new ApiError(400, 'invalid_request', 'Content-Type must be application/json');
  }
  if (status !== undefined && status >= 400 && status < 500) {
    return new ApiError(400, 'invalid_request', `Invalid request: ${fastifyError.message}`);
  }
  return new ApiError(500, 'internal_error', 'Internal server error');
}

/**
 * Sends an error envelope, gzipped when the client accepts it. Done here rather than by the
 * compress plugin, whose hooks do not run for the not-found handler or for errors raised
 * before a route's own hooks (the plugin leaves a body with Content-Encoding alone).
 */
function sendEnvelope(
  request: FastifyRequest,
  reply: FastifyReply,
  body: { error: string; message: string },
): FastifyReply {
  reply.type('application/json; charset=utf-8');
  const json = JSON.stringify(body);
  if (!acceptsGzip(request.headers['accept-encoding'])) return reply.send(json);
  return reply.header('Content-Encoding', 'gzip').header('Vary', 'Accept-Encoding').send(gzipSync(json));
}

export interface HttpApp {
  app: FastifyInstance;
  limiter: SlidingWindowRateLimiter;
}

export async function buildHttpApp(options: HttpAppOptions): Promise<HttpApp> {
  const { core } = options;
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: SANDBOX_CHOICES.bodyLimitBytes,
    // Proxies are not trusted: request.ip is the socket's address.
    trustProxy: false,
    // fastify's own 503 while closing is not the spec's envelope: the hook below answers instead.
    return503OnClosing: false,
    // Slow or silent clients: a 408 envelope (clientErrorHandler), then the connection is closed.
    requestTimeout: options.timeouts.requestMs,
    keepAliveTimeout: options.timeouts.idleMs,
    http: nodeServerTimeouts(options.timeouts),
    // What fails before a route exists (unparsable request, header overflow, bad URL) gets the envelope too.
    clientErrorHandler: createClientErrorHandler(options.timeouts),
    frameworkErrors: (error, request, reply) => {
      const apiError = frameworkErrorAnswer(error);
      void sendEnvelope(request, (reply as FastifyReply).code(apiError.status), apiError.toBody());
    },
  });
  // First, so its hooks cover the not-found handler too.
  // Every answer is gzipped when the client accepts it, however small (spec: "Responses are gzip-compressed").
  await app.register(compress, { global: true, encodings: ['gzip'], threshold: 0 });
  const limiter = new SlidingWindowRateLimiter(() => core.clock.now(), options.rateLimits);

  // JSON only: fastify's text/plain parser would hand a string to the JSON endpoints.
  app.removeContentTypeParser('text/plain');

  // Requests that still arrive while the server closes (pipelined, or on a busy keep-alive connection).
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', async () => {
    if (closing)
      throw new ApiError(503, 'unavailable', SHUTTING_DOWN_MESSAGE, { 'Retry-After': '1', Connection: 'close' });
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error);
    if (apiError.status >= 500 && !(error instanceof ApiError)) options.onInternalError?.(error);
    void sendEnvelope(request, reply.code(apiError.status).headers(apiError.headers), apiError.toBody());
  });
  app.setNotFoundHandler((request, reply) => {
    void sendEnvelope(request, reply.code(404), {
      error: 'not_found',
      message: `No endpoint ${request.method} ${request.url.split('?')[0]}`,
    });
  });

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
