import type { Storage } from '../client/client.ts';
import { nanosToDateTimeValue } from '../sql/values.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';
import { API_SPAN_SQL, apiSpanFromRow, type ApiSpan, type ApiSpanRow } from '../traces/api-span.ts';
import { spanFilterConditions, type SpanFilter } from '../traces/filter.ts';

export interface SpanSearchResult extends ApiSpan {
  traceId: string;
  sessionId: string | null;
  userId: string | null;
}

export interface SpanSearchPage {
  spans: SpanSearchResult[];
  next: SpanSearchCursor | null;
}

/** Where the previous page of spans ended: its last span's start (decimal nanoseconds), trace and span id. */
export type SpanSearchCursor = { startNs: string; traceId: string; spanId: string };

/**
 * The statement of searchSpans: one more span than the page holds (to tell whether another
 * page follows), newest first, keyset-paginated on (start time, trace id, span id).
 */
export function spanSearchSql(filter: SpanFilter, page: { limit: number; after?: SpanSearchCursor }): Statement {
  const params: Record<string, unknown> = { limit: page.limit + 1 };
  const conditions = spanFilterConditions(filter, params);
  if (page.after) {
    conditions.push('(start_time, trace_id, span_id) < ({afterStart:DateTime64(9)}, {afterTrace:String}, {afterSpan:String})');
    params.afterStart = nanosToDateTimeValue(page.after.startNs);
    params.afterTrace = page.after.traceId;
    params.afterSpan = page.after.spanId;
  }
  const query = `
      SELECT ${API_SPAN_SQL}, trace_id, session_id, user_id
      FROM spans FINAL
      WHERE ${conditions.join(' AND ')}
      ORDER BY start_time DESC, trace_id DESC, span_id DESC
      LIMIT {limit:UInt32}`;
  return { query, params };
}

/**
 * Spans matching the filter, newest first, keyset-paginated on (start time, trace id, span id).
 * Only the API span's columns are read for the rows returned: no input or output text.
 */
export async function searchSpans(
  storage: Storage,
  filter: SpanFilter,
  page: { limit: number; after?: SpanSearchCursor },
): Promise<SpanSearchPage> {
  const statement = spanSearchSql(filter, page);
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
    format: 'JSONEachRow',
    ...named(storage, 'spans.search'),
  });
  const rows = await result.json<ApiSpanRow & { trace_id: string; session_id: string; user_id: string }>();
  const last = rows[page.limit - 1];
  return {
    spans: rows.slice(0, page.limit).map((row) => ({
      ...apiSpanFromRow(row),
      traceId: row.trace_id,
      sessionId: row.session_id || null,
      userId: row.user_id || null,
    })),
    next: rows.length > page.limit && last ? { startNs: last.start_ns, traceId: last.trace_id, spanId: last.span_id } : null,
  };
}
