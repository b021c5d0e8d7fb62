/**
 * Errors of the local store. They cross the worker boundary as plain data
 * (`SerializedStoreError`) and are rebuilt on the host side, so callers can
 * `instanceof`-check them no matter which thread failed.
 */

/** `conflict` and `not_found`: a record call refused its input (a taken name, an unknown id); the message says which. */
export type StoreErrorCode = 'version' | 'corrupt' | 'read_only' | 'closed' | 'worker' | 'sync' | 'conflict' | 'not_found' | 'internal';

export class StoreError extends Error {
  readonly code: StoreErrorCode;
  /** The database file, when the error is about one. */
  readonly file: string | null;

  constructor(code: StoreErrorCode, message: string, file: string | null = null, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreError';
    this.code = code;
    this.file = file;
  }
}

/** The file was written by a newer Merchant Desk: we refuse to touch it. */
export class StoreVersionError extends StoreError {
  constructor(
    file: string,
    readonly fileVersion: number,
    readonly appVersion: number,
    /** Why a version this build cannot read (default: a newer Merchant Desk's). */
    reason?: string,
  ) {
    super(
      'version',
      reason === undefined
        ? `The local database ${file} was created by a newer Merchant Desk (schema ${fileVersion} > ${appVersion}). ` +
            'Update Merchant Desk to open it; the file was left untouched.'
        : `The local database ${file} has schema ${fileVersion}, ${reason}; the file was left untouched.`,
      file,
    );
    this.name = 'StoreVersionError';
  }
}

/** SQLITE_CORRUPT / SQLITE_NOTADB: the file is damaged or not a database. Nothing is deleted. */
export class StoreCorruptError extends StoreError {
  constructor(file: string, detail: string) {
    super(
      'corrupt',
      `The local database ${file} is damaged or is not a Merchant Desk database (${detail}). ` +
        'It was left untouched; move it aside to start with a fresh cache.',
      file,
    );
    this.name = 'StoreCorruptError';
  }
}

/** The file or its folder cannot be written. */
export class StoreReadOnlyError extends StoreError {
  constructor(file: string, detail: string) {
    super(
      'read_only',
      `The local database ${file} cannot be written (${detail}). Check the permissions of the file and its folder.`,
      file,
    );
    this.name = 'StoreReadOnlyError';
  }
}

export class StoreClosedError extends StoreError {
  constructor(message = 'The local store is closed.') {
    super('closed', message);
    this.name = 'StoreClosedError';
  }
}

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

export interface SerializedStoreError {
  name: string;
  message: string;
  code: StoreErrorCode;
  file: string | null;
  fileVersion?: number;
  appVersion?: number;
  reason?: CatalogSyncFailure;
  /** SQLite's code (SQLITE_BUSY, ...) for internal errors. */
  sqliteCode?: string;
  stack?: string;
}

export function serializeError(error: unknown): SerializedStoreError {
  if (error instanceof StoreVersionError) {
    return { name: error.name, message: error.message, code: error.code, file: error.file, fileVersion: error.fileVersion, appVersion: error.appVersion };
  }
  if (error instanceof CatalogSyncError) {
    return { name: error.name, message: error.message, code: error.code, file: null, reason: error.reason };
  }
  if (error instanceof StoreError) return { name: error.name, message: error.message, code: error.code, file: error.file };
  const err = error instanceof Error ? error : new Error(String(error));
  const sqliteCode = (err as { code?: unknown }).code;
  return {
    name: err.name,
    message: err.message,
    code: 'internal',
    file: null,
    ...(typeof sqliteCode === 'string' ? { sqliteCode } : {}),
    ...(err.stack ? { stack: err.stack } : {}),
  };
}

export function deserializeError(data: SerializedStoreError, method?: string): Error {
  switch (data.code) {
    case 'version': {
      const error = new StoreVersionError(data.file ?? '?', data.fileVersion ?? 0, data.appVersion ?? 0);
      Object.defineProperty(error, 'message', { value: data.message });
      return error;
    }
    case 'corrupt': {
      const error = new StoreCorruptError(data.file ?? '?', '');
      Object.defineProperty(error, 'message', { value: data.message });
      return error;
    }
    case 'read_only': {
      const error = new StoreReadOnlyError(data.file ?? '?', '');
      Object.defineProperty(error, 'message', { value: data.message });
      return error;
    }
    case 'closed':
      return new StoreClosedError(data.message);
    case 'sync':
      return new CatalogSyncError(data.reason ?? 'protocol', data.message);
    case 'conflict':
    case 'not_found':
      return new StoreError(data.code, data.message);
    default: {
      const error = new StoreError(data.code, method ? `${method}: ${data.message}` : data.message, data.file);
      if (data.sqliteCode) Object.defineProperty(error, 'sqliteCode', { value: data.sqliteCode, enumerable: true });
      if (data.stack) error.stack = `${error.name}: ${error.message}\n    (in the store worker)\n${data.stack.split('\n').slice(1).join('\n')}`;
      return error;
    }
  }
}

/** Maps SQLite's error codes on a given file to the typed errors above, or returns the error as it is. */
export function classifySqliteError(error: unknown, file: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (typeof code !== 'string') return error;
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') return new StoreCorruptError(file, `${code}: ${message}`);
  if (code.startsWith('SQLITE_READONLY') || code === 'SQLITE_CANTOPEN' || code === 'SQLITE_PERM' || code === 'SQLITE_AUTH') {
    return new StoreReadOnlyError(file, `${code}: ${message}`);
  }
  return error;
}
