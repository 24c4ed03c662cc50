import type { Storage } from '../client/client.ts';
import { apiSpanFromRow, type ApiSpan } from './api-span.ts';
import { TRACE_TEXT_SQL } from './aggregate.ts';
import { API_SPAN_TUPLES, traceFiguresOfSpans } from './figures.ts';
import { TRACE_FLAGS_OF_TRACE_SQL, judgedFlags, type JudgedFlags } from './flags.ts';
import type { TraceRecord } from './record.ts';
import { IN_TRACE_HOURS_SQL } from './trace-hours.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';

/**
 * Planning is most of this statement's cost (issue 33: about 15 of its 25 ms at 100M spans,
 * reading 2 granules). The older query analyzer plans it for less engine CPU (at 100M, medians
 * of 25 alternating turns: 24.0 against 27.7 ms of process CPU with one thread), and one thread
 * is enough for a point read. In the statement's own SETTINGS clause: a per-query setting of
 * the client is a SET statement of its own on the embedded engine (query-name.ts).
 */
const POINT_READ_SETTINGS = 'enable_analyzer = 0, max_threads = 1';

/** The statement of getTraceWithSpans: the trace's texts, span tuples and flags in one row. */
export function traceWithSpansSql(projectId: string, traceId: string): Statement {
  // PREWHERE before FINAL holds for key columns (see rows.ts).
  const query = `
      SELECT ${TRACE_TEXT_SQL},
        ${API_SPAN_TUPLES.sql} AS trace_span_rows,
        ${TRACE_FLAGS_OF_TRACE_SQL} AS trace_flag_rows
      FROM spans FINAL
      PREWHERE project_id = {projectId:String}
        AND ${IN_TRACE_HOURS_SQL}
        AND trace_id = {traceId:String}
      GROUP BY trace_id
      SETTINGS ${POINT_READ_SETTINGS}`;
  return { query, params: { projectId, traceId } };
}

/**
 * A trace, its spans (in start order) and its flags in one query: finding a trace's rows
 * is most of the cost of a trace lookup, so it is done once, and a query of its own for
 * the flags cost about as much as their reading. The trace's figures are computed from
 * the spans here (figures.ts); only the trace's texts are aggregated by the engine.
 * Null when the project has no such trace.
 */
export async function getTraceWithSpans(
  storage: Storage,
  projectId: string,
  traceId: string,
): Promise<{ trace: TraceRecord; spans: ApiSpan[]; flags: JudgedFlags } | null> {
  const statement = traceWithSpansSql(projectId, traceId);
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
    format: 'JSONEachRow',
    ...named(storage, 'traces.detail'),
  });
  const [row] = await result.json<{ trace_input: string; trace_output: string; trace_span_rows: unknown[][]; trace_flag_rows: Array<[string[], string]> }>();
  if (!row) return null;
  const spanRows = row.trace_span_rows.map(API_SPAN_TUPLES.rowOf);
  return {
    trace: { ...traceFiguresOfSpans(traceId, spanRows), input: row.trace_input, output: row.trace_output },
    spans: spanRows.map(apiSpanFromRow),
    flags: judgedFlags(row.trace_flag_rows),
  };
}
