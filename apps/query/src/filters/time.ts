import * as v from 'valibot';
import { ApiError } from '@aos/http';

/**
 * The times a read may name. Spans carry OTLP's unsigned nanoseconds since the epoch, so
 * nothing starts before 1970; the engine's DateTime64(9) columns end in April 2262, and a
 * window reaching past that overflows the engine's conversion instead of matching nothing.
 */
export const EARLIEST_TIME_MS = 0;
export const LATEST_TIME_MS = Date.UTC(2262, 0, 1);
export const TIME_RANGE_TEXT = `${new Date(EARLIEST_TIME_MS).toISOString()} to ${new Date(LATEST_TIME_MS).toISOString()}`;

/** A point in time as a query parameter: ISO 8601 (`2026-01-01T00:00:00Z`) or epoch milliseconds, within the range above. */
export const timeParam = v.pipe(
  v.string(),
  v.transform((s) => (/^\d{10,16}$/.test(s) ? Number(s) : Date.parse(s))),
  v.number(),
  v.check((n) => Number.isFinite(n), 'must be an ISO 8601 time or epoch milliseconds'),
  v.check((n) => n >= EARLIEST_TIME_MS && n <= LATEST_TIME_MS, `must be between ${TIME_RANGE_TEXT}`),
);

/** With no startTime, reads look back this far from endTime. */
const DEFAULT_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * The window of a read from its parsed `startTime` / `endTime`: endTime defaults to now,
 * startTime to a week before it (not before the earliest time); 400 unless start < end.
 */
export function readWindow(startTime: number | undefined, endTime: number | undefined, now = Date.now()): { startTimeMs: number; endTimeMs: number } {
  const endTimeMs = endTime ?? now;
  const startTimeMs = startTime ?? Math.max(EARLIEST_TIME_MS, endTimeMs - DEFAULT_WINDOW_MS);
  if (startTimeMs >= endTimeMs) {
    throw new ApiError('invalid_request', 'startTime must be before endTime', [{ field: 'startTime', message: 'must be before endTime' }]);
  }
  return { startTimeMs, endTimeMs };
}
