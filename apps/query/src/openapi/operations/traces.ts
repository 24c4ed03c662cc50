import * as v from 'valibot';
import { EXPORT_FORMATS } from '@aos/storage';
import { TRACE_FLAGS } from '@aos/domain';
import { exportParamsSchema } from '../../exports/export-request.ts';
import { pageSchema } from '../../filters/pagination.ts';
import { spanFilterSchema } from '../../filters/span-filter.ts';
import { traceFilterSchema } from '../../filters/trace-filter.ts';
import { listParamsSchema as exportListSchema } from '../../routes/traces/exports.ts';
import { pageSchema as spanPageSchema } from '../../routes/traces/spans/index.ts';
import { timeseriesSchema } from '../../routes/traces/timeseries.ts';
import { queryParametersOf, type JsonSchema } from '../json-schema.ts';
import { projectIdParam, type Operation } from '../operation.ts';
import { anyObject, count, list, nullableText, nullableTime, page, score, text, textMap, time, usd } from '../shared-schemas.ts';

const traceFlags = v.nullable(v.array(v.picklist(TRACE_FLAGS)));

/** Tokens (input includes cached, output includes reasoning) and cost, of a span or summed over a trace. */
const usage = {
  inputTokens: count,
  outputTokens: count,
  totalTokens: count,
  cachedInputTokens: count,
  reasoningTokens: count,
  cost: usd,
};

/** A trace and its figures, as a session lists it. */
export const trace = v.object({
  traceId: text,
  name: text,
  startTime: time,
  endTime: time,
  durationMs: v.number(),
  status: v.picklist(['ok', 'error', 'unset']),
  spanCount: count,
  errorCount: count,
  ...usage,
  sessionId: nullableText,
  userId: nullableText,
  environment: nullableText,
  serviceName: nullableText,
  platform: nullableText,
  models: v.array(text),
  flaggedSpanCount: count,
  maskedSpanCount: count,
  input: text,
  output: text,
});

/** A row of the trace list: previews of input and output, and its trace flags (null until judged). */
export const traceListItem = v.object({ projectId: text, ...trace.entries, flags: traceFlags });

const spanFields = {
  spanId: text,
  parentSpanId: nullableText,
  name: text,
  kind: text,
  type: text,
  startTime: time,
  endTime: time,
  durationMs: v.number(),
  status: v.picklist(['ok', 'error', 'unset']),
  statusMessage: text,
  serviceName: text,
  model: nullableText,
  provider: nullableText,
  ...usage,
  costSource: nullableText,
  toolName: nullableText,
  agentName: nullableText,
  timeToFirstTokenMs: v.nullable(v.number()),
  qualityFlags: v.array(text),
  maskedRules: v.array(text),
};

/** A span as the tree of a trace shows it, with its children. */
export const spanNode = v.object({
  ...spanFields,
  children: v.array(v.lazy((): v.GenericSchema => spanNode)),
});

export const traceDetail = v.object({
  projectId: text,
  ...trace.entries,
  flags: traceFlags,
  flagDetails: v.nullable(textMap),
  spans: v.array(spanNode),
});

/** A row of GET /traces/spans. */
export const spanListItem = v.object({ ...spanFields, traceId: text });

const messagePart = v.pipe(
  v.looseObject({ type: v.picklist(['text', 'reasoning', 'tool_call', 'tool_call_response', 'uri', 'file', 'blob']) }),
  v.description('A part of a message: text, reasoning, a tool call or its response, media by reference, or inline media replaced by its size'),
);
const message = v.object({
  role: v.picklist(['system', 'user', 'assistant', 'tool']),
  parts: v.array(messagePart),
  name: v.optional(text),
  finishReason: v.optional(text),
});

export const spanDetail = v.object({
  projectId: text,
  ...spanFields,
  traceId: text,
  environment: nullableText,
  platform: nullableText,
  scope: v.object({ name: text, version: text }),
  input: text,
  output: text,
  inputMessages: v.array(message),
  outputMessages: v.array(message),
  systemInstructions: v.array(messagePart),
  sessionId: nullableText,
  userId: nullableText,
  toolArguments: nullableText,
  toolCallId: nullableText,
  attributes: textMap,
  resourceAttributes: textMap,
  dimensions: textMap,
  events: v.array(v.looseObject({ name: text })),
  links: v.array(v.unknown()),
});

