import type { Storage } from '../client/client.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';
import { msToDateTimeParam } from '../sql/values.ts';
import { figuresNamedIn } from './aggregate.ts';

/**
 * Trace hour figures (migration 0021): the summary figures of a rolled-up hour's traces as
 * one row of mergeable states, written by the rollup pass from the hour's trace rollups,
 * under the same version. A summary merges these rows for the hours its window covers whole
 * and the states of its other traces (summary.ts): a row per hour instead of one per trace.
 * Column names never reuse a span or trace column name (see aggregate.ts on aliases).
 */

/** The duration quantiles kept: the levels of trace summaries, in their order. */
const QUANTILE_LEVELS = '0.5, 0.9, 0.95, 0.99';

/**
 * Distinct sessions and users: arrays of the ids' 64-bit hashes (migration 0024), counted
 * with uniqExactArray, which merges a week of hours at about a third of the engine CPU of
 * uniqExact(String) states (docs/benchmarks.md). Two ids sharing a hash count once: with n
 * distinct ids in a window the chance that any two do is at most n²/2^65, about 1e-7 for a
 * few million ids (the String states keep 128-bit hashes, so they were not exact either).
 */
const hashesOf = (id: string) => `groupUniqArrayIf(sipHash64(${id}), ${id} != '')`;

/**
 * Each column of trace_hour_figures (after project, hour and version), in the table's
 * order: its aggregate over trace rows (trace rollup columns), how rows of it merge, and the
 * summary column it gives (summary.ts). 0021's hour_sessions and hour_users are no longer
 * written nor read (0024 says why they stay).
 */
const HOUR_FIGURES: ReadonlyArray<{ column: string; state: string; merge: string; summary: string }> = [
  { column: 'hour_traces', state: 'count()', merge: 'sum', summary: 'summary_traces' },
  { column: 'hour_spans', state: 'sum(span_count)', merge: 'sum', summary: 'summary_spans' },
  { column: 'hour_error_traces', state: "countIf(trace_status = 'error')", merge: 'sum', summary: 'summary_error_traces' },
  { column: 'hour_session_hashes', state: hashesOf('trace_session_id'), merge: 'uniqExactArray', summary: 'summary_sessions' },
  { column: 'hour_user_hashes', state: hashesOf('trace_user_id'), merge: 'uniqExactArray', summary: 'summary_users' },
  // `quantiles` samples a reservoir of 8192 values: exact (with interpolation) up to that
  // many traces, bounded memory and mergeable across hours and shards beyond it.
  {
    column: 'hour_durations',
    state: `quantilesState(${QUANTILE_LEVELS})(trace_duration_ms)`,
    merge: `quantilesMerge(${QUANTILE_LEVELS})`,
    summary: 'summary_duration_quantiles',
  },
  { column: 'hour_cost', state: 'sum(trace_cost)', merge: 'sum', summary: 'summary_cost' },
  { column: 'hour_input_tokens', state: 'sum(trace_input_tokens)', merge: 'sum', summary: 'summary_input_tokens' },
  { column: 'hour_output_tokens', state: 'sum(trace_output_tokens)', merge: 'sum', summary: 'summary_output_tokens' },
  { column: 'hour_total_tokens', state: 'sum(trace_total_tokens)', merge: 'sum', summary: 'summary_total_tokens' },
  { column: 'hour_cached_input_tokens', state: 'sum(trace_cached_input_tokens)', merge: 'sum', summary: 'summary_cached_input_tokens' },
  { column: 'hour_reasoning_tokens', state: 'sum(trace_reasoning_tokens)', merge: 'sum', summary: 'summary_reasoning_tokens' },
  { column: 'hour_flagged_spans', state: 'sum(flagged_span_count)', merge: 'sum', summary: 'summary_flagged_spans' },
  { column: 'hour_masked_spans', state: 'sum(masked_span_count)', merge: 'sum', summary: 'summary_masked_spans' },
  { column: 'hour_masked_rules', state: 'sumMapState(trace_masked_rules)', merge: 'sumMapMerge', summary: 'summary_masked_rules' },
];

/** The figure columns of trace_hour_figures, in the table's order. */
export const HOUR_FIGURE_COLUMNS = HOUR_FIGURES.map((f) => f.column).join(', ');

/** Trace rows (trace rollup columns) aggregated into one row of the figure columns. */
export const HOUR_FIGURE_STATES_SQL = HOUR_FIGURES.map((f) => `${f.state} AS ${f.column}`).join(',\n          ');

/** The trace figures the states are computed from (what a reader asks traceRowsSql for). */
export const HOUR_FIGURE_INPUTS = figuresNamedIn([HOUR_FIGURE_STATES_SQL]);

/** Rows of the figure columns merged into the summary's columns (summary.ts TraceSummaryRow). */
export const SUMMARY_FROM_HOUR_FIGURES_SQL = HOUR_FIGURES.map((f) => `${f.merge}(${f.column}) AS ${f.summary}`).join(',\n        ');

/** A project's consecutive hours from the first to the last (rollups.ts RollupHours). */
interface RunHours {
  projectId: string;
  firstHourMs: number;
  lastHourMs: number;
}

/**
 * Records the figures of a run's hours (rollups.ts rollUpHours) from the trace rollups just
 * written under versions `firstVersion`…`lastVersion`. Before the hours' records: a reader
 * takes an hour's figures only with the version its record names, so they are there first.
 */
export async function recordHourFigures(storage: Storage, hours: RunHours, versions: { first: number; last: number }): Promise<void> {
  const statement = hourFiguresInsertSql(hours, versions);
  await storage.client.command({ query: statement.query, query_params: statement.params, ...named(storage, 'traces.rollups.hour-figures') });
}

/** The statement of recordHourFigures: one row per hour of the run that has traces. */
export function hourFiguresInsertSql(hours: RunHours, versions: { first: number; last: number }): Statement {
  const query = `
        INSERT INTO trace_hour_figures (project_id, hour, version, ${HOUR_FIGURE_COLUMNS})
        SELECT project_id, hour, version,
          ${HOUR_FIGURE_STATES_SQL}
        FROM trace_rollups
        WHERE project_id = {projectId:String}
          AND hour >= toDateTime({firstHour:DateTime64(3)}, 'UTC') AND hour <= toDateTime({lastHour:DateTime64(3)}, 'UTC')
          AND version >= {firstVersion:UInt64} AND version <= {lastVersion:UInt64}
        GROUP BY project_id, hour, version`;
  const params = {
    projectId: hours.projectId,
    firstHour: msToDateTimeParam(hours.firstHourMs),
    lastHour: msToDateTimeParam(hours.lastHourMs),
    firstVersion: versions.first,
    lastVersion: versions.last,
  };
  return { query, params };
}
