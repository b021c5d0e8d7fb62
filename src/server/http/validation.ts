import type { z } from 'zod';
import type { RequestCheck } from '../../shared/api';
import { firstFailedCheck } from '../../shared/api';
import { ApiError, badRequest } from '../domain/apiError';

/** A zod failure as one readable line: `price: Invalid input: expected int, received string`. */
export function describeIssues(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'Invalid request';
  const path = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more)` : '';
  return `${path}${issue.message}${more}`;
}

/** Parses input with a schema; failure is the spec's 400 `invalid_request`. */
export function parseOrReject<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw badRequest('invalid_request', `Invalid ${what}: ${describeIssues(result.error)}`);
  return result.data;
}

/** Shape first (invalid_request), then the ordered value checks, each with its own code. */
export function parseChecked<S extends z.ZodType>(
  shape: S,
  checks: readonly RequestCheck<z.output<S>>[],
  input: unknown,
): z.output<S> {
  const body = parseOrReject(shape, input, 'request');
  const failed = firstFailedCheck(checks, body);
  if (failed) throw new ApiError(400, failed.code, failed.message);
  return body;
}
