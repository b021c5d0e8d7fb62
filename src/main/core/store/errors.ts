// Errors of the local store: they cross the worker boundary as data and are rebuilt as the same class and code.

/**
 * `version`: a newer (or early pre-release) file, refused untouched; `corrupt`: damaged or not a database, nothing
 * deleted; `read_only`: the file or its folder cannot be written; `conflict`, `not_found`: a record call refused its
 * input (a taken name, an unknown id), the message says which.
 */
export type StoreErrorCode =
  'version' | 'corrupt' | 'read_only' | 'closed' | 'worker' | 'sync' | 'conflict' | 'not_found' | 'internal';

/** `file`: the database file, when the error is about one. */
export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    readonly file: string | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
  override name = 'StoreError';
}

export const closedError = () => new StoreError('closed', 'The local store is closed.');

export type CatalogSyncFailure = 'aborted' | 'network' | 'protocol' | 'busy';

/** A catalog sync that did not complete; the previous catalog is kept as it was. */
export class CatalogSyncError extends StoreError {
  constructor(
    readonly reason: CatalogSyncFailure,
    message: string,
  ) {
    super('sync', message);
    this.name = reason === 'aborted' ? 'AbortError' : 'CatalogSyncError';
  }
}

export function versionError(file: string, fileVersion: number, appVersion: number, reason?: string): StoreError {
  const message =
    reason === undefined
      ? `The local database ${file} was created by a newer Merchant Desk (schema ${fileVersion} > ${appVersion}). Update Merchant Desk to open it; the file was left untouched.`
      : `The local database ${file} has schema ${fileVersion}, ${reason}; the file was left untouched.`;
  return new StoreError('version', message, file);
}

export function readOnlyError(file: string, detail: string): StoreError {
  return new StoreError(
    'read_only',
    `The local database ${file} cannot be written (${detail}). Check the permissions of the file and its folder.`,
    file,
  );
}

export interface SerializedStoreError {
  message: string;
  code: StoreErrorCode;
  file: string | null;
  reason?: CatalogSyncFailure;
  stack?: string;
}

export function serializeError(error: unknown): SerializedStoreError {
  if (error instanceof CatalogSyncError)
    return { message: error.message, code: error.code, file: null, reason: error.reason };
  if (error instanceof StoreError) return { message: error.message, code: error.code, file: error.file };
  const err = error instanceof Error ? error : new Error(String(error));
  const sqliteCode = (err as { code?: unknown }).code;
  return {
    message: typeof sqliteCode === 'string' ? `${sqliteCode}: ${err.message}` : err.message,
    code: 'internal',
    file: null,
    ...(err.stack ? { stack: err.stack } : {}),
  };
}

/** The error a worker sent, as the class it was thrown as; an unexpected one names the method and keeps the worker's stack. */
export function deserializeError(data: SerializedStoreError, method?: string): Error {
  if (data.code === 'sync') return new CatalogSyncError(data.reason ?? 'protocol', data.message);
  if (data.code !== 'internal') return new StoreError(data.code, data.message, data.file);
  const error = new StoreError('internal', method ? `${method}: ${data.message}` : data.message);
  if (data.stack)
    error.stack = `${error.name}: ${error.message}\n    (in the store worker)\n${data.stack.split('\n').slice(1).join('\n')}`;
  return error;
}

/** Maps SQLite's error codes on a given file to the typed errors above, or returns the error as it is. */
export function classifySqliteError(error: unknown, file: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return error;
  const detail = `${code}: ${error instanceof Error ? error.message : String(error)}`;
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return new StoreError(
      'corrupt',
      `The local database ${file} is damaged or is not a Merchant Desk database (${detail}). It was left untouched; move it aside to start with a fresh cache.`,
      file,
    );
  }
  if (
    code.startsWith('SQLITE_READONLY') ||
    code === 'SQLITE_CANTOPEN' ||
    code === 'SQLITE_PERM' ||
    code === 'SQLITE_AUTH'
  )
    return readOnlyError(file, detail);
  return error;
}
