// The page's download of a finished CSV export: `GET /exports/:id` with the bridge's token as a bearer credential
// (`Authorization: Bearer <token>`, checked as the bridge's upgrade checks it; a one-time code is not accepted).
// The file is the one the engine registered under that id: the URL names no path, so none can lead out of the
// engine's exports folder.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import type { ExportFile } from '../main/core/ipc/engineService';
import type { BridgeCredentials } from './bridgeAuth';

export const EXPORTS_PATH = '/exports';
/** An export id is a UUID. */
const EXPORT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface ExportDownloadsOptions {
  credentials: BridgeCredentials;
  /** The engine's finished export of this id, or null. */
  fileOf: (id: string) => ExportFile | null;
}

function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer ([A-Za-z0-9._~-]{1,512})$/.exec(header ?? '');
  return match?.[1] ?? null;
}

export function registerExportDownloads(app: FastifyInstance, { credentials, fileOf }: ExportDownloadsOptions): void {
  app.get<{ Params: { id: string } }>(`${EXPORTS_PATH}/:id`, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const token = bearerToken(request.headers.authorization);
    const verdict = credentials.check(token === null ? null : { token });
    if (!verdict.ok)
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer')
        .type('text/plain; charset=utf-8')
        .send(token === null ? 'unauthorized: the bridge token is required' : verdict.reason);
    const file = EXPORT_ID.test(request.params.id) ? fileOf(request.params.id) : null;
    const size = file
      ? await stat(file.path).then(
          (info) => (info.isFile() ? info.size : null),
          () => null,
        )
      : null;
    if (!file || size === null)
      return reply.code(404).type('text/plain; charset=utf-8').send('Not Found: no finished export has this id');
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-length', String(size))
      .header('content-disposition', `attachment; filename="${file.filename.replace(/[^A-Za-z0-9._-]/g, '_')}"`)
      .send(createReadStream(file.path));
  });
}
