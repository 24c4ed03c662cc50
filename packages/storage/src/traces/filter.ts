import type { TraceFlag } from '@aos/domain';
import { compileTraceQuery } from './query-language/index.ts';
import { msToDateTimeParam as msToParam } from '../sql/values.ts';

/**
 * The trace filter model and its translation to SQL. Every endpoint that takes
 * "a filter" goes through `traceFilterSql`, so a new filter is added here once.
 */

export interface TraceFilter {
  projectId: string;
  /** Milliseconds since the epoch; a trace is in the window when its first span starts in it. */
  startTimeMs: number;
  endTimeMs: number;
  /** Traces with a score of this name (on the trace or one of its spans), optionally bounded or labelled. */
  score?: { name: string; min?: number; max?: number; label?: string };
  environment?: string;
  /** The trace's status: error when any span failed, else ok when any span said ok, else unset. */
  status?: 'ok' | 'error' | 'unset';
  /** Traces with a span of this session / user / platform. */
  sessionId?: string;
  userId?: string;
  platform?: string;
  /** Case-insensitive text in a span name, input or output of the trace. */
  search?: string;
  /** Traces carrying every one of these flags (computed once a trace goes quiet; see trace_flags). */
  flags?: TraceFlag[];
  /** Only traces carrying at least one trace flag. */
  flaggedOnly?: boolean;
  /** Traces with a span whose dimension `key` has this value (every pair must match). */
  dimensions?: { key: string; value: string }[];
  /** A query-language expression (query-language/parser.ts); callers check it first to answer 400. */
  query?: string;
  /** Only these traces (an evaluator asking which of the traces that just completed it applies to). */
  traceIds?: string[];
}

/** Spans of a trace may start before or after the trace's first span lands in the window;
 *  the span scan looks this far around the window so trace figures are whole. */
export const TRACE_SPAN_MARGIN_MS = 60 * 60 * 1000;

/** Where the filter's span scan ends (`scanEnd` in traceFilterSql's parameters), ms since the epoch. */
export const scanEndMs = (filter: Pick<TraceFilter, 'endTimeMs'>) => filter.endTimeMs + TRACE_SPAN_MARGIN_MS;

export interface FilterSql {
  /**
   * Conditions on `spans` rows (no alias), joined with AND: the scan window, then
   * traceIdConditions. They look only at project, start time and trace id, which every copy
   * of a span shares, so they may go in PREWHERE, ahead of FINAL (see rows.ts).
   */
  spanConditions: string[];
  /** The conditions that only look at trace_id (`trace_id IN …`): they hold on any table with the column. */
  traceIdConditions: string[];
  /** Conditions on the aggregated trace columns, joined with AND. */
  traceConditions: string[];
  params: Record<string, unknown>;
}

export function traceFilterSql(filter: TraceFilter): FilterSql {
  const sql: FilterSql = {
    spanConditions: [
      'project_id = {projectId:String}',
      'start_time >= {scanStart:DateTime64(3)}',
      'start_time < {scanEnd:DateTime64(3)}',
    ],
    traceIdConditions: [],
    traceConditions: ['trace_start >= {startTime:DateTime64(3)}', 'trace_start < {endTime:DateTime64(3)}'],
    params: {
      projectId: filter.projectId,
      scanStart: msToParam(filter.startTimeMs - TRACE_SPAN_MARGIN_MS),
      scanEnd: msToParam(scanEndMs(filter)),
      startTime: msToParam(filter.startTimeMs),
      endTime: msToParam(filter.endTimeMs),
    },
  };
  if (filter.traceIds !== undefined) {
    sql.traceIdConditions.push('trace_id IN {traceIds:Array(String)}');
    sql.params.traceIds = filter.traceIds;
  }
  if (filter.score) addScoreCondition(sql, filter.score);
  if (filter.environment !== undefined) {
    sql.traceConditions.push('trace_environment = {environment:String}');
    sql.params.environment = filter.environment;
  }
  if (filter.status !== undefined) {
    sql.traceConditions.push('trace_status = {status:String}');
    sql.params.status = filter.status;
  }
  if (filter.flaggedOnly) {
    sql.traceIdConditions.push(
      'trace_id IN (SELECT trace_id FROM trace_flags FINAL WHERE project_id = {projectId:String} AND notEmpty(flags))',
    );
  }
  if (filter.query !== undefined) {
    // One boolean over the aggregated row; span and score predicates are trace_id IN (…), so and/or/not hold.
    const compiled = compileTraceQuery(filter.query);
    sql.traceConditions.push(compiled.condition);
    Object.assign(sql.params, compiled.params);
  }
  // "Has a span with": a subquery keeps every span of a matching trace, so the trace's
  // figures stay whole.
  if (filter.sessionId !== undefined) {
    sql.traceIdConditions.push(spansWhere('session_id = {sessionId:String}'));
    sql.params.sessionId = filter.sessionId;
  }
  if (filter.userId !== undefined) {
    sql.traceIdConditions.push(spansWhere('user_id = {userId:String}'));
    sql.params.userId = filter.userId;
  }
  if (filter.platform !== undefined) {
    sql.traceIdConditions.push(spansWhere('platform = {platform:String}'));
    sql.params.platform = filter.platform;
  }
  if (filter.search !== undefined) {
    sql.traceIdConditions.push(
      spansWhere(
        '(positionCaseInsensitiveUTF8(name, {search:String}) > 0 OR positionCaseInsensitiveUTF8(input, {search:String}) > 0 OR positionCaseInsensitiveUTF8(output, {search:String}) > 0)',
      ),
    );
    sql.params.search = filter.search;
  }
  filter.dimensions?.forEach(({ key, value }, i) => {
    sql.traceIdConditions.push(spansWhere(`dimensions[{dimKey${i}:String}] = {dimValue${i}:String}`));
    sql.params[`dimKey${i}`] = key;
    sql.params[`dimValue${i}`] = value;
  });
  filter.flags?.forEach((flag, i) => {
    sql.traceIdConditions.push(
      `trace_id IN (SELECT trace_id FROM trace_flags FINAL WHERE project_id = {projectId:String} AND has(flags, {flag${i}:String}))`,
    );
    sql.params[`flag${i}`] = flag;
  });
  sql.spanConditions.push(...sql.traceIdConditions);
  return sql;
}

/** Traces of the scanned window that have a span meeting `condition`. */
function spansWhere(condition: string): string {
  return `trace_id IN (
    SELECT trace_id FROM spans
    WHERE project_id = {projectId:String} AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)}
      AND ${condition})`;
}

/** Keeps the spans of traces that carry a matching live score (trace or span scores). */
function addScoreCondition(sql: FilterSql, score: NonNullable<TraceFilter['score']>) {
  const conditions = ['project_id = {projectId:String}', "trace_id != ''", 'name = {scoreName:String}'];
  sql.params.scoreName = score.name;
  if (score.min !== undefined) {
    conditions.push('value >= {scoreMin:Float64}');
    sql.params.scoreMin = score.min;
  }
  if (score.max !== undefined) {
    conditions.push('value <= {scoreMax:Float64}');
    sql.params.scoreMax = score.max;
  }
  if (score.label !== undefined) {
    conditions.push('string_value = {scoreLabel:String}');
    sql.params.scoreLabel = score.label;
  }
  sql.traceIdConditions.push(`trace_id IN (SELECT trace_id FROM scores FINAL WHERE ${conditions.join(' AND ')})`);
}
