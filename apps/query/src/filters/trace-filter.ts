import * as v from 'valibot';
import type { ApiKeyRecord, TraceFilter } from '@aos/storage';
import { ApiError, parseOrThrow, projectFor } from '@aos/http';
import { timeParam } from './time.ts';

/** With no startTime, lists look back this far from endTime. */
const DEFAULT_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

/** The query parameters of the trace filter. Every endpoint that takes "a filter" accepts these. */
export const TRACE_FILTER_PARAMS = ['startTime', 'endTime', 'projectId'] as const;

const traceFilterSchema = v.object({
  startTime: v.optional(timeParam),
  endTime: v.optional(timeParam),
  projectId: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
});

/** Parses and checks the trace filter once, scoped to the key's project. */
export function parseTraceFilter(query: Record<string, unknown>, key: ApiKeyRecord, now = Date.now()): TraceFilter {
  const picked = Object.fromEntries(TRACE_FILTER_PARAMS.filter((k) => k in query).map((k) => [k, query[k]]));
  const parsed = parseOrThrow(traceFilterSchema, picked, 'filter');
  const endTimeMs = parsed.endTime ?? now;
  const startTimeMs = parsed.startTime ?? endTimeMs - DEFAULT_WINDOW_MS;
  if (startTimeMs >= endTimeMs) {
    throw new ApiError('invalid_request', 'startTime must be before endTime', [
      { field: 'startTime', message: 'must be before endTime' },
    ]);
  }
  return { projectId: projectFor(key, parsed.projectId), startTimeMs, endTimeMs };
}
