import type { Storage } from '../client/client.ts';
import { traceColumnsFor } from '../traces/aggregate.ts';
import { spanFilterConditions, traceFilterSql, type SpanFilter, type SpanFilterFields, type TraceFilter } from '../traces/filter.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';

/**
 * The items an evaluator judges, selected with the one trace filter (traceFilterSql) and,
 * for span evaluators, a span filter (spanFilterConditions). Items are ordered by a string key
 * (trace id, trace id/span id, or session id) so chunks of a backfill follow a keyset
 * cursor, and sampling is a hash of (evaluator, key): the same item is always in or out.
 */
export type EvaluationTarget = 'trace' | 'span' | 'session';

export interface EvaluationItem {
  traceId: string | null;
  spanId: string | null;
  sessionId: string | null;
}

export interface ItemSelection {
  target: EvaluationTarget;
  /** Project, window (trace start) and the evaluator's trace filter. */
  filter: TraceFilter;
  /** The span filter's fields; project and window come from the trace filter. */
  spanFilter?: SpanFilterFields;
  /** Keep a share of the items, chosen by a hash of the evaluator id and the item key. */
  sampling?: { evaluatorId: string; rate: number };
}

/** The key of an item: what a backfill records as judged. */
export function evaluationItemKey(item: EvaluationItem): string {
  if (item.sessionId !== null) return item.sessionId;
  return item.spanId !== null ? `${item.traceId}/${item.spanId}` : item.traceId!;
}

const SAMPLE_SCALE = 1_000_000;

function itemsSql(selection: ItemSelection, params: Record<string, unknown>, afterKey?: string): string {
  const sql = traceFilterSql(selection.filter);
  Object.assign(params, sql.params);
  if (afterKey !== undefined && selection.target !== 'session') {
    // Trace and span keys start with the trace id: later pages aggregate only later traces.
    sql.spanConditions.push('trace_id >= {afterTrace:String}');
    params.afterTrace = afterKey.split('/')[0];
  }
  const traces = `
    SELECT ${traceColumnsFor(sql.traceConditions)} FROM spans FINAL
    PREWHERE ${sql.spanConditions.join(' AND ')} GROUP BY trace_id`;
  const matching = `SELECT trace_id, trace_session_id FROM (${traces}) WHERE ${sql.traceConditions.join(' AND ')}`;
  let inner: string;
  if (selection.target === 'trace') {
    inner = `SELECT trace_id AS item_key, trace_id AS item_trace, '' AS item_span, '' AS item_session FROM (${matching})`;
  } else if (selection.target === 'span') {
    const spanFilter: SpanFilter = {
      ...selection.spanFilter,
      projectId: selection.filter.projectId,
      startTimeMs: selection.filter.startTimeMs,
      endTimeMs: selection.filter.endTimeMs,
    };
    const conditions = spanFilterConditions(spanFilter, params, 'sf_');
    inner = `
      SELECT concat(trace_id, '/', span_id) AS item_key, trace_id AS item_trace, span_id AS item_span, '' AS item_session
      FROM spans FINAL
      WHERE ${conditions.join(' AND ')} AND trace_id IN (SELECT trace_id FROM (${matching}))`;
  } else {
    inner = `
      SELECT DISTINCT trace_session_id AS item_key, '' AS item_trace, '' AS item_span, trace_session_id AS item_session
      FROM (${matching}) WHERE trace_session_id != ''`;
  }
  const outer = ['1'];
  if (selection.sampling && selection.sampling.rate < 1) {
    outer.push('sipHash64({sampleSeed:String}, item_key) % 1000000 < {sampleBelow:UInt64}');
    params.sampleSeed = selection.sampling.evaluatorId;
    params.sampleBelow = Math.round(selection.sampling.rate * SAMPLE_SCALE);
  }
  return `SELECT item_key, item_trace, item_span, item_session FROM (${inner}) WHERE ${outer.join(' AND ')}`;
}

/** The statement counting the items the selection holds. */
export function evaluationItemCountSql(selection: ItemSelection): Statement {
  const params: Record<string, unknown> = {};
  const query = `SELECT count() AS n FROM (${itemsSql(selection, params)})`;
  return { query, params };
}

/** The statement of a page of items in key order after `afterKey`, one row more than the page to tell if more follow. */
export function evaluationItemPageSql(selection: ItemSelection, page: { limit: number; afterKey?: string }): Statement {
  const params: Record<string, unknown> = { limit: page.limit + 1 };
  let query = itemsSql(selection, params, page.afterKey);
  if (page.afterKey !== undefined) {
    query = `SELECT * FROM (${query}) WHERE item_key > {afterKey:String}`;
    params.afterKey = page.afterKey;
  }
  return { query: `${query} ORDER BY item_key LIMIT {limit:UInt32}`, params };
}

/** How many items the selection holds. */
export async function countEvaluationItems(storage: Storage, selection: ItemSelection): Promise<number> {
  const statement = evaluationItemCountSql(selection);
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
    format: 'JSONEachRow',
    ...named(storage, 'evaluators.items.count'),
  });
  const [row] = await result.json<{ n: string }>();
  return Number(row?.n ?? 0);
}

/** A page of items in key order after `afterKey`. */
export async function listEvaluationItems(
  storage: Storage,
  selection: ItemSelection,
  page: { limit: number; afterKey?: string },
): Promise<{ items: EvaluationItem[]; lastKey: string | null; more: boolean }> {
  const statement = evaluationItemPageSql(selection, page);
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
    format: 'JSONEachRow',
    ...named(storage, 'evaluators.items.list'),
  });
  const rows = await result.json<{ item_key: string; item_trace: string; item_span: string; item_session: string }>();
  const pageRows = rows.slice(0, page.limit);
  return {
    items: pageRows.map((r) => ({ traceId: r.item_trace || null, spanId: r.item_span || null, sessionId: r.item_session || null })),
    lastKey: pageRows.at(-1)?.item_key ?? null,
    more: rows.length > page.limit,
  };
}
