import { TRACE_FLAGS, roundCost, type TraceFlag } from '@aos/domain';
import type { Storage } from '../client/client.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';
import { conditionsNeedTexts } from './aggregate.ts';
import type { RolledUpHour } from './rollups.ts';
import { rollupsToRead, traceRowsSql } from './rows.ts';
import { traceFilterSql, type TraceFilter } from './filter.ts';

/** Figures over all traces matching a filter. */
export interface TraceSummary {
  traceCount: number;
  spanCount: number;
  /** Traces whose status is error (at least one failed span). */
  errorCount: number;
  /** errorCount / traceCount; 0 when there are no traces. */
  errorRate: number;
  /** Distinct non-empty session / user ids of the traces. */
  sessionCount: number;
  userCount: number;
  /** Trace duration quantiles in milliseconds; null when there are no traces. */
  latencyMs: { p50: number | null; p90: number | null; p95: number | null; p99: number | null };
  /** USD; mean is per trace, null when there are no traces. */
  cost: { total: number; mean: number | null };
  tokens: { input: number; output: number; total: number; cachedInput: number; reasoning: number };
  /** Spans with at least one data-quality flag. */
  flaggedSpanCount: number;
  /** Spans changed by the masking policy at ingest, and spans per masking rule that fired. */
  maskedSpanCount: number;
  maskedRuleCounts: Record<string, number>;
  /** Traces carrying at least one trace flag, and traces per flag (traces not judged yet count as unflagged). */
  flaggedTraceCount: number;
  traceFlagCounts: Record<TraceFlag, number>;
  window: { startTime: string; endTime: string };
}

/** The summary row (64-bit integers arrive as strings). Aliases avoid every span column and trace column name. */
interface TraceSummaryRow {
  summary_traces: string;
  summary_spans: string;
  summary_error_traces: string;
  summary_sessions: string;
  summary_users: string;
  /** NaN (null in JSON) for each level when there are no traces. */
  summary_duration_quantiles: (number | null)[];
  summary_cost: number;
  summary_input_tokens: string;
  summary_output_tokens: string;
  summary_total_tokens: string;
  summary_cached_input_tokens: string;
  summary_reasoning_tokens: string;
  summary_flagged_spans: string;
  summary_masked_spans: string;
  summary_masked_rules: Record<string, string>;
  summary_flagged_traces: string;
  [flagCount: `summary_flag_${string}`]: string;
}

/** Traces of the project whose current flags meet `condition` (a set a few kB to MB large: flagged traces only). */
const flaggedTraces = (condition: string) =>
  `trace_id IN (SELECT trace_id FROM trace_flags FINAL WHERE project_id = {projectId:String} AND ${condition})`;

/**
 * The flag counts: traces carrying any flag, then one column per trace flag (names from the
 * closed TRACE_FLAGS list). Set membership, not a join: joining every trace of the window
 * to its flags row cost about as much as the rest of a summary over rolled-up hours.
 */
const FLAG_COUNT_COLUMNS = [
  `countIf(${flaggedTraces('notEmpty(flags)')}) AS summary_flagged_traces`,
  ...TRACE_FLAGS.map((flag) => `countIf(${flaggedTraces(`has(flags, '${flag}')`)}) AS summary_flag_${flag}`),
].join(',\n        ');

/**
 * Summarizes the traces matching the filter in one query over the same trace rows that
 * trace lists use, so every filter of the filter model narrows the summary too. Days with
 * exact rollups are read from them (rows.ts).
 */
export async function summarizeTraces(storage: Storage, filter: TraceFilter): Promise<TraceSummary> {
  const { query, params } = traceSummarySql(filter, await rollupsToRead(storage, filter));
  const result = await storage.client.query({
    query,
    query_params: params,
    format: 'JSONEachRow',
    ...named(storage, 'traces.summary'),
  });
  const [row] = await result.json<TraceSummaryRow>();
  if (!row) throw new Error('trace summary query returned no row');
  return traceSummaryFromRow(row, filter);
}

/** The statement of summarizeTraces: one row of TraceSummaryRow over the filter's traces, `rollups` read from trace_rollups. */
export function traceSummarySql(filter: TraceFilter, rollups: readonly RolledUpHour[]): Statement {
  const sql = traceFilterSql(filter);
  // The trace's texts are read only when a condition looks at them.
  const traces = traceRowsSql(filter, sql, rollups, { texts: conditionsNeedTexts(sql.traceConditions) });
  // `quantiles` samples a reservoir of 8192 values: exact (with interpolation) up to that
  // many traces, bounded memory and mergeable across shards beyond it.
  const query = `
      SELECT
        count() AS summary_traces,
        sum(span_count) AS summary_spans,
        countIf(trace_status = 'error') AS summary_error_traces,
        uniqExactIf(trace_session_id, trace_session_id != '') AS summary_sessions,
        uniqExactIf(trace_user_id, trace_user_id != '') AS summary_users,
        quantiles(0.5, 0.9, 0.95, 0.99)(trace_duration_ms) AS summary_duration_quantiles,
        sum(trace_cost) AS summary_cost,
        sum(trace_input_tokens) AS summary_input_tokens,
        sum(trace_output_tokens) AS summary_output_tokens,
        sum(trace_total_tokens) AS summary_total_tokens,
        sum(trace_cached_input_tokens) AS summary_cached_input_tokens,
        sum(trace_reasoning_tokens) AS summary_reasoning_tokens,
        sum(flagged_span_count) AS summary_flagged_spans,
        sum(masked_span_count) AS summary_masked_spans,
        sumMap(trace_masked_rules) AS summary_masked_rules,
        ${FLAG_COUNT_COLUMNS}
      FROM (${traces}) AS t
      WHERE ${sql.traceConditions.join(' AND ')}`;
  return { query, params: sql.params };
}

function traceSummaryFromRow(row: TraceSummaryRow, filter: TraceFilter): TraceSummary {
  const traceCount = Number(row.summary_traces);
  const errorCount = Number(row.summary_error_traces);
  const quantile = (i: number) => (traceCount > 0 ? (row.summary_duration_quantiles[i] ?? null) : null);
  return {
    traceCount,
    spanCount: Number(row.summary_spans),
    errorCount,
    errorRate: traceCount > 0 ? errorCount / traceCount : 0,
    sessionCount: Number(row.summary_sessions),
    userCount: Number(row.summary_users),
    latencyMs: { p50: quantile(0), p90: quantile(1), p95: quantile(2), p99: quantile(3) },
    cost: { total: roundCost(row.summary_cost), mean: traceCount > 0 ? roundCost(row.summary_cost / traceCount) : null },
    tokens: {
      input: Number(row.summary_input_tokens),
      output: Number(row.summary_output_tokens),
      total: Number(row.summary_total_tokens),
      cachedInput: Number(row.summary_cached_input_tokens),
      reasoning: Number(row.summary_reasoning_tokens),
    },
    flaggedSpanCount: Number(row.summary_flagged_spans),
    maskedSpanCount: Number(row.summary_masked_spans),
    maskedRuleCounts: Object.fromEntries(Object.entries(row.summary_masked_rules).map(([rule, n]) => [rule, Number(n)])),
    flaggedTraceCount: Number(row.summary_flagged_traces),
    traceFlagCounts: Object.fromEntries(TRACE_FLAGS.map((flag) => [flag, Number(row[`summary_flag_${flag}`])])) as Record<TraceFlag, number>,
    window: { startTime: new Date(filter.startTimeMs).toISOString(), endTime: new Date(filter.endTimeMs).toISOString() },
  };
}
