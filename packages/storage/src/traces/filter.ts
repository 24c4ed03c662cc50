import type { TraceFlag } from '@aos/domain';
import { compileTraceQuery } from './query-language/index.ts';
import { msToDateTimeParam as msToParam } from '../sql/values.ts';
import { attributeValueSql } from '../sql/attribute-value.ts';

/**
 * The filter model of traces and spans and its one translation to SQL. Conditions on a
 * span's fields are written once, in spanFieldConditions: a span filter applies them to the
 * spans themselves, a trace filter to "the trace has a span with …". Every endpoint that
 * takes "a filter" goes through traceFilterSql or spanFilterConditions, so a filter is added
 * here once. A trace is in the window when its first span starts in it; a span when it does.
 */

/** The window every filter has: a project and a start-time range, milliseconds since the epoch. */
export interface FilterWindow {
  projectId: string;
  startTimeMs: number;
  endTimeMs: number;
}

/**
 * What a span is filtered on: the span search's fields, an evaluator's span filter. The
 * span-level part of a trace filter is a subset of these (TraceSpanFields).
 */
export interface SpanFilterFields {
  name?: string;
  type?: string;
  kind?: string;
  status?: 'ok' | 'error' | 'unset';
  model?: string;
  provider?: string;
  tool?: string;
  traceId?: string;
  sessionId?: string;
  userId?: string;
  platform?: string;
  minDurationMs?: number;
  maxDurationMs?: number;
  minCost?: number;
  maxCost?: number;
  /** Spans carrying every one of these data-quality flags. */
  qualityFlags?: string[];
  /** Span attributes that must equal the given values (promoted values included). */
  attributes?: Array<{ key: string; value: string }>;
  /** The span's dimension `key` has this value (every pair must match). */
  dimensions?: { key: string; value: string }[];
  /** Case-insensitive text in the span's name, input or output. */
  search?: string;
}

/** A span filter: spans of the project that start in the window and match every field. */
export type SpanFilter = FilterWindow & SpanFilterFields;

/** The span fields a trace filter takes: a trace matches when it has a span with each. */
type TraceSpanFields = Pick<SpanFilterFields, 'sessionId' | 'userId' | 'platform' | 'search' | 'dimensions'>;

export interface TraceFilter extends FilterWindow, TraceSpanFields {
  /** Traces with a score of this name (on the trace or one of its spans), optionally bounded or labelled. */
  score?: { name: string; min?: number; max?: number; label?: string };
  environment?: string;
  /** The trace's status: error when any span failed, else ok when any span said ok, else unset. */
  status?: 'ok' | 'error' | 'unset';
  /** Traces carrying every one of these flags (computed once a trace goes quiet; see trace_flags). */
  flags?: TraceFlag[];
  /** Only traces carrying at least one trace flag. */
  flaggedOnly?: boolean;
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
  // "Has a span with": a subquery a field keeps every span of a matching trace, so the
  // trace's figures stay whole, and lets each field match on a span of its own.
  const { sessionId, userId, platform, search, dimensions } = filter;
  const spanFields: TraceSpanFields = { sessionId, userId, platform, search, dimensions };
  for (const condition of spanFieldConditions(spanFields, sql.params, '')) sql.traceIdConditions.push(spansWhere(condition));
  filter.flags?.forEach((flag, i) => {
    sql.traceIdConditions.push(
      `trace_id IN (SELECT trace_id FROM trace_flags FINAL WHERE project_id = {projectId:String} AND has(flags, {flag${i}:String}))`,
    );
    sql.params[`flag${i}`] = flag;
  });
  sql.spanConditions.push(...sql.traceIdConditions);
  return sql;
}

/** Whether the filter narrows traces by its window alone: traceFilterSql's first two trace conditions. */
export function windowOnly(sql: FilterSql): boolean {
  return sql.traceConditions.length === 2 && sql.traceIdConditions.length === 0;
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

/**
 * The conditions on `spans` rows of a span filter: its project and window, then its fields.
 * Parameters are added to `params` under names starting with `prefix`, so they can sit
 * beside a trace filter's.
 */
export function spanFilterConditions(filter: SpanFilter, params: Record<string, unknown>, prefix = ''): string[] {
  const p = (name: string) => `${prefix}${name}`;
  params[p('projectId')] = filter.projectId;
  params[p('start')] = msToParam(filter.startTimeMs);
  params[p('end')] = msToParam(filter.endTimeMs);
  return [
    `project_id = {${p('projectId')}:String}`,
    `start_time >= {${p('start')}:DateTime64(3)}`,
    `start_time < {${p('end')}:DateTime64(3)}`,
    ...spanFieldConditions(filter, params, prefix),
  ];
}

/** Equality fields: filter field → column. The columns are fixed here, never taken from input. */
const SPAN_EQUALS: Array<[keyof SpanFilterFields, string]> = [
  ['name', 'name'],
  ['type', 'span_type'],
  ['kind', 'kind'],
  ['status', 'status'],
  ['model', 'model'],
  ['provider', 'provider'],
  ['tool', 'tool_name'],
  ['traceId', 'trace_id'],
  ['sessionId', 'session_id'],
  ['userId', 'user_id'],
  ['platform', 'platform'],
];

/** Bounds: filter field → column and comparison. */
const SPAN_RANGES: Array<[keyof SpanFilterFields, string, '>=' | '<=']> = [
  ['minDurationMs', 'duration_ms', '>='],
  ['maxDurationMs', 'duration_ms', '<='],
  ['minCost', 'cost', '>='],
  ['maxCost', 'cost', '<='],
];

/** The one place a span's fields become conditions on its `spans` row, one condition a field (a pair for lists). */
function spanFieldConditions(fields: SpanFilterFields, params: Record<string, unknown>, prefix: string): string[] {
  const p = (name: string) => `${prefix}${name}`;
  const conditions: string[] = [];
  for (const [field, column] of SPAN_EQUALS) {
    if (fields[field] === undefined) continue;
    conditions.push(`${column} = {${p(field)}:String}`);
    params[p(field)] = fields[field];
  }
  for (const [field, column, op] of SPAN_RANGES) {
    if (fields[field] === undefined) continue;
    conditions.push(`${column} ${op} {${p(field)}:Float64}`);
    params[p(field)] = fields[field];
  }
  if (fields.qualityFlags?.length) {
    conditions.push(`hasAll(quality_flags, {${p('qualityFlags')}:Array(String)})`);
    params[p('qualityFlags')] = fields.qualityFlags;
  }
  fields.attributes?.forEach((attribute, i) => {
    conditions.push(`${attributeValueSql(`{${p(`attrKey${i}`)}:String}`, 'NULL')} = {${p(`attrValue${i}`)}:String}`);
    params[p(`attrKey${i}`)] = attribute.key;
    params[p(`attrValue${i}`)] = attribute.value;
  });
  if (fields.search !== undefined) {
    const search = `{${p('search')}:String}`;
    conditions.push(
      `(positionCaseInsensitiveUTF8(name, ${search}) > 0 OR positionCaseInsensitiveUTF8(input, ${search}) > 0 OR positionCaseInsensitiveUTF8(output, ${search}) > 0)`,
    );
    params[p('search')] = fields.search;
  }
  fields.dimensions?.forEach(({ key, value }, i) => {
    conditions.push(`dimensions[{${p(`dimKey${i}`)}:String}] = {${p(`dimValue${i}`)}:String}`);
    params[p(`dimKey${i}`)] = key;
    params[p(`dimValue${i}`)] = value;
  });
  return conditions;
}
