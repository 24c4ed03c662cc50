import type { Storage } from './client.ts';
import { positionalRows } from './positional-rows.ts';
import { SPAN_SUMMARY_COLUMNS, spanSummaryFromRow, type SpanSummary } from './spans.ts';
import { TRACE_TEXT_SQL } from './trace-aggregate.ts';
import { traceFiguresOfSpans, type FigureSpanRow } from './trace-figures.ts';
import { TRACE_FLAGS_OF_TRACE_SQL, judgedFlags, type JudgedFlags } from './trace-flags.ts';
import type { TraceRecord } from './traces.ts';

/** The columns read of each span: its summary, and what the trace's figures need besides. */
const SPAN_COLUMNS: Record<keyof FigureSpanRow, string> = {
  ...SPAN_SUMMARY_COLUMNS,
  session_id: 'session_id',
  user_id: 'user_id',
  environment: 'environment',
  platform: 'platform',
};

/** A span of the query below: start time and span id (its sort key) first, then SPAN_COLUMNS. */
const spanRowOf = positionalRows<FigureSpanRow>(Object.keys(SPAN_COLUMNS) as (keyof FigureSpanRow)[], 2);

/**
 * A trace, its spans (in start order) and its flags in one query: finding a trace's rows
 * is most of the cost of a trace lookup, so it is done once, and a query of its own for
 * the flags cost about as much as their reading. The trace's figures are computed from
 * the spans here (trace-figures.ts); only the root's texts are aggregated by the engine.
 * Null when the project has no such trace.
 */
export async function getTraceWithSpans(
  storage: Storage,
  projectId: string,
  traceId: string,
): Promise<{ trace: TraceRecord; spans: SpanSummary[]; flags: JudgedFlags } | null> {
  // Tuples sort by their first elements: start time, then span id, as span lists are ordered.
  // PREWHERE before FINAL holds for key columns (see trace-rows.ts).
  const result = await storage.client.query({
    query: `
      SELECT ${TRACE_TEXT_SQL},
        arraySort(groupArray(tuple(start_time, span_id, ${Object.values(SPAN_COLUMNS).join(', ')}))) AS trace_span_rows,
        ${TRACE_FLAGS_OF_TRACE_SQL} AS trace_flag_rows
      FROM spans FINAL
      PREWHERE project_id = {projectId:String} AND trace_id = {traceId:String}
      GROUP BY trace_id`,
    query_params: { projectId, traceId },
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ trace_input: string; trace_output: string; trace_span_rows: unknown[][]; trace_flag_rows: Array<[string[], string]> }>();
  if (!row) return null;
  const spanRows = row.trace_span_rows.map(spanRowOf);
  return {
    trace: { ...traceFiguresOfSpans(traceId, spanRows), input: row.trace_input, output: row.trace_output },
    spans: spanRows.map(spanSummaryFromRow),
    flags: judgedFlags(row.trace_flag_rows),
  };
}