const quantile = v.nullable(v.number());
export const traceSummary = v.object({
  traceCount: count,
  spanCount: count,
  errorCount: count,
  errorRate: v.number(),
  sessionCount: count,
  userCount: count,
  latencyMs: v.object({ p50: quantile, p90: quantile, p95: quantile, p99: quantile }),
  cost: v.object({ total: usd, mean: v.nullable(usd) }),
  tokens: v.object({ input: count, output: count, total: count, cachedInput: count, reasoning: count }),
  flaggedSpanCount: count,
  maskedSpanCount: count,
  maskedRuleCounts: v.record(v.string(), count),
  flaggedTraceCount: count,
  traceFlagCounts: v.record(v.string(), count),
  window: v.object({ startTime: time, endTime: time }),
});

const sessionFields = {
  sessionId: text,
  firstActivity: time,
  lastActivity: time,
  traceCount: count,
  durationMs: v.number(),
  cost: usd,
  inputTokens: count,
  outputTokens: count,
  totalTokens: count,
  errorCount: count,
  users: v.array(text),
};

export const sessionListItem = v.object({ projectId: text, ...sessionFields });

export const sessionDetail = v.object({
  projectId: text,
  ...sessionFields,
  traces: v.array(trace),
  tracesTruncated: v.boolean(),
  scores: v.array(score),
  scoresTruncated: v.boolean(),
});

export const timeseries = v.object({
  measure: text,
  intervalSeconds: v.number(),
  groupBy: nullableText,
  series: v.array(v.object({ group: nullableText, points: v.array(v.object({ time: time, value: v.nullable(v.number()) })) })),
});

const queryField = v.object({ name: text, type: text, operators: v.array(text), description: text, example: text });

export const exportRecord = v.object({
  id: text,
  projectId: text,
  keyId: text,
  kind: v.picklist(['traces', 'spans']),
  format: v.picklist(EXPORT_FORMATS),
  filter: anyObject,
  status: v.picklist(['running', 'completed', 'failed']),
  rows: count,
  bytes: count,
  error: nullableText,
  startedAt: time,
  finishedAt: nullableTime,
});

/** What each trace filter parameter does (docs/api.md, "Traces"). */
export const TRACE_FILTER_DESCRIPTIONS: Record<string, string> = {
  startTime: 'ISO 8601 or epoch milliseconds; default: 7 days before endTime. A trace belongs to the window its first span starts in.',
  endTime: 'ISO 8601 or epoch milliseconds; default: now.',
  projectId: "Must be the key's project when given.",
  environment: 'deployment.environment.name of the trace',
  status: 'a trace is error when any span failed',
  sessionId: 'traces with a span of this session',
  userId: 'traces with a span of this user',
  platform: 'the instrumentation that produced a span',
  search: 'case-insensitive text in span names, inputs and outputs',
  query: 'an expression of the query language (docs/query-language.md)',
  scoreName: 'traces carrying a score of this name on the trace or a span',
  scoreMin: 'with scoreName: lowest value (numbers, booleans as 0/1)',
  scoreMax: 'with scoreName: highest value',
  scoreLabel: 'with scoreName: the label',
  flag: 'a trace flag; repeat for several, all must hold',
  dim: 'key:value of one of the project\'s dimensions; repeat for several, all must hold',
};

const traceFilter = queryParametersOf(traceFilterSchema, TRACE_FILTER_DESCRIPTIONS);
const exportContent: Record<string, { schema: JsonSchema }> = {
  'text/csv': { schema: { type: 'string' } },
  'application/x-ndjson': { schema: { type: 'string', description: 'one JSON object per line' } },
};
const TRACE_ID = 'trace id: 32 hex characters';

