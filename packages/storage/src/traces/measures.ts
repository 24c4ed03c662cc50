/**
 * The measure catalogue: what can be charted per time bucket (timeseries) and watched
 * (monitors). Each measure is an aggregate over trace rows of the trace aggregate
 * (aggregate.ts), so every trace filter applies to it. Shared by timeseries and
 * monitors: a measure means the same thing on a chart and in an alert.
 */
import { roundCost } from '@aos/domain';

export interface Measure {
  name: string;
  unit: 'count' | 'ratio' | 'ms' | 'usd' | 'tokens' | 'score';
  description: string;
  /** Aggregate SQL over trace rows; `score_value`/`has_score` exist when `needsScore`. */
  sql: string;
  /** What an empty bucket shows: 0 for sums and counts, null where there is nothing to average. */
  empty: 0 | null;
  needsScore?: boolean;
  /** `is_flagged` (1 when the trace carries a trace flag, else 0) exists when set. */
  needsFlags?: boolean;
}

export const MEASURES = [
  { name: 'trace_count', unit: 'count', description: 'Traces that started in the bucket.', sql: 'count()', empty: 0 },
  { name: 'span_count', unit: 'count', description: 'Spans of those traces.', sql: 'sum(span_count)', empty: 0 },
  { name: 'error_count', unit: 'count', description: 'Traces with a failed span.', sql: "countIf(trace_status = 'error')", empty: 0 },
  { name: 'error_rate', unit: 'ratio', description: 'Share of traces with a failed span (0 to 1).', sql: "countIf(trace_status = 'error') / count()", empty: null },
  { name: 'latency_p50', unit: 'ms', description: 'Median trace duration.', sql: 'quantile(0.5)(trace_duration_ms)', empty: null },
  { name: 'latency_p90', unit: 'ms', description: '90th percentile of trace duration.', sql: 'quantile(0.9)(trace_duration_ms)', empty: null },
  { name: 'latency_p95', unit: 'ms', description: '95th percentile of trace duration.', sql: 'quantile(0.95)(trace_duration_ms)', empty: null },
  { name: 'latency_p99', unit: 'ms', description: '99th percentile of trace duration.', sql: 'quantile(0.99)(trace_duration_ms)', empty: null },
  { name: 'cost_total', unit: 'usd', description: 'Total cost of the traces.', sql: 'sum(trace_cost)', empty: 0 },
  { name: 'cost_mean', unit: 'usd', description: 'Mean cost per trace.', sql: 'avg(trace_cost)', empty: null },
  { name: 'tokens_total', unit: 'tokens', description: 'Input plus output tokens.', sql: 'sum(trace_total_tokens)', empty: 0 },
  { name: 'input_tokens', unit: 'tokens', description: 'Input tokens (cached included).', sql: 'sum(trace_input_tokens)', empty: 0 },
  { name: 'output_tokens', unit: 'tokens', description: 'Output tokens (reasoning included).', sql: 'sum(trace_output_tokens)', empty: 0 },
  { name: 'flagged_span_count', unit: 'count', description: 'Spans with a data-quality flag.', sql: 'sum(flagged_span_count)', empty: 0 },
  { name: 'masked_span_count', unit: 'count', description: 'Spans changed by the masking policy at ingest.', sql: 'sum(masked_span_count)', empty: 0 },
  {
    name: 'flag_rate',
    unit: 'ratio',
    description: 'Share of traces carrying a trace flag (loop, duplicate_tools, cost_outlier, empty_output), 0 to 1; traces are judged once quiet.',
    sql: 'avg(is_flagged)',
    empty: null,
    needsFlags: true,
  },
  {
    name: 'score_mean',
    unit: 'score',
    description: 'Mean of a score (give scoreName) over the traces that have it; a trace with several counts its mean once.',
    sql: 'avgIf(score_value, has_score = 1)',
    empty: null,
    needsScore: true,
  },
] as const satisfies readonly Measure[];

export type MeasureName = (typeof MEASURES)[number]['name'];
export const MEASURE_NAMES = MEASURES.map((m) => m.name) as [MeasureName, ...MeasureName[]];

export function measureByName(name: MeasureName): Measure {
  return MEASURES.find((m) => m.name === name)!;
}

/**
 * A measure's value as the engine answers it (a number, a 64-bit integer as a string, null
 * or NaN where there was nothing to average) as the API answers it: a number or null,
 * costs rounded (roundCost). Timeseries and monitors read values through this alone.
 */
export function measureValue(measure: Pick<Measure, 'unit'>, raw: number | string | null): number | null {
  const value = raw === null ? NaN : Number(raw);
  if (Number.isNaN(value)) return null;
  return measure.unit === 'usd' ? roundCost(value) : value;
}

/** Fields a series can be grouped by: name → SQL over trace rows. */
export const GROUP_FIELDS = {
  environment: 'trace_environment',
  status: 'trace_status',
  service: 'trace_service_name',
  platform: 'trace_platform',
  user: 'trace_user_id',
  session: 'trace_session_id',
  model: "arrayStringConcat(trace_models, ',')",
  name: 'trace_name',
} as const;
export type GroupField = keyof typeof GROUP_FIELDS;

/** A grouping: a field of the trace row, or one of the project's metadata dimensions. */
export type GroupBy = GroupField | { dimension: string };

/** A grouping as APIs write it and monitors store it: a field name, or `dim:<key>`. */
export type GroupName = GroupField | `dim:${string}`;

export function groupByOf(name: GroupName): GroupBy {
  return name.startsWith('dim:') ? { dimension: name.slice('dim:'.length) } : (name as GroupField);
}

/**
 * How to group trace rows: the SQL over trace rows, plus the column the per-trace
 * aggregation must add for it (a trace's dimension value: any non-empty one of its spans).
 */
export function groupSql(groupBy: GroupBy): { column: string; traceColumn: string | null; params: Record<string, unknown> } {
  if (typeof groupBy === 'string') return { column: GROUP_FIELDS[groupBy], traceColumn: null, params: {} };
  return {
    column: 'trace_group_dimension',
    traceColumn: "anyIf(dimensions[{groupDimension:String}], dimensions[{groupDimension:String}] != '') AS trace_group_dimension",
    params: { groupDimension: groupBy.dimension },
  };
}
