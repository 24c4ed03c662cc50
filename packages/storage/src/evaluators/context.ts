import { restoreAttributes } from '@aos/domain';
import type { Storage } from '../client/client.ts';
import type { EvaluationItem } from './items.ts';
import { nanosToIso } from '../sql/values.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';
import { TRACE_COLUMNS_SQL, type TraceAggregateRow } from '../traces/aggregate.ts';
import { traceRecordFromRow, type TraceRecord } from '../traces/record.ts';

/** Traces of a session an evaluator reads, oldest first; a longer session is judged on its first ones. */
export const MAX_CONTEXT_TRACES = 50;
/** Spans read per trace. */
export const MAX_CONTEXT_SPANS = 2000;
/** Each text (input, output, tool arguments) is cut to this many characters. */
export const MAX_CONTEXT_TEXT_CHARS = 100_000;

/** A span as an evaluator reads it. */
export interface ContextSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  type: string;
  status: string;
  statusMessage: string;
  startTime: string;
  durationMs: number;
  model: string | null;
  cost: number;
  totalTokens: number;
  input: string;
  output: string;
  toolName: string | null;
  toolArguments: string | null;
  attributes: Record<string, string>;
  resourceAttributes: Record<string, string>;
}

export interface ContextTrace {
  trace: TraceRecord;
  /** In start order. */
  spans: ContextSpan[];
}

/** What an evaluator reads about one item: its trace (or the session's traces) and, for a span, the span. */
export interface EvaluationContext {
  item: EvaluationItem;
  traces: ContextTrace[];
  span: ContextSpan | null;
}

interface ContextSpanRow {
  trace_id: string;
  span_id: string;
  parent_span_id: string;
  name: string;
  span_type: string;
  status: string;
  status_message: string;
  start_ns: string;
  duration_ms: number;
  model: string;
  cost: number;
  total_tokens: string;
  input: string;
  output: string;
  tool_name: string;
  tool_arguments: string;
  input_messages: string;
  output_messages: string;
  system_instructions: string;
  attributes: Record<string, string>;
  attribute_refs: Record<string, string>;
  resource_attributes: Record<string, string>;
}

/** The two statements of loadEvaluationContext: the figures of the traces, and their spans with texts cut to MAX_CONTEXT_TEXT_CHARS. */
export function evaluationContextSql(projectId: string, traceIds: readonly string[]): { traces: Statement; spans: Statement } {
  return {
    traces: {
      query: `
          SELECT ${TRACE_COLUMNS_SQL} FROM spans FINAL
          WHERE project_id = {projectId:String} AND trace_id IN {traceIds:Array(String)}
          GROUP BY trace_id ORDER BY trace_start, trace_id`,
      params: { projectId, traceIds },
    },
    spans: {
      query: `
          SELECT trace_id, span_id, parent_span_id, name, span_type, status, status_message,
            toString(toUnixTimestamp64Nano(start_time)) AS start_ns, duration_ms, model, cost, total_tokens,
            leftUTF8(input, {maxChars:UInt32}) AS input, leftUTF8(output, {maxChars:UInt32}) AS output,
            tool_name, leftUTF8(tool_arguments, {maxChars:UInt32}) AS tool_arguments,
            leftUTF8(input_messages, {maxChars:UInt32}) AS input_messages,
            leftUTF8(output_messages, {maxChars:UInt32}) AS output_messages,
            leftUTF8(system_instructions, {maxChars:UInt32}) AS system_instructions,
            attributes, attribute_refs, resource_attributes
          FROM spans FINAL
          WHERE project_id = {projectId:String} AND trace_id IN {traceIds:Array(String)}
          ORDER BY trace_id, start_time, span_id
          LIMIT {maxSpans:UInt32} BY trace_id`,
      params: { projectId, traceIds, maxChars: MAX_CONTEXT_TEXT_CHARS, maxSpans: MAX_CONTEXT_SPANS },
    },
  };
}

/** Loads an item's context, or null when the project has no such trace, span or session. */
export async function loadEvaluationContext(storage: Storage, projectId: string, item: EvaluationItem): Promise<EvaluationContext | null> {
  const traceIds = item.sessionId !== null ? await sessionTraceIds(storage, projectId, item.sessionId) : [item.traceId!];
  if (traceIds.length === 0) return null;
  const { traces: tracesSql, spans: spansSql } = evaluationContextSql(projectId, traceIds);
  const [traceRows, spanRows] = await Promise.all([
    storage.client
      .query({
        query: tracesSql.query,
        query_params: tracesSql.params,
        format: 'JSONEachRow',
        ...named(storage, 'evaluators.context.traces'),
      })
      .then((r) => r.json<TraceAggregateRow>()),
    storage.client
      .query({
        query: spansSql.query,
        query_params: spansSql.params,
        format: 'JSONEachRow',
        ...named(storage, 'evaluators.context.spans'),
      })
      .then((r) => r.json<ContextSpanRow>()),
  ]);
  if (traceRows.length === 0) return null;
  const spansByTrace = new Map<string, ContextSpan[]>();
  for (const row of spanRows) {
    const list = spansByTrace.get(row.trace_id) ?? [];
    list.push(contextSpanFromRow(row));
    spansByTrace.set(row.trace_id, list);
  }
  const traces = traceRows.map((row) => ({ trace: traceRecordFromRow(row), spans: spansByTrace.get(row.trace_id) ?? [] }));
  let span: ContextSpan | null = null;
  if (item.spanId !== null) {
    span = traces[0]?.spans.find((s) => s.spanId === item.spanId) ?? null;
    if (!span) return null;
  }
  return { item, traces, span };
}

async function sessionTraceIds(storage: Storage, projectId: string, sessionId: string): Promise<string[]> {
  const result = await storage.client.query({
    query: `
      SELECT trace_id FROM spans
      WHERE project_id = {projectId:String} AND session_id = {sessionId:String}
      GROUP BY trace_id ORDER BY min(start_time), trace_id LIMIT {limit:UInt32}`,
    query_params: { projectId, sessionId, limit: MAX_CONTEXT_TRACES },
    format: 'JSONEachRow',
    ...named(storage, 'evaluators.context.session-traces'),
  });
  return (await result.json<{ trace_id: string }>()).map((r) => r.trace_id);
}

function contextSpanFromRow(row: ContextSpanRow): ContextSpan {
  return {
    traceId: row.trace_id,
    spanId: row.span_id,
    parentSpanId: row.parent_span_id || null,
    name: row.name,
    type: row.span_type,
    status: row.status,
    statusMessage: row.status_message,
    startTime: nanosToIso(row.start_ns),
    durationMs: row.duration_ms,
    model: row.model || null,
    cost: row.cost,
    totalTokens: Number(row.total_tokens),
    input: row.input,
    output: row.output,
    toolName: row.tool_name || null,
    toolArguments: row.tool_arguments || null,
    attributes: restoreAttributes(row.attributes, row.attribute_refs, row),
    resourceAttributes: row.resource_attributes,
  };
}
