import * as v from 'valibot';
import { exportParamsSchema } from '../../exports/export-request.ts';
import { pageSchema } from '../../filters/pagination.ts';
import { spanFilterSchema } from '../../filters/span-filter.ts';
import { traceFilterSchema } from '../../filters/trace-filter.ts';
import { listParamsSchema as exportListSchema } from '../../routes/traces/exports.ts';
import { pageSchema as spanPageSchema } from '../../routes/traces/spans/index.ts';
import { timeseriesSchema } from '../../routes/traces/timeseries.ts';
import { queryParametersOf, type JsonSchema } from '../json-schema.ts';
import { projectIdParam, type Operation } from '../operation.ts';
import * as s from '../schemas.ts';

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
    responses: { 200: { description: 'A page of traces (inputs and outputs as 1,000-character previews)', json: s.page(s.traceListItem) } },
  },
  {
    method: 'get',
    path: '/api/v1/traces/summary',
    summary: 'Counts, error rate, latency percentiles, cost, tokens, flagged and masked spans of the filtered traces',
    scope: 'read',
    query: traceFilter,
    responses: { 200: { description: 'The summary', json: s.traceSummary } },
  },
  {
    method: 'get',
    path: '/api/v1/traces/timeseries',
    summary: 'A measure per time bucket, optionally per group',
    scope: 'read',
    query: [...traceFilter, ...queryParametersOf(timeseriesSchema)],
    responses: { 200: { description: 'Every bucket of the window: 0 for counts and sums, null where there is nothing to average', json: s.timeseries } },
  },
  {
    method: 'get',
    path: '/api/v1/traces/query-fields',
    summary: "The query language's field catalogue",
    scope: 'read',
    responses: { 200: { description: 'Every field with its type, operators, description and an example', json: s.list(s.queryField) } },
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
    responses: { 200: { description: 'A page of export records', json: s.page(s.exportRecord) } },
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
    responses: { 200: { description: 'A page of sessions', json: s.page(s.sessionListItem) } },
  },
  {
    method: 'get',
    path: '/api/v1/traces/sessions/{sessionId}',
    summary: 'One session: figures, its traces in order, its scores',
    scope: 'read',
    pathParams: { sessionId: 'session id' },
    query: [projectIdParam],
    responses: { 200: { description: 'The session', json: s.sessionDetail } },
    errors: [404],
  },
  {
    method: 'get',
    path: '/api/v1/traces/spans',
    summary: 'Search spans across traces, newest first',
    scope: 'read',
    query: [...queryParametersOf(spanFilterSchema), ...queryParametersOf(spanPageSchema)],
    responses: { 200: { description: 'A page of spans (figures, not their text)', json: s.page(s.spanListItem) } },
  },
  {
    method: 'get',
    path: '/api/v1/traces/{traceId}',
    summary: 'One trace: figures and span tree',
    scope: 'read',
    pathParams: { traceId: TRACE_ID },
    query: [projectIdParam],
    responses: { 200: { description: 'The trace with its spans as a tree', json: s.traceDetail } },
    errors: [404],
  },
  {
    method: 'get',
    path: '/api/v1/traces/{traceId}/spans/{spanId}',
    summary: 'One span in full: texts, messages, attributes, events',
    scope: 'read',
    pathParams: { traceId: TRACE_ID, spanId: 'span id: 16 hex characters' },
    query: [projectIdParam],
    responses: { 200: { description: 'The span', json: s.spanDetail } },
    errors: [404],
  },
];
