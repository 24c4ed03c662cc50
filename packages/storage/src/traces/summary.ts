import { TRACE_FLAGS, roundCost, type TraceFlag } from '@aos/domain';
import type { Storage } from '../client/client.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';
import { conditionsNeedTexts, figuresNamedIn, type TraceRollupColumn } from './aggregate.ts';
import { HOUR_FIGURE_COLUMNS, HOUR_FIGURE_INPUTS, HOUR_FIGURE_STATES_SQL, SUMMARY_FROM_HOUR_FIGURES_SQL } from './hour-figures.ts';
import type { RolledUpHour } from './rollups.ts';
import { rollupsToRead, traceRowsSql, wholeHours, wholeHoursOf } from './rows.ts';
import { traceFilterSql, windowOnly, type TraceFilter } from './filter.ts';

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

/**
 * The flag counts of the window's traces: traces carrying any flag, then one column per
 * trace flag (names from the closed TRACE_FLAGS list). Flags are judged after an hour is
 * rolled up and change later, so they are never part of its figures. The traces of the
 * rolled-up hours the window covers whole (`{wholeHours}`, when `byHour`) are counted by the
 * hour of their start kept with their flags (migration 0023), without reading their ids (at
 * 100M spans with 2 % of traces flagged, 2.5M rows fewer). The other traces, `otherIds` (a
 * subquery), are joined to the project's flagged ones whose hour is not one of those (the
 * join's right side, the one it holds in memory: a few of the window's traces). A row whose
 * hour is unknown (0: every writer since 0023 writes it, and its backfill left 0 only to
 * traces with no spans left) takes the join, which finds it in no window.
 *
 * A flags row's hour is the trace's start when it was judged. A late span with an earlier
 * start can move the trace to another hour; until the flags pass judges it again (it is due
 * as soon as it is quiet: its newest span is newer than its flags) a reader counts it once,
 * under the hour it was judged in: by that hour if the window covers it whole, else by the
 * join if its id is among the other traces. Meanwhile the old flags are counted anyway (as
 * before 0023, where the join counted them under the trace's new hour), so the lag is the
 * one between the rollups and the flags there always was. Within it, the trace is counted
 * once too often or not at all only when one of its two hours is a whole hour of the window
 * and the other is not (outside the window, cut by it, or live): never twice.
 */
function flagCountsSql(otherIds: string, byHour: boolean): string {
  const columns = [
    'count() AS summary_flagged_traces',
    ...TRACE_FLAGS.map((flag) => `countIf(has(flags, '${flag}')) AS summary_flag_${flag}`),
  ].join(', ');
  const flagged = `trace_flags FINAL WHERE project_id = {projectId:String} AND notEmpty(flags)`;
  const joined = (right: string) => `FROM (${otherIds}) AS window_traces
      INNER JOIN (
        SELECT trace_id, flags FROM ${right}
      ) AS flagged_traces USING trace_id`;
  if (!byHour) return `\n      SELECT ${columns}\n      ${joined(flagged)}`;
  return `
      SELECT ${columns}
      FROM (
        SELECT flags FROM ${flagged} AND start_hour IN {wholeHours:Array(DateTime)}
        UNION ALL
        SELECT flags ${joined(`${flagged} AND start_hour NOT IN {wholeHours:Array(DateTime)}`)})`;
}

/**
 * Summarizes the traces matching the filter in one query over the same trace rows that
 * trace lists use, so every filter of the filter model narrows the summary too. Days with
 * exact rollups are read from them (rows.ts), and without trace conditions the rolled-up
 * hours the window covers whole from their hour figures (hour-figures.ts).
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

/**
 * The statement of summarizeTraces: one row of TraceSummaryRow over the filter's traces,
 * `rollups` read from trace_rollups, or from trace_hour_figures for hours the window covers
 * whole when the filter has no trace condition (unless `hourFigures` is false: the per-trace
 * reading, which tests compare them with). The flags of those hours are counted by the hours
 * kept with them, or with `flagHours` false by joining the hours' trace ids from trace_rollups
 * (what tests compare the hours with).
 */
export function traceSummarySql(
  filter: TraceFilter,
  rollups: readonly RolledUpHour[],
  opts: { hourFigures?: boolean; flagHours?: boolean } = {},
): Statement {
  const sql = traceFilterSql(filter);
  const whole = opts.hourFigures !== false && windowOnly(sql) ? wholeHours(filter, rollups) : [];
  // Each side asks for the figures it reads and those the conditions name, the texts only
  // when a condition looks at them: the engine plans every aggregate it is given, even one
  // an outer query drops (at 100M spans the whole set on both sides cost 26 ms of 177).
  const named = figuresNamedIn(sql.traceConditions);
  const rowsOf = (columns: readonly TraceRollupColumn[]) =>
    traceRowsSql(filter, sql, rollups, { columns: [...new Set([...columns, ...named])], texts: conditionsNeedTexts(sql.traceConditions), readElsewhere: whole });
  const where = sql.traceConditions.join(' AND ');
  const figures = [`SELECT ${HOUR_FIGURE_STATES_SQL}\n        FROM (${rowsOf(HOUR_FIGURE_INPUTS)}) AS t\n        WHERE ${where}`];
  const traceIds = [`SELECT trace_id FROM (${rowsOf([])}) WHERE ${where}`];
  const flagHours = whole.length > 0 && opts.flagHours !== false;
  if (whole.length > 0) {
    // Sets the parameters wholeHours (which flagCountsSql reads too) and wholeVersions.
    figures.push(`SELECT ${HOUR_FIGURE_COLUMNS} FROM ${wholeHoursOf('trace_hour_figures', whole, sql.params)}`);
    if (!flagHours) traceIds.push(`SELECT trace_id FROM ${wholeHoursOf('trace_rollups', whole, sql.params)}`);
  }
  const query = `
      SELECT *
      FROM (
        SELECT ${SUMMARY_FROM_HOUR_FIGURES_SQL}
        FROM (${figures.join('\n        UNION ALL\n        ')})
      ) AS summary_figures
      CROSS JOIN (${flagCountsSql(traceIds.join(' UNION ALL '), flagHours)}) AS summary_flags`;
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
