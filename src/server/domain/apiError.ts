import type { ApiErrorCode } from '../../shared/api';

/** An answer in the spec's `{error, message}` envelope with its HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ApiErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toBody(): { error: string; message: string } {
    return { error: this.code, message: this.message };
  }
}

export const badRequest = (code: ApiErrorCode, message: string) => new ApiError(400, code, message);
export const forbidden = (code: ApiErrorCode, message: string) => new ApiError(403, code, message);

export const UNAUTHORIZED_MESSAGE = 'Invalid API key or Merchant ID';
export const IP_NOT_ALLOWED_MESSAGE = 'Request IP is not allowed';
export const MAINTENANCE_MESSAGE = 'System is under maintenance. Please try again later.';

export const unauthorized = () => new ApiError(401, 'unauthorized', UNAUTHORIZED_MESSAGE);

/** Admin helpers answer 404 in the same envelope for an unknown merchant, item or trade. */
export const notFound = (what: string) => new ApiError(404, 'not_found', `${what} not found`);
