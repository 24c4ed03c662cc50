import type { Storage } from '../client/client.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';
import { msToDateTimeParam } from '../sql/values.ts';

/** The attributes a metric read can group and filter by, with their columns. */
export const METRIC_ATTRIBUTE_COLUMNS = {
  operationName: 'operation_name',
  providerName: 'provider_name',
  requestModel: 'request_model',
  responseModel: 'response_model',
  tokenType: 'token_type',
  serverAddress: 'server_address',
  errorType: 'error_type',
  serviceName: 'service_name',
} as const;

export type MetricAttribute = keyof typeof METRIC_ATTRIBUTE_COLUMNS;
export const METRIC_ATTRIBUTES = Object.keys(METRIC_ATTRIBUTE_COLUMNS) as MetricAttribute[];

export interface MetricSeriesRequest {
  projectId: string;
  metric: string;
  startTimeMs: number;
  endTimeMs: number;
  stepSeconds: number;
  groupBy?: MetricAttribute;
  /** Exact values the points' attributes must have. */
  where: Partial<Record<MetricAttribute, string>>;
}

/** One bucket of one group: what its points added up to. */
export interface MetricBucket {
  /** Start of the bucket, ISO 8601. */
  time: string;
  /** Histograms: observations; sums and gauges: points. */
  count: number;
  /** Histograms: the sum of the observations; sums: the increase of the value; gauges: the sum of the values. */
  sum: number | null;
  min: number | null;
  max: number | null;
}

export interface MetricSeries {
  group: string | null;
  points: MetricBucket[];
}

export interface MetricSeriesResult {
  /** The kind and unit the points were sent with ("" when there are none). */
  kind: string;
  unit: string;
  series: MetricSeries[];
}

/**
 * How far before the window a cumulative stream's previous point is looked for. SDKs export
 * every 10 to 60 s, so a stream that is still sending has one well within it; a stream
 * whose previous point is older and that began before it counts from its next point on.
 */
export const PREVIOUS_POINT_LOOKBACK_MS = 3_600_000;

/**
 * The points of one metric per time bucket (and per group), as increases: delta points as
 * sent, cumulative points (totals since their stream's start) less their stream's previous
 * point. A stream's first point is all increase when the stream began within the read
 * (exporters send one from their first interval), and unknown otherwise; a total that
 * fell is a restart, all increase again.
 */
export function metricSeriesSql(request: MetricSeriesRequest): Statement {
  const params: Record<string, unknown> = {
    projectId: request.projectId,
    metric: request.metric,
    lookbackStart: msToDateTimeParam(Math.max(0, request.startTimeMs - PREVIOUS_POINT_LOOKBACK_MS)),
    start: msToDateTimeParam(request.startTimeMs),
    end: msToDateTimeParam(request.endTimeMs),
    step: request.stepSeconds,
  };
  const conditions: string[] = [];
  for (const attribute of METRIC_ATTRIBUTES) {
    const value = request.where[attribute];
    if (value === undefined) continue;
    params[attribute] = value;
    conditions.push(`AND ${METRIC_ATTRIBUTE_COLUMNS[attribute]} = {${attribute}:String}`);
  }
  const group = request.groupBy ? METRIC_ATTRIBUTE_COLUMNS[request.groupBy] : "''";
  const increase = (column: string) => `if(temporality != 'cumulative', ${column},
             multiIf(nth > 1 AND ${column} >= prev_${column}, ${column} - prev_${column}, nth > 1 OR start_time >= {lookbackStart:DateTime64(3)}, ${column}, NULL))`;
  const query = `
SELECT grp, toUnixTimestamp(toStartOfInterval(time, INTERVAL {step:UInt32} SECOND)) AS bucket,
       sum(if(kind = 'histogram', count_increase, 1)) AS bucket_count,
       sum(multiIf(kind = 'histogram', sum_increase, kind = 'sum', value_increase, total_value)) AS bucket_sum,
       min(if(kind = 'gauge', total_value, point_min)) AS bucket_min,
       max(if(kind = 'gauge', total_value, point_max)) AS bucket_max,
       any(kind) AS bucket_kind, any(unit) AS bucket_unit
FROM (
    SELECT grp, time, kind, unit, total_value, point_min, point_max,
           ${increase('total_count')} AS count_increase,
           ${increase('total_sum')} AS sum_increase,
           ${increase('total_value')} AS value_increase
    FROM (
        SELECT ${group} AS grp, time, start_time, kind, temporality, unit,
               toFloat64(count) AS total_count, sum AS total_sum, value AS total_value, min AS point_min, max AS point_max,
               row_number() OVER stream AS nth,
               lagInFrame(toFloat64(count)) OVER stream AS prev_total_count,
               lagInFrame(sum) OVER stream AS prev_total_sum,
               lagInFrame(value) OVER stream AS prev_total_value
        FROM genai_metric_points FINAL
        WHERE project_id = {projectId:String} AND metric = {metric:String}
          AND time >= {lookbackStart:DateTime64(3)} AND time < {end:DateTime64(3)}
          ${conditions.join('\n          ')}
        WINDOW stream AS (PARTITION BY series, start_time ORDER BY time ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
    )
    WHERE time >= {start:DateTime64(3)}
)
GROUP BY grp, bucket
ORDER BY grp, bucket`;
  return { query, params };
}

type Row = [string, number, number, number | null, number | null, number | null, string, string];

/** A metric's points per bucket and group over a window of one project (see metricSeriesSql). */
export async function queryMetricSeries(storage: Storage, request: MetricSeriesRequest): Promise<MetricSeriesResult> {
  const { query, params } = metricSeriesSql(request);
  const result = await storage.client.query({ query, query_params: params, format: 'JSONCompactEachRow', ...named(storage, 'metrics.series') });
  const rows = await result.json<Row>();
  const byGroup = new Map<string, MetricBucket[]>();
  for (const [grp, bucket, count, sum, min, max] of rows) {
    let points = byGroup.get(grp);
    if (points === undefined) byGroup.set(grp, (points = []));
    points.push({ time: new Date(Number(bucket) * 1000).toISOString(), count: Number(count), sum: numberOrNull(sum), min: numberOrNull(min), max: numberOrNull(max) });
  }
  return {
    kind: rows[0]?.[6] ?? '',
    unit: rows[0]?.[7] ?? '',
    series: [...byGroup].map(([group, points]) => ({ group: request.groupBy ? group : null, points })),
  };
}

// 64-bit and nullable figures may come as strings or nulls in JSON.
function numberOrNull(n: number | string | null): number | null {
  return n === null ? null : Number(n);
}
