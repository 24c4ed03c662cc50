import type { Storage } from '../client/client.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';
import { groupSql, measureByName, measureValue, type GroupBy, type Measure, type MeasureName } from './measures.ts';
import { conditionsNeedTexts, traceColumnsFor } from './aggregate.ts';
import { traceFilterSql, type TraceFilter } from './filter.ts';
import type { RolledUpHour } from './rollups.ts';
import { rollupsToRead, traceRowsSql } from './rows.ts';
import { hourlyTimeseriesSql } from './timeseries-hourly.ts';

export interface TimeseriesRequest {
  measure: MeasureName;
  /** Bucket width in seconds. */
  stepSeconds: number;
  scoreName?: string;
  groupBy?: GroupBy;
  /** With groupBy: the N largest groups (by trace count) are kept, the rest summed as "other". */
  topGroups: number;
}

export interface TimeseriesPoint {
  time: string;
  value: number | null;
}

export interface TimeseriesSeries {
  /** The group's value ("" for traces without one; "__other__" for the rest), or null when ungrouped. */
  group: string | null;
  points: TimeseriesPoint[];
}

/** The label of the series that sums the groups beyond the top N. */
export const OTHER_GROUP = '__other__';

/**
 * A measure per time bucket over the filtered traces, every bucket of the window present
 * (empty ones as 0 or null, as the measure says), optionally one series per group.
 */
export async function queryTimeseries(storage: Storage, filter: TraceFilter, request: TimeseriesRequest): Promise<TimeseriesSeries[]> {
  const measure = measureByName(request.measure);
  const rollups = await measureRollups(storage, filter, request.groupBy);
  const source = measureSourceSql(filter, measure, rollups, request.scoreName, request.groupBy);
  // Ungrouped, whole rolled-up hours may be read from their hour figures (timeseries-hourly.ts).
  const hourly = request.groupBy ? null : hourlyTimeseriesSql(filter, request.measure, request.stepSeconds, rollups);
  let topGroups: string[] | null = null;
  if (request.groupBy) {
    const top = timeseriesTopGroupsSql(source, request.groupBy, request.topGroups);
    const result = await storage.client.query({
      query: top.query,
      query_params: top.params,
      format: 'JSONEachRow',
      ...named(storage, 'traces.timeseries.top-groups'),
    });
    topGroups = (await result.json<{ grp: string }>()).map((r) => r.grp);
  }
  const { query, params } = hourly ?? timeseriesSql(source, request, topGroups);
  const result = await storage.client.query({
    query,
    query_params: params,
    format: 'JSONEachRow',
    ...named(storage, 'traces.timeseries.series'),
  });
  const rows = await result.json<{ bucket: number | string; grp: string; value: number | string | null }>();
  const buckets = bucketStarts(filter.startTimeMs, filter.endTimeMs, request.stepSeconds);
  const byGroup = new Map<string, Map<number, number | null>>();
  for (const row of rows) {
    const values = byGroup.get(row.grp) ?? new Map<number, number | null>();
    values.set(Number(row.bucket), measureValue(measure, row.value));
    byGroup.set(row.grp, values);
  }
  const groups = topGroups ? [...topGroups, ...(byGroup.has(OTHER_GROUP) ? [OTHER_GROUP] : [])] : [''];
  return groups.map((group) => {
    const values = byGroup.get(group);
    return {
      group: request.groupBy ? group : null,
      points: buckets.map((seconds) => ({
        time: new Date(seconds * 1000).toISOString(),
        value: values?.has(seconds) ? values.get(seconds)! : measure.empty,
      })),
    };
  });
}

/** The groups of `groupBy` with the most traces in the source, the largest `top` of them (ties by value): rows of `grp`. */
export function timeseriesTopGroupsSql(source: MeasureSource, groupBy: GroupBy, top: number): Statement {
  const column = groupSql(groupBy).column;
  return {
    query: `SELECT ${column} AS grp FROM ${source.from} GROUP BY grp ORDER BY count() DESC, grp LIMIT {top:UInt32}`,
    params: { ...source.params, top },
  };
}

/**
 * The statement of a timeseries: rows of (bucket, grp, value), the groups beyond
 * `topGroups` (timeseriesTopGroupsSql's answer, given with a grouping) summed as OTHER_GROUP.
 */
