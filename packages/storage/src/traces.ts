import type { Storage } from './client.ts';
import { nanosToDateTimeValue, nanosToIso } from './sql-values.ts';
import { TRACE_TEXT_SQL, conditionsNeedTexts, rootValueSql, type TraceAggregateRow } from './trace-aggregate.ts';
import { traceRowsSql } from './trace-rows.ts';
import { traceFilterSql, type TraceFilter } from './trace-filter.ts';

/** A trace with its trace-level figures, as the API returns it. */
export interface TraceRecord {
  traceId: string;
  name: string;
  startTime: string;
  endTime: string;
  durationMs: number;
  status: string;
  spanCount: number;
  errorCount: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cachedInputTokens: number;
  reasoningTokens: number;
  cost: number;
  sessionId: string | null;
  userId: string | null;
  environment: string | null;
  serviceName: string | null;
  platform: string | null;
  models: string[];
  flaggedSpanCount: number;
  /** Spans changed by the project's masking policy at ingest. */
  maskedSpanCount: number;
  input: string;
  output: string;
}

/** The fields of a trace row, e.g. the columns a saved view may show. */
export const TRACE_RECORD_FIELDS = [
  'traceId', 'name', 'startTime', 'endTime', 'durationMs', 'status', 'spanCount', 'errorCount', 'inputTokens',
  'outputTokens', 'totalTokens', 'cachedInputTokens', 'reasoningTokens', 'cost', 'sessionId', 'userId', 'environment',
  'serviceName', 'platform', 'models', 'flaggedSpanCount', 'maskedSpanCount', 'input', 'output',
] as const satisfies readonly (keyof TraceRecord)[];

// Every field of TraceRecord must be listed: this fails to compile when one is missing.
type UnlistedTraceFields = Exclude<keyof TraceRecord, (typeof TRACE_RECORD_FIELDS)[number]>;
const _allTraceFieldsListed: UnlistedTraceFields extends never ? true : UnlistedTraceFields = true;
void _allTraceFieldsListed;

/** The orders a trace list can have: the sort expression, its parameter type, and the row's value. */
export const TRACE_SORT_FIELDS = {
  startTime: { column: 'trace_start', type: 'DateTime64(9)', valueOf: (r: TraceAggregateRow) => r.trace_start_ns },
  duration: { column: 'trace_duration_ms', type: 'Float64', valueOf: (r: TraceAggregateRow) => String(r.trace_duration_ms) },
  cost: { column: 'trace_cost', type: 'Float64', valueOf: (r: TraceAggregateRow) => String(r.trace_cost) },
  tokens: { column: 'trace_total_tokens', type: 'UInt64', valueOf: (r: TraceAggregateRow) => r.trace_total_tokens },
  spanCount: { column: 'span_count', type: 'UInt64', valueOf: (r: TraceAggregateRow) => r.span_count },
  errors: { column: 'error_count', type: 'UInt64', valueOf: (r: TraceAggregateRow) => r.error_count },
} as const;
export type TraceSortField = keyof typeof TRACE_SORT_FIELDS;

/** Where the previous page ended: the sort value of its last trace (a decimal string) and its id. */
export interface TraceCursor {
  value: string;
  traceId: string;
}

export interface TracePageRequest {
  limit: number;
  sortBy: TraceSortField;
  order: 'asc' | 'desc';
  after?: TraceCursor;
  /** Cut input and output to this many characters (list previews); whole when absent (exports). */
  textPreviewChars?: number;
  /** Leave input and output empty (a span export needs only the traces' figures). */
  withoutTexts?: boolean;
}

export interface TracePage {
  traces: TraceRecord[];
  /** Set when another page may follow. */
  next: TraceCursor | null;
}

/** The first window a start-ordered page looks at; each miss widens it this many times. */
const PROBE_FIRST_MS = 60 * 60 * 1000;
const PROBE_GROWTH = 8;

/**
 * Lists traces matching the filter, keyset-paginated on (sort value, trace id).
 *
 * A page in start order only needs the traces nearest its end of the window, so it is
 * looked for in a short window there first (an hour, then 8 times wider each time too
 * few traces were found, up to the whole window). A window that yields more than a page
 * holds the page: every trace outside it starts further from that end. Lists of a busy
 * project then aggregate the spans of an hour or so instead of the whole week.
 */
export async function listTraces(storage: Storage, filter: TraceFilter, page: TracePageRequest): Promise<TracePage> {
  if (page.sortBy !== 'startTime') return listTracesInWindow(storage, filter, page);
  // The page continues from the cursor's start time (inclusive: ties are split by trace id).
  const edgeMs = page.after ? Math.floor(Number(BigInt(page.after.value) / 1_000_000n)) : undefined;
  const from = page.order === 'desc' ? Math.min(filter.endTimeMs, edgeMs === undefined ? Infinity : edgeMs + 1) : Math.max(filter.startTimeMs, edgeMs ?? -Infinity);
  for (let width = PROBE_FIRST_MS; ; width *= PROBE_GROWTH) {
    const probe =
      page.order === 'desc'
        ? { ...filter, startTimeMs: Math.max(filter.startTimeMs, from - width), endTimeMs: from }
        : { ...filter, startTimeMs: from, endTimeMs: Math.min(filter.endTimeMs, from + width) };
    if (probe.startTimeMs >= probe.endTimeMs) return { traces: [], next: null };
    const found = await listTracesInWindow(storage, probe, page);
    const reachedWindowEdge = page.order === 'desc' ? probe.startTimeMs === filter.startTimeMs : probe.endTimeMs === filter.endTimeMs;
    if (found.next !== null || reachedWindowEdge) return found;
  }
}

