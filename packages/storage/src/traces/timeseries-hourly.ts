import type { Statement } from '../sql/statement.ts';
import { HOUR_FIGURE_COLUMNS, HOUR_FIGURE_INPUTS, HOUR_FIGURE_STATES_SQL } from './hour-figures.ts';
import { traceFilterSql, windowOnly, type TraceFilter } from './filter.ts';
import type { MeasureName } from './measures.ts';
import type { RolledUpHour } from './rollups.ts';
import { traceRowsSql, wholeHours, wholeHoursOf } from './rows.ts';

/**
 * Timeseries from trace hour figures (hour-figures.ts): with buckets of whole hours, a
 * rolled-up hour the window covers whole falls in one bucket, so its figures row stands for
 * its traces there; the other hours' traces are aggregated into the same states per bucket.
 */

/**
 * The measures (measures.ts) that hour figures give, each over rows of the figure columns:
 * the same value as the measure's aggregate over the traces. Not the mean cost (a sum of
 * sums divided again differs from avg in the last bits), flags (judged after the rollup)
 * nor scores. Quantiles: the measure's `quantile` and the figures' `quantiles` keep the same
 * reservoir, exact up to 8192 traces a bucket.
 */
const HOURLY_MEASURES: Partial<Record<MeasureName, string>> = {
  trace_count: 'sum(hour_traces)',
  span_count: 'sum(hour_spans)',
  error_count: 'sum(hour_error_traces)',
  error_rate: 'sum(hour_error_traces) / sum(hour_traces)',
  latency_p50: 'quantilesMerge(0.5, 0.9, 0.95, 0.99)(hour_durations)[1]',
  latency_p90: 'quantilesMerge(0.5, 0.9, 0.95, 0.99)(hour_durations)[2]',
  latency_p95: 'quantilesMerge(0.5, 0.9, 0.95, 0.99)(hour_durations)[3]',
  latency_p99: 'quantilesMerge(0.5, 0.9, 0.95, 0.99)(hour_durations)[4]',
  cost_total: 'sum(hour_cost)',
  tokens_total: 'sum(hour_total_tokens)',
  input_tokens: 'sum(hour_input_tokens)',
  output_tokens: 'sum(hour_output_tokens)',
  flagged_span_count: 'sum(hour_flagged_spans)',
  masked_span_count: 'sum(hour_masked_spans)',
};

/**
 * The statement of an ungrouped timeseries read from hour figures where they serve: rows of
 * (bucket, grp, value) as timeseriesSql gives them. Null when they do not: a measure they do
 * not give, buckets not made of whole hours, a filter with trace conditions, or no rolled-up
 * hour the window covers whole.
 */
export function hourlyTimeseriesSql(
  filter: TraceFilter,
  measure: MeasureName,
  stepSeconds: number,
  rollups: readonly RolledUpHour[],
): Statement | null {
  const value = HOURLY_MEASURES[measure];
  const sql = traceFilterSql(filter);
  const whole = wholeHours(filter, rollups);
  if (value === undefined || stepSeconds % 3600 !== 0 || !windowOnly(sql) || whole.length === 0) return null;
  // Only the figures the states read: the engine plans every aggregate it is given.
  const traces = traceRowsSql(filter, sql, rollups, { readElsewhere: whole, columns: HOUR_FIGURE_INPUTS });
  const bucket = (time: string) => `toUnixTimestamp(toStartOfInterval(${time}, INTERVAL {step:UInt32} SECOND)) AS bucket`;
  const query = `
      SELECT bucket, '' AS grp, ${value} AS value
      FROM (
        SELECT ${bucket('trace_start')},
          ${HOUR_FIGURE_STATES_SQL}
        FROM (${traces}) AS t
        WHERE ${sql.traceConditions.join(' AND ')}
        GROUP BY bucket
        UNION ALL
        SELECT ${bucket('hour')}, ${HOUR_FIGURE_COLUMNS} FROM ${wholeHoursOf('trace_hour_figures', whole, sql.params)}
      )
      GROUP BY bucket
      ORDER BY grp, bucket`;
  return { query, params: { ...sql.params, step: stepSeconds } };
}
