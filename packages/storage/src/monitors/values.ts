import type { Storage } from '../client/client.ts';
import { groupSql, measureByName, measureValue, type GroupBy, type MeasureName } from '../traces/measures.ts';
import { measureSource, type MeasureSource } from '../traces/timeseries.ts';
import type { TraceFilter } from '../traces/filter.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';

/**
 * A measure's value over a whole window, once or per group: what a monitor judges.
 * Built on the same source as the timeseries, so a monitor and its chart agree.
 */

/** Groups judged per evaluation at most; the most extreme ones (in the alerting direction) are kept. */
export const MAX_MONITOR_GROUPS = 1000;
/** Traces kept as evidence of a group's value. */
export const EVIDENCE_TRACES = 20;

export interface MeasureValueRequest {
  measure: MeasureName;
  scoreName?: string;
  groupBy?: GroupBy;
  /** Which end of the groups to keep when there are more than MAX_MONITOR_GROUPS. */
  extreme: 'highest' | 'lowest';
}

export interface GroupValue {
  /** '' when ungrouped, else the group's value ('' for traces without one). */
  group: string;
  value: number | null;
  traces: number;
}

/** The SQL of a group over the rows of `measureSource(…, groupBy)`; '' when ungrouped. */
export function groupSqlOf(groupBy: GroupBy | undefined): string {
  return groupBy ? groupSql(groupBy).column : "''";
}

/** The statement of queryMeasureValues over a measure's source: a row per group, the most extreme first. */
export function measureValuesSql(source: MeasureSource, request: MeasureValueRequest): Statement {
  const query = `
      SELECT ${groupSqlOf(request.groupBy)} AS grp, ${measureByName(request.measure).sql} AS value, count() AS traces
      FROM ${source.from}
      GROUP BY grp
      ORDER BY value ${request.extreme === 'highest' ? 'DESC' : 'ASC'}, grp
      LIMIT {maxGroups:UInt32}`;
  return { query, params: { ...source.params, maxGroups: MAX_MONITOR_GROUPS } };
}

/** The statement of sampleTraceIds over a measure's source: the newest traces of one group. */
export function sampleTracesSql(source: MeasureSource, request: Pick<MeasureValueRequest, 'groupBy'> & { group: string }): Statement {
  const query = `
      SELECT trace_id FROM ${source.from} AND ${groupSqlOf(request.groupBy)} = {evidenceGroup:String}
      ORDER BY trace_start DESC
      LIMIT {evidenceLimit:UInt32}`;
  return { query, params: { ...source.params, evidenceGroup: request.group, evidenceLimit: EVIDENCE_TRACES } };
}

/**
 * The measure over the filter's window, one row per group present. An ungrouped measure
 * always has one row: the measure's empty value (0 for counts, null where there is
 * nothing to average) when no trace matched.
 */
export async function queryMeasureValues(storage: Storage, filter: TraceFilter, request: MeasureValueRequest): Promise<GroupValue[]> {
  const measure = measureByName(request.measure);
  const source = await measureSource(storage, filter, measure, request.scoreName, request.groupBy);
  const statement = measureValuesSql(source, request);
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
    format: 'JSONEachRow',
    ...named(storage, 'monitors.values'),
  });
  const rows = (await result.json<{ grp: string; value: number | string | null; traces: string }>()).map((r) => ({
    group: r.grp,
    value: measureValue(measure, r.value),
    traces: Number(r.traces),
  }));
  if (!request.groupBy && rows.length === 0) return [{ group: '', value: measure.empty, traces: 0 }];
  return rows;
}

/** The newest matching traces of one group in the window: the evidence of a finding. */
export async function sampleTraceIds(
  storage: Storage,
  filter: TraceFilter,
  request: Pick<MeasureValueRequest, 'measure' | 'scoreName' | 'groupBy'> & { group: string },
): Promise<string[]> {
  const source = await measureSource(storage, filter, measureByName(request.measure), request.scoreName, request.groupBy);
  const statement = sampleTracesSql(source, request);
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
    format: 'JSONEachRow',
    ...named(storage, 'monitors.sample-traces'),
  });
  return (await result.json<{ trace_id: string }>()).map((r) => r.trace_id);
}
