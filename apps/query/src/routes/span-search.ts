import { Hono } from 'hono';
import * as v from 'valibot';
import { ApiError, parseOrThrow, projectFor, queryParams, type AuthEnv } from '@aos/http';
import { SPAN_QUALITY_FLAGS, SPAN_TYPES, TRACE_TREE_QUALITY_FLAGS } from '@aos/domain';
import { searchSpans, type SpanSearchFilter, type Storage } from '@aos/storage';
import { definedOnly } from '../filters/defined-only.ts';
import { decodeKeyCursor, encodeKeyCursor, limitParam } from '../filters/pagination.ts';
import { timeParam } from '../filters/time.ts';

const DEFAULT_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;
const SINGLE = [
  'startTime', 'endTime', 'projectId', 'name', 'type', 'kind', 'status', 'model', 'provider', 'tool', 'traceId',
  'sessionId', 'userId', 'minDuration', 'maxDuration', 'minCost', 'maxCost', 'search', 'limit', 'cursor',
] as const;
const REPEATED = ['qualityFlag', 'attribute'] as const;

const text = v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(500, 'must be at most 500 characters'));
const number = v.pipe(v.string(), v.minLength(1, 'must be a number'), v.transform(Number), v.number(), v.check((n: number) => Number.isFinite(n), 'must be a number'), v.minValue(0, 'must not be negative'));
const STORED_FLAGS = SPAN_QUALITY_FLAGS.filter((f) => !(TRACE_TREE_QUALITY_FLAGS as readonly string[]).includes(f));

const searchSchema = v.object({
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
  limit: limitParam(50),
  cursor: v.optional(v.string()),
});

/** GET /traces/spans: spans across traces, newest first. */
export function spanSearchRoutes(deps: { storage: Storage }) {
  const app = new Hono<AuthEnv>();
  app.get('/', async (c) => {
    const query = parseOrThrow(searchSchema, queryParams(c.req.url, { single: SINGLE, repeated: REPEATED }), 'span search');
    const endTimeMs = query.endTime ?? Date.now();
    const startTimeMs = query.startTime ?? endTimeMs - DEFAULT_WINDOW_MS;
    if (startTimeMs >= endTimeMs) {
      throw new ApiError('invalid_request', 'startTime must be before endTime', [{ field: 'startTime', message: 'must be before endTime' }]);
    }
    const filter: SpanSearchFilter = {
      projectId: projectFor(c.var.apiKey, query.projectId),
      startTimeMs,
      endTimeMs,
      ...definedOnly({
        name: query.name, type: query.type, kind: query.kind, status: query.status, model: query.model,
        provider: query.provider, tool: query.tool, traceId: query.traceId, sessionId: query.sessionId,
        userId: query.userId, minDurationMs: query.minDuration, maxDurationMs: query.maxDuration,
        minCost: query.minCost, maxCost: query.maxCost, search: query.search, qualityFlags: query.qualityFlag,
      }),
      ...(query.attribute ? { attributes: query.attribute.map(splitAttribute) } : {}),
    };
    const after = query.cursor === undefined ? undefined : decodeKeyCursor(query.cursor, { startNs: NANOS, traceId: ANY, spanId: ANY });
    const result = await searchSpans(deps.storage, filter, { limit: query.limit, ...(after ? { after } : {}) });
    return c.json({
      data: result.spans,
      nextCursor: result.next ? encodeKeyCursor(result.next) : null,
    });
  });
  return app;
}

function splitAttribute(pair: string): { key: string; value: string } {
  const at = pair.indexOf(':');
  return { key: pair.slice(0, at), value: pair.slice(at + 1) };
}

const ANY = /^/;
const NANOS = /^\d+$/;
