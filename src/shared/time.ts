import { z } from 'zod';

/** UTC ISO 8601 with milliseconds and a trailing Z, the only form the API emits. */
export const UTC_TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export const utcTimestampSchema = z
  .string()
  .regex(UTC_TIMESTAMP_PATTERN, 'expected a UTC ISO 8601 timestamp with milliseconds, e.g. 2026-01-02T03:04:05.678Z')
  .refine((value) => !Number.isNaN(Date.parse(value)), 'not a real date');

/**
 * Accepted in queries: ISO 8601 in UTC, with or without milliseconds
 * (`2026-01-02T03:04:05Z` or `2026-01-02T03:04:05.678Z`).
 */
export const QUERY_TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

export function isValidQueryTimestamp(value: string): boolean {
  if (!QUERY_TIMESTAMP_PATTERN.test(value)) return false;
  const ms = Date.parse(value);
  // Date.parse rolls 2026-02-31 over into March; round-tripping the date part catches that.
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === value.slice(0, 10);
}

export function toUtcIso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

export function fromUtcIso(value: string): number {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new RangeError(`not an ISO 8601 timestamp: ${value}`);
  return ms;
}

export const SECOND_MS = 1000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;