export function timeseriesSql(
  source: MeasureSource,
  request: Pick<TimeseriesRequest, 'measure' | 'stepSeconds' | 'groupBy'>,
  topGroups: readonly string[] | null,
): Statement {
  const params: Record<string, unknown> = { ...source.params, step: request.stepSeconds };
  let groupExpression = "''";
  if (request.groupBy) {
    const column = groupSql(request.groupBy).column;
    params.topGroups = topGroups ?? [];
    groupExpression = `if(${column} IN {topGroups:Array(String)}, ${column}, '${OTHER_GROUP}')`;
  }
  const query = `
      SELECT toUnixTimestamp(toStartOfInterval(trace_start, INTERVAL {step:UInt32} SECOND)) AS bucket,
        ${groupExpression} AS grp, ${measureByName(request.measure).sql} AS value
      FROM ${source.from}
      GROUP BY bucket, grp
      ORDER BY grp, bucket`;
  return { query, params };
}

/** Trace rows for a measure to aggregate: a FROM clause ending in a WHERE, and its parameters. */
export interface MeasureSource {
  from: string;
  params: Record<string, unknown>;
}

/**
 * The FROM clause a measure aggregates over: one row per filtered trace (`t`), with the
 * trace's score for `score_mean` and its flagged-ness for `flag_rate` joined on, and the filter's trace conditions applied.
 * Ends with a WHERE, so callers may append `AND …`. Shared by timeseries and monitors.
 * With `groupBy`, the trace rows carry what grouping needs (see groupSql).
 *
 * Rolled-up hours are read from their rollups (rows.ts), except under a dimension
 * grouping: a trace's dimension value is aggregated from its spans, which rollups do not keep.
 */
export async function measureSource(
  storage: Storage,
  filter: TraceFilter,
  measure: Measure,
  scoreName?: string,
  groupBy?: GroupBy,
): Promise<MeasureSource> {
  return measureSourceSql(filter, measure, await measureRollups(storage, filter, groupBy), scoreName, groupBy);
}

/** The rolled-up hours a measure source reads: none under a dimension grouping, which reads spans alone (below). */
function measureRollups(storage: Storage, filter: TraceFilter, groupBy?: GroupBy): Promise<readonly RolledUpHour[]> {
  return groupBy && groupSql(groupBy).traceColumn ? Promise.resolve([]) : rollupsToRead(storage, filter);
}

/** The source of measureSource with the rolled-up hours known (unused under a dimension grouping). */
export function measureSourceSql(
  filter: TraceFilter,
  measure: Measure,
  rollups: readonly RolledUpHour[],
  scoreName?: string,
  groupBy?: GroupBy,
): MeasureSource {
  const sql = traceFilterSql(filter);
  const group = groupBy ? groupSql(groupBy) : null;
  const traceRows = group?.traceColumn
    ? `
    SELECT ${traceColumnsFor(sql.traceConditions)}, ${group.traceColumn}
    FROM spans FINAL
    PREWHERE ${sql.spanConditions.join(' AND ')}
    GROUP BY trace_id`
    : traceRowsSql(filter, sql, rollups, { texts: conditionsNeedTexts(sql.traceConditions) });
  // After traceRowsSql, which adds the parameters of the rollups it reads.
  const params: Record<string, unknown> = { ...sql.params, ...group?.params };
  // A trace's score for the measure: the mean of its scores of that name.
  const scoreJoin = measure.needsScore
    ? `LEFT JOIN (
        SELECT trace_id, avg(value) AS score_value, 1 AS has_score
        FROM scores FINAL
        WHERE project_id = {projectId:String} AND name = {measureScore:String} AND value IS NOT NULL AND trace_id != ''
        GROUP BY trace_id
      ) AS s USING trace_id`
    : '';
  if (measure.needsScore) params.measureScore = scoreName ?? '';
  // Unmatched rows of a LEFT JOIN take the column default, so unflagged traces count 0.
  const flagJoin = measure.needsFlags
    ? `LEFT JOIN (
        SELECT trace_id, toUInt8(1) AS is_flagged
        FROM trace_flags FINAL
        WHERE project_id = {projectId:String} AND notEmpty(flags)
      ) AS f USING trace_id`
    : '';
  return { from: `(${traceRows}) AS t ${scoreJoin} ${flagJoin} WHERE ${sql.traceConditions.join(' AND ')}`, params };
}

/** Starts (epoch seconds) of the buckets covering [start, end), aligned as toStartOfInterval aligns them. */
export function bucketStarts(startMs: number, endMs: number, stepSeconds: number): number[] {
  const first = Math.floor(startMs / 1000 / stepSeconds) * stepSeconds;
  const out: number[] = [];
  for (let s = first; s * 1000 < endMs; s += stepSeconds) out.push(s);
  return out;
}

