import * as v from 'valibot';
import { parseOrThrow, projectFor } from '@aos/http';
import { SPAN_QUALITY_FLAGS, SPAN_TYPES, TRACE_TREE_QUALITY_FLAGS } from '@aos/domain';
import type { ApiKeyRecord, SpanFilter } from '@aos/storage';
import { definedOnly } from './defined-only.ts';
import { numberParam } from './number.ts';
import { readWindow, timeParam } from './time.ts';

/**
 * The span search filter: `GET /traces/spans` parameters, and the span filter of span
 * evaluators, parsed by the same schema.
 */
export const SPAN_FILTER_PARAMS = [
  'startTime', 'endTime', 'projectId', 'name', 'type', 'kind', 'status', 'model', 'provider', 'tool', 'traceId',
  'sessionId', 'userId', 'minDuration', 'maxDuration', 'minCost', 'maxCost', 'search',
] as const;
export const SPAN_FILTER_REPEATED_PARAMS = ['qualityFlag', 'attribute'] as const;

const text = v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(500, 'must be at most 500 characters'));
const number = v.pipe(numberParam, v.minValue(0, 'must not be negative'));
const STORED_FLAGS = SPAN_QUALITY_FLAGS.filter((f) => !(TRACE_TREE_QUALITY_FLAGS as readonly string[]).includes(f));

export const spanFilterSchema = v.object({
  startTime: v.optional(timeParam),
  endTime: v.optional(timeParam),
  projectId: v.optional(text),
  name: v.optional(text),
  type: v.optional(v.picklist(SPAN_TYPES, `must be one of ${SPAN_TYPES.join(', ')}`)),
  kind: v.optional(v.picklist(['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'], 'must be an OpenTelemetry span kind')),
  status: v.optional(v.picklist(['ok', 'error', 'unset'], 'must be ok, error or unset')),
  model: v.optional(text),
  provider: v.optional(text),
  tool: v.optional(text),
  traceId: v.optional(v.pipe(v.string(), v.toLowerCase(), v.regex(/^[0-9a-f]{32}$/, 'must be 32 hex characters'))),
  sessionId: v.optional(text),
  userId: v.optional(text),
  minDuration: v.optional(number),
  maxDuration: v.optional(number),
  minCost: v.optional(number),
  maxCost: v.optional(number),
  search: v.optional(text),
  qualityFlag: v.optional(v.array(v.picklist(STORED_FLAGS, `must be one of ${STORED_FLAGS.join(', ')}`))),
  attribute: v.optional(v.array(v.pipe(v.string(), v.regex(/^[^:]+:.*$/, 'must be key:value')))),
});

/** Parses the span filter, scoped to the key's project; `what` names it in errors. */
export function parseSpanFilter(query: Record<string, unknown>, key: ApiKeyRecord, what = 'span search', now = Date.now()): SpanFilter {
  const names = [...SPAN_FILTER_PARAMS, ...SPAN_FILTER_REPEATED_PARAMS];
  const picked = Object.fromEntries(names.filter((k) => k in query).map((k) => [k, query[k]]));
  const parsed = parseOrThrow(spanFilterSchema, picked, what);
  const { startTimeMs, endTimeMs } = readWindow(parsed.startTime, parsed.endTime, now);
  return {
    projectId: projectFor(key, parsed.projectId),
    startTimeMs,
    endTimeMs,
    ...definedOnly({
      name: parsed.name, type: parsed.type, kind: parsed.kind, status: parsed.status, model: parsed.model,
      provider: parsed.provider, tool: parsed.tool, traceId: parsed.traceId, sessionId: parsed.sessionId,
      userId: parsed.userId, minDurationMs: parsed.minDuration, maxDurationMs: parsed.maxDuration,
      minCost: parsed.minCost, maxCost: parsed.maxCost, search: parsed.search, qualityFlags: parsed.qualityFlag,
    }),
    ...(parsed.attribute ? { attributes: parsed.attribute.map(splitAttribute) } : {}),
  };
}

function splitAttribute(pair: string): { key: string; value: string } {
  const at = pair.indexOf(':');
  return { key: pair.slice(0, at), value: pair.slice(at + 1) };
}
