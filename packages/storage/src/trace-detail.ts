import type { Storage } from './client.ts';
import { SPAN_SUMMARY_COLUMNS, spanSummaryFromRow, type SpanSummary, type SpanSummaryRow } from './spans.ts';
import { TRACE_COLUMNS_SQL, type TraceAggregateRow } from './trace-aggregate.ts';
import { traceRecordFromRow, type TraceRecord } from './traces.ts';

const SPAN_FIELDS = Object.keys(SPAN_SUMMARY_COLUMNS) as (keyof SpanSummaryRow)[];

/**
 * A trace's figures and its spans (in start order) from one read of its spans: finding a
 * trace's rows is most of the cost of a trace lookup, so it is done once, not twice.
 * Null when the project has no such trace.
 */
export async function getTraceWithSpans(
  storage: Storage,
  projectId: string,
  traceId: string,
): Promise<{ trace: TraceRecord; spans: SpanSummary[] } | null> {
  // Tuples sort by their first elements: start time, then span id, as span lists are ordered.
  // PREWHERE before FINAL holds for key columns (see trace-rows.ts).
  const result = await storage.client.query({
    query: `
      SELECT ${TRACE_COLUMNS_SQL},
        arraySort(groupArray(tuple(start_time, span_id, ${Object.values(SPAN_SUMMARY_COLUMNS).join(', ')}))) AS trace_span_rows
      FROM spans FINAL
      PREWHERE project_id = {projectId:String} AND trace_id = {traceId:String}
      GROUP BY trace_id`,
    query_params: { projectId, traceId },
    format: 'JSONEachRow',
  });
  const [row] = await result.json<TraceAggregateRow & { trace_span_rows: unknown[][] }>();
  if (!row) return null;
  const spans = row.trace_span_rows.map((values) => {
    const spanRow = Object.fromEntries(SPAN_FIELDS.map((field, i) => [field, values[i + 2]])) as unknown as SpanSummaryRow;
    return spanSummaryFromRow(spanRow);
  });
  return { trace: traceRecordFromRow(row), spans };
}
