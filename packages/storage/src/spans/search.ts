import type { Storage } from '../client/client.ts';
import { msToDateTimeParam, nanosToDateTimeValue } from '../sql/values.ts';
import { named } from '../sql/query-name.ts';
import { API_SPAN_SQL, apiSpanFromRow, type ApiSpan, type ApiSpanRow } from '../traces/api-span.ts';
import { attributeValueSql } from '../sql/attribute-value.ts';

/** Span search across traces: every field optional but the project and the window. */
export interface SpanSearchFilter {
  projectId: string;
  /** Span start window, milliseconds since the epoch. */
  startTimeMs: number;
  endTimeMs: number;
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
  minDurationMs?: number;
  maxDurationMs?: number;
  minCost?: number;
  maxCost?: number;
  /** Spans carrying every one of these data-quality flags. */
  qualityFlags?: string[];
  /** Span attributes that must equal the given values (promoted values included). */
  attributes?: Array<{ key: string; value: string }>;
  /** Case-insensitive text in the span's name, input or output. */
  search?: string;
}

export interface SpanSearchResult extends ApiSpan {
  traceId: string;
  sessionId: string | null;
  userId: string | null;
}

export interface SpanSearchPage {
  spans: SpanSearchResult[];
  next: { startNs: string; traceId: string; spanId: string } | null;
}

/** Equality filters: request field → column. The columns are fixed here, never taken from input. */
const EQUALS: Array<[keyof SpanSearchFilter, string]> = [
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
];

/**
 * The conditions on `spans` rows of a span search, with their parameters added to
 * `params` under names starting with `prefix` (so they can sit beside a trace filter's).
 */
export function spanSearchConditions(filter: SpanSearchFilter, params: Record<string, unknown>, prefix = ''): string[] {
  const p = (name: string) => `${prefix}${name}`;
  params[p('projectId')] = filter.projectId;
  params[p('start')] = msToDateTimeParam(filter.startTimeMs);
  params[p('end')] = msToDateTimeParam(filter.endTimeMs);
  const conditions = [
    `project_id = {${p('projectId')}:String}`,
    `start_time >= {${p('start')}:DateTime64(3)}`,
    `start_time < {${p('end')}:DateTime64(3)}`,
  ];
  for (const [field, column] of EQUALS) {
    const value = filter[field];
    if (value === undefined) continue;
    conditions.push(`${column} = {${p(field)}:String}`);
    params[p(field)] = value;
  }
  const ranges: Array<[keyof SpanSearchFilter, string, '>=' | '<=']> = [
    ['minDurationMs', 'duration_ms', '>='],
    ['maxDurationMs', 'duration_ms', '<='],
    ['minCost', 'cost', '>='],
    ['maxCost', 'cost', '<='],
  ];
  for (const [field, column, op] of ranges) {
    if (filter[field] === undefined) continue;
    conditions.push(`${column} ${op} {${p(field)}:Float64}`);
    params[p(field)] = filter[field];
  }
  if (filter.qualityFlags?.length) {
    conditions.push(`hasAll(quality_flags, {${p('qualityFlags')}:Array(String)})`);
    params[p('qualityFlags')] = filter.qualityFlags;
  }
  filter.attributes?.forEach((attribute, i) => {
    conditions.push(`${attributeValueSql(`{${p(`attrKey${i}`)}:String}`, 'NULL')} = {${p(`attrValue${i}`)}:String}`);
    params[p(`attrKey${i}`)] = attribute.key;
    params[p(`attrValue${i}`)] = attribute.value;
  });
  if (filter.search !== undefined) {
    const search = `{${p('search')}:String}`;
    conditions.push(
      `(positionCaseInsensitiveUTF8(name, ${search}) > 0 OR positionCaseInsensitiveUTF8(input, ${search}) > 0 OR positionCaseInsensitiveUTF8(output, ${search}) > 0)`,
    );
    params[p('search')] = filter.search;
  }
  return conditions;
}

/**
 * Spans matching the filter, newest first, keyset-paginated on (start time, trace id, span id).
 * Only the API span's columns are read for the rows returned: no input or output text.
 */
export async function searchSpans(
  storage: Storage,
  filter: SpanSearchFilter,
  page: { limit: number; after?: { startNs: string; traceId: string; spanId: string } },
): Promise<SpanSearchPage> {
  const params: Record<string, unknown> = { limit: page.limit + 1 };
  const conditions = spanSearchConditions(filter, params);
  if (page.after) {
    conditions.push('(start_time, trace_id, span_id) < ({afterStart:DateTime64(9)}, {afterTrace:String}, {afterSpan:String})');
    params.afterStart = nanosToDateTimeValue(page.after.startNs);
    params.afterTrace = page.after.traceId;
    params.afterSpan = page.after.spanId;
  }
  const result = await storage.client.query({
    query: `
      SELECT ${API_SPAN_SQL}, trace_id, session_id, user_id
      FROM spans FINAL
      WHERE ${conditions.join(' AND ')}
      ORDER BY start_time DESC, trace_id DESC, span_id DESC
      LIMIT {limit:UInt32}`,
    query_params: params,
    format: 'JSONEachRow',
    ...named(storage, 'spans.search'),
  });
  const rows = await result.json<ApiSpanRow & { trace_id: string; session_id: string; user_id: string }>();
  const last = rows[page.limit - 1];
  return {
    spans: rows.slice(0, page.limit).map((row) => ({
      ...apiSpanFromRow(row),
      traceId: row.trace_id,
      sessionId: row.session_id || null,
      userId: row.user_id || null,
    })),
    next: rows.length > page.limit && last ? { startNs: last.start_ns, traceId: last.trace_id, spanId: last.span_id } : null,
  };
}
