import { roundCost } from '@aos/domain';
import type { Storage } from '../client/client.ts';
import { msToDateTimeParam, nanosToDateTimeValue, nanosToIso } from '../sql/values.ts';
import { named } from '../sql/query-name.ts';
import { TRACE_SPAN_MARGIN_MS, type TraceFilter } from '../traces/filter.ts';

/** A span as exports write it: the columns of the span export, no attributes. */
export interface SpanExportRow {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  type: string;
  kind: string;
  startTime: string;
  endTime: string;
  durationMs: number;
  status: string;
  statusMessage: string;
  model: string | null;
  provider: string | null;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cost: number;
  toolName: string | null;
  sessionId: string | null;
  userId: string | null;
  qualityFlags: string[];
  input: string;
  output: string;
}

/** Where the previous page of spans ended: its last span's start (decimal nanoseconds), trace and span id. */
export interface SpanExportCursor {
  startNs: string;
  traceId: string;
  spanId: string;
}

export interface SpanExportPage {
  spans: SpanExportRow[];
  /** Set when another page may follow. */
  next: SpanExportCursor | null;
}

interface SpanExportSqlRow {
  trace_id: string;
  span_id: string;
  parent_span_id: string;
  name: string;
  span_type: string;
  kind: string;
  start_ns: string;
  end_ns: string;
  duration_ms: number;
  status: string;
  status_message: string;
  model: string;
  provider: string;
  input_tokens: string;
  output_tokens: string;
  total_tokens: string;
  cost: number;
  tool_name: string;
  session_id: string;
  user_id: string;
  quality_flags: string[];
  input: string;
  output: string;
}

/**
 * One page of the spans of the given traces (a page of a trace list under `filter`),
 * keyset-paginated on (start time, trace id, span id). Only spans inside the filter's span
 * scan are read, the same spans the trace figures (span count, tokens, cost) add up.
 */
export async function listExportSpans(
  storage: Storage,
  filter: Pick<TraceFilter, 'projectId' | 'startTimeMs' | 'endTimeMs'>,
  traceIds: readonly string[],
  page: { limit: number; after?: SpanExportCursor },
): Promise<SpanExportPage> {
  if (traceIds.length === 0) return { spans: [], next: null };
  const conditions = [
    'project_id = {projectId:String}',
    'start_time >= {scanStart:DateTime64(3)}',
    'start_time < {scanEnd:DateTime64(3)}',
    'trace_id IN {traceIds:Array(String)}',
  ];
  const params: Record<string, unknown> = {
    projectId: filter.projectId,
    scanStart: msToDateTimeParam(filter.startTimeMs - TRACE_SPAN_MARGIN_MS),
    scanEnd: msToDateTimeParam(filter.endTimeMs + TRACE_SPAN_MARGIN_MS),
    traceIds,
    limit: page.limit + 1,
  };
  if (page.after) {
    conditions.push('(start_time, trace_id, span_id) > ({afterStart:DateTime64(9)}, {afterTrace:String}, {afterSpan:String})');
    params.afterStart = nanosToDateTimeValue(page.after.startNs);
    params.afterTrace = page.after.traceId;
    params.afterSpan = page.after.spanId;
  }
  const result = await storage.client.query({
    query: `
      SELECT trace_id, span_id, parent_span_id, name, span_type, kind,
        toString(toUnixTimestamp64Nano(start_time)) AS start_ns,
        toString(toUnixTimestamp64Nano(end_time)) AS end_ns,
        duration_ms, status, status_message, model, provider,
        input_tokens, output_tokens, total_tokens, cost, tool_name,
        session_id, user_id, quality_flags, input, output
      FROM spans FINAL
      WHERE ${conditions.join(' AND ')}
      ORDER BY start_time, trace_id, span_id
      LIMIT {limit:UInt32}`,
    query_params: params,
    format: 'JSONEachRow',
    ...named(storage, 'spans.export'),
  });
  const rows = await result.json<SpanExportSqlRow>();
  const last = rows[page.limit - 1];
  return {
    spans: rows.slice(0, page.limit).map(spanExportRowFromSql),
    next: rows.length > page.limit && last ? { startNs: last.start_ns, traceId: last.trace_id, spanId: last.span_id } : null,
  };
}

function spanExportRowFromSql(row: SpanExportSqlRow): SpanExportRow {
  return {
    traceId: row.trace_id,
    spanId: row.span_id,
    parentSpanId: row.parent_span_id || null,
    name: row.name,
    type: row.span_type,
    kind: row.kind,
    startTime: nanosToIso(row.start_ns),
    endTime: nanosToIso(row.end_ns),
    durationMs: row.duration_ms,
    status: row.status,
    statusMessage: row.status_message,
    model: row.model || null,
    provider: row.provider || null,
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
    totalTokens: Number(row.total_tokens),
    cost: roundCost(row.cost),
    toolName: row.tool_name || null,
    sessionId: row.session_id || null,
    userId: row.user_id || null,
    qualityFlags: row.quality_flags,
    input: row.input,
    output: row.output,
  };
}