export const traceOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/traces',
    summary: 'Traces in a window, newest first',
    scope: 'read',
    query: [...traceFilter, ...queryParametersOf(pageSchema)],
    responses: { 200: { description: 'A page of traces (inputs and outputs as 1,000-character previews)', json: page(traceListItem) } },
  },
  {
    method: 'get',
    path: '/api/v1/traces/summary',
    summary: 'Counts, error rate, latency percentiles, cost, tokens, flagged and masked spans of the filtered traces',
    scope: 'read',
    query: traceFilter,
    responses: { 200: { description: 'The summary', json: traceSummary } },
  },
  {
    method: 'get',
    path: '/api/v1/traces/timeseries',
    summary: 'A measure per time bucket, optionally per group',
    scope: 'read',
    query: [...traceFilter, ...queryParametersOf(timeseriesSchema)],
    responses: { 200: { description: 'Every bucket of the window: 0 for counts and sums, null where there is nothing to average', json: timeseries } },
  },
  {
    method: 'get',
    path: '/api/v1/traces/query-fields',
    summary: "The query language's field catalogue",
    scope: 'read',
    responses: { 200: { description: 'Every field with its type, operators, description and an example', json: list(queryField) } },
  },
  {
    method: 'get',
    path: '/api/v1/traces/export',
    summary: 'Stream the traces of a filter as CSV or JSON Lines, oldest first',
    scope: 'read',
    query: [...traceFilter, ...queryParametersOf(exportParamsSchema)],
    responses: { 200: { description: 'The file, as an attachment', content: exportContent } },
  },
  {
    method: 'get',
    path: '/api/v1/traces/spans/export',
    summary: 'Stream the spans of the traces of a filter as CSV or JSON Lines',
    scope: 'read',
    query: [...traceFilter, ...queryParametersOf(exportParamsSchema)],
    responses: { 200: { description: 'The file, as an attachment', content: exportContent } },
  },
  {
    method: 'get',
    path: '/api/v1/traces/exports',
    summary: 'The record of exports made, newest first',
    scope: 'read',
    query: queryParametersOf(exportListSchema),
    responses: { 200: { description: 'A page of export records', json: page(exportRecord) } },
  },
  {
    method: 'get',
    path: '/api/v1/traces/sessions',
    summary: 'Sessions of the filtered traces, newest activity first',
    scope: 'read',
    query: [
      ...traceFilter,
      ...queryParametersOf(v.object({ limit: pageSchema.entries.limit, cursor: pageSchema.entries.cursor })),
      { name: 'flagged', in: 'query', required: false, description: 'true: only sessions with a flagged trace', schema: { enum: ['true', 'false'] } },
    ],
    responses: { 200: { description: 'A page of sessions', json: page(sessionListItem) } },
  },
  {
    method: 'get',
    path: '/api/v1/traces/sessions/{sessionId}',
    summary: 'One session: figures, its traces in order, its scores',
    scope: 'read',
    pathParams: { sessionId: 'session id' },
    query: [projectIdParam],
    responses: { 200: { description: 'The session', json: sessionDetail } },
    errors: [404],
  },
  {
    method: 'get',
    path: '/api/v1/traces/spans',
    summary: 'Search spans across traces, newest first',
    scope: 'read',
    query: [...queryParametersOf(spanFilterSchema), ...queryParametersOf(spanPageSchema)],
    responses: { 200: { description: 'A page of spans (figures, not their text)', json: page(spanListItem) } },
  },
  {
    method: 'get',
    path: '/api/v1/traces/{traceId}',
    summary: 'One trace: figures and span tree',
    scope: 'read',
    pathParams: { traceId: TRACE_ID },
    query: [projectIdParam],
    responses: { 200: { description: 'The trace with its spans as a tree', json: traceDetail } },
    errors: [404],
  },
  {
    method: 'get',
    path: '/api/v1/traces/{traceId}/spans/{spanId}',
    summary: 'One span in full: texts, messages, attributes, events',
    scope: 'read',
    pathParams: { traceId: TRACE_ID, spanId: 'span id: 16 hex characters' },
    query: [projectIdParam],
    responses: { 200: { description: 'The span', json: spanDetail } },
    errors: [404],
  },
];
