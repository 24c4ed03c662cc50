import type { Storage } from '../client/client.ts';
import { msToDateTimeParam, nanosToDateTimeValue } from '../sql/values.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';
import { API_SPAN_SQL, apiSpanFromRow, type ApiSpan, type ApiSpanRow } from '../traces/api-span.ts';
import { TRACE_SPAN_MARGIN_MS, type TraceFilter } from '../traces/filter.ts';

/**
 * A span as exports write it: the API span (one mapping with the trace tree and the span
 * detail) with its trace, session, user and texts. The export's columns pick from it.
 */
export interface SpanExportRow extends ApiSpan {
  traceId: string;
  sessionId: string | null;
  userId: string | null;
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

interface SpanExportSqlRow extends ApiSpanRow {
  trace_id: string;
  session_id: string;
  user_id: string;
  input: string;
  output: string;
}

/** A page of spans to export: how many, after which span. */
export type SpanExportPageQuery = { limit: number; after?: SpanExportCursor };

/**
 * The statement of listExportSpans: one more span than the page holds (to tell whether
 * another page follows), keyset-paginated on (start time, trace id, span id).
 */
export function spanExportSql(
  filter: Pick<TraceFilter, 'projectId' | 'startTimeMs' | 'endTimeMs'>,
  traceIds: readonly string[],
  page: SpanExportPageQuery,
): Statement {
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
  const query = `
      SELECT ${API_SPAN_SQL}, trace_id, session_id, user_id, input, output
      FROM spans FINAL
      WHERE ${conditions.join(' AND ')}
      ORDER BY start_time, trace_id, span_id
      LIMIT {limit:UInt32}`;
  return { query, params };
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
  page: SpanExportPageQuery,
): Promise<SpanExportPage> {
  if (traceIds.length === 0) return { spans: [], next: null };
  const statement = spanExportSql(filter, traceIds, page);
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
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
    ...apiSpanFromRow(row),
    traceId: row.trace_id,
    sessionId: row.session_id || null,
    userId: row.user_id || null,
    input: row.input,
    output: row.output,
  };
}