/** One page over the filter's whole window, without narrowing it first (for callers that slice the window themselves). */
export async function listTracesInWindow(storage: Storage, filter: TraceFilter, page: TracePageRequest): Promise<TracePage> {
  const sql = traceFilterSql(filter);
  const sort = TRACE_SORT_FIELDS[page.sortBy];
  const conditions = [...sql.traceConditions];
  const params: Record<string, unknown> = { ...sql.params, limit: page.limit + 1 };
  if (page.after) {
    // Tuple comparison keeps the order total when two traces share a sort value.
    const op = page.order === 'desc' ? '<' : '>';
    conditions.push(`(${sort.column}, trace_id) ${op} ({afterValue:${sort.type}}, {afterTrace:String})`);
    params.afterValue = page.sortBy === 'startTime' ? nanosToDateTimeValue(page.after.value) : page.after.value;
    params.afterTrace = page.after.traceId;
  }
  const direction = page.order === 'desc' ? 'DESC' : 'ASC';
  const withTexts = conditionsNeedTexts(conditions);
  const traceRows = await traceRowsSql(storage, filter, sql, { texts: withTexts });
  const result = await storage.client.query({
    query: `
      SELECT *, toString(toUnixTimestamp64Nano(trace_start)) AS trace_start_ns, toString(toUnixTimestamp64Nano(trace_end)) AS trace_end_ns
      FROM (${traceRows})
      WHERE ${conditions.join(' AND ')}
      ORDER BY ${sort.column} ${direction}, trace_id ${direction}
      LIMIT {limit:UInt32}`,
    query_params: { ...params, ...sql.params },
    format: 'JSONEachRow',
  });
  const rows = await result.json<TraceAggregateRow>();
  const hasMore = rows.length > page.limit;
  const pageRows = rows.slice(0, page.limit);
  // The page's input/output, read for the returned rows only (they are the heavy columns).
  if (!withTexts && pageRows.length > 0) {
    const texts = page.withoutTexts
      ? new Map<string, { trace_input: string; trace_output: string }>()
      : await traceTexts(storage, sql.params, pageRows.map((r) => r.trace_id), page.textPreviewChars);
    for (const row of pageRows) Object.assign(row, texts.get(row.trace_id) ?? { trace_input: '', trace_output: '' });
  }
  const traces = pageRows.map(traceRecordFromRow);
  const last = rows[page.limit - 1];
  return { traces, next: hasMore && last ? { value: sort.valueOf(last), traceId: last.trace_id } : null };
}

/** Characters of input and output the spans table keeps apart (migration 0010), for previews. */
export const STORED_PREVIEW_CHARS = 1000;

/** Root input and output of the given traces, scanning the same window as the list (PREWHERE: see trace-rows.ts). */
async function traceTexts(storage: Storage, filterParams: Record<string, unknown>, traceIds: string[], previewChars?: number) {
  // A preview no longer than the stored one is cut from it, never from the whole text.
  const source = (column: string) => (previewChars !== undefined && previewChars <= STORED_PREVIEW_CHARS ? `${column}_preview` : column);
  const columns =
    previewChars === undefined
      ? TRACE_TEXT_SQL
      : `leftUTF8(${rootValueSql(source('input'))}, {previewChars:UInt32}) AS trace_input,
         leftUTF8(${rootValueSql(source('output'))}, {previewChars:UInt32}) AS trace_output`;
  const result = await storage.client.query({
    query: `
      SELECT trace_id, ${columns}
      FROM spans FINAL
      PREWHERE project_id = {projectId:String} AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)}
        AND trace_id IN {pageTraceIds:Array(String)}
      GROUP BY trace_id`,
    query_params: {
      projectId: filterParams.projectId,
      scanStart: filterParams.scanStart,
      scanEnd: filterParams.scanEnd,
      pageTraceIds: traceIds,
      ...(previewChars === undefined ? {} : { previewChars }),
    },
    format: 'JSONEachRow',
  });
  return new Map((await result.json<{ trace_id: string; trace_input: string; trace_output: string }>()).map((r) => [r.trace_id, r]));
}

/** The API form of a trace row selected with TRACE_COLUMNS_SQL. */
export function traceRecordFromRow(row: TraceAggregateRow): TraceRecord {
  return {
    traceId: row.trace_id,
    name: row.trace_name,
    startTime: nanosToIso(row.trace_start_ns),
    endTime: nanosToIso(row.trace_end_ns),
    durationMs: row.trace_duration_ms,
    status: row.trace_status,
    spanCount: Number(row.span_count),
    errorCount: Number(row.error_count),
    inputTokens: Number(row.trace_input_tokens),
    outputTokens: Number(row.trace_output_tokens),
    totalTokens: Number(row.trace_total_tokens),
    cachedInputTokens: Number(row.trace_cached_input_tokens),
    reasoningTokens: Number(row.trace_reasoning_tokens),
    cost: row.trace_cost,
    sessionId: row.trace_session_id || null,
    userId: row.trace_user_id || null,
    environment: row.trace_environment || null,
    serviceName: row.trace_service_name || null,
    platform: row.trace_platform || null,
    models: row.trace_models,
    flaggedSpanCount: Number(row.flagged_span_count),
    maskedSpanCount: Number(row.masked_span_count),
    input: row.trace_input,
    output: row.trace_output,
  };
}
