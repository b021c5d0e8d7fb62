import type { IpcEnvelope } from '../../../shared/ipc/contract';
import type { MerchantDeskApi } from '../../../shared/ipc/bridge';
import { getBridge } from '../platform/bridge';

/** A failed engine call, carrying the envelope's code. */
export class IpcCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'IpcCallError';
  }
}

let cached: MerchantDeskApi | null = null;

/** The bridge (Electron preload or web host), resolved once. */
export function api(): MerchantDeskApi {
  cached ??= getBridge();
  return cached;
}

/** Await an engine call and return its value, or throw IpcCallError. */
export async function unwrap<T>(call: Promise<IpcEnvelope<T>>): Promise<T> {
  let envelope: IpcEnvelope<T>;
  try {
    envelope = await call;
  } catch (error) {
    throw new IpcCallError('unavailable', error instanceof Error ? error.message : 'The engine did not answer');
  }
  if (envelope.ok) return envelope.value;
  throw new IpcCallError(envelope.error.code, envelope.error.message);
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : 'Something went wrong';
}
