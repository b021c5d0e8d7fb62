import type { EngineEventBatch, IpcMethod, IpcParsedInput, IpcResult } from '../../../shared/ipc';

/**
 * What a host (the Electron shell or the web host) needs from the engine:
 * handle one validated method call, and stream coalesced event batches.
 */
export interface EngineService {
  handle<M extends IpcMethod>(method: M, input: IpcParsedInput<M>): Promise<IpcResult<M>>;
  subscribe(listener: (batch: EngineEventBatch) => void): () => void;
  /** A finished CSV export's file, for a host that hands it to the page itself (the web host); null: none such. */
  exportFile?(id: string): ExportFile | null;
}

/** An export's file on disk and the name to offer it under. */
export interface ExportFile {
  path: string;
  filename: string;
}

/** A failure the engine means to show as-is (bad state, missing thing); anything else is reported as internal. */
export class EngineError extends Error {
  constructor(
    readonly code: 'not_found' | 'unavailable' | 'invalid_input' | 'conflict',
    message: string,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}
