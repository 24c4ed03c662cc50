import type { Storage } from './client.ts';
import { positionalRows } from './positional-rows.ts';
import { SPAN_SUMMARY_COLUMNS, spanSummaryFromRow, type SpanSummary, type SpanSummaryRow } from './spans.ts';
import { TRACE_COLUMNS_SQL, type TraceAggregateRow } from './trace-aggregate.ts';
import { TRACE_FLAGS_OF_TRACE_SQL, judgedFlags, type JudgedFlags } from './trace-flags.ts';
import { traceRecordFromRow, type TraceRecord } from './traces.ts';

/** A span of the query below: start time and span id (its sort key) first, then the summary columns. */
const spanRowOf = positionalRows<SpanSummaryRow>(Object.keys(SPAN_SUMMARY_COLUMNS) as (keyof SpanSummaryRow)[], 2);

/**
 * A trace's figures, its spans (in start order) and its flags in one query: finding a
 * trace's rows is most of the cost of a trace lookup, so it is done once, and a query of
 * its own for the flags cost about as much as their reading. Null when the project has no
 * such trace.
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
      SELECT ${TRACE_COLUMNS_SQL},
        arraySort(groupArray(tuple(start_time, span_id, ${Object.values(SPAN_SUMMARY_COLUMNS).join(', ')}))) AS trace_span_rows,
        ${TRACE_FLAGS_OF_TRACE_SQL} AS trace_flag_rows
      FROM spans FINAL
      PREWHERE project_id = {projectId:String} AND trace_id = {traceId:String}
      GROUP BY trace_id`,
    query_params: { projectId, traceId },
    format: 'JSONEachRow',
  });
  const [row] = await result.json<TraceAggregateRow & { trace_span_rows: unknown[][]; trace_flag_rows: Array<[string[], string]> }>();
  if (!row) return null;
  const spans = row.trace_span_rows.map((values) => spanSummaryFromRow(spanRowOf(values)));
  return { trace: traceRecordFromRow(row), spans, flags: judgedFlags(row.trace_flag_rows) };
}
