import { restoreAttributes } from '@aos/domain';
import type { Storage } from '../client.ts';
import { nanosToIso } from '../sql/values.ts';
import { named } from '../sql/query-name.ts';

/** The columns of a span shown in a trace's tree: name in the row → SQL expression. */
export const SPAN_SUMMARY_COLUMNS = {
  span_id: 'span_id',
  parent_span_id: 'parent_span_id',
  name: 'name',
  kind: 'kind',
  span_type: 'span_type',
  start_ns: 'toString(toUnixTimestamp64Nano(start_time))',
  end_ns: 'toString(toUnixTimestamp64Nano(end_time))',
  duration_ms: 'duration_ms',
  status: 'status',
  status_message: 'status_message',
  service_name: 'service_name',
  model: 'model',
  provider: 'provider',
  input_tokens: 'input_tokens',
  output_tokens: 'output_tokens',
  total_tokens: 'total_tokens',
  cached_input_tokens: 'cached_input_tokens',
  reasoning_tokens: 'reasoning_tokens',
  cost: 'cost',
  cost_source: 'cost_source',
  tool_name: 'tool_name',
  agent_name: 'agent_name',
  time_to_first_token_ms: 'time_to_first_token_ms',
  quality_flags: 'quality_flags',
  masked_rules: 'masked_rules',
} as const satisfies Record<keyof SpanSummaryRow, string>;

export const SPAN_SUMMARY_SQL = Object.entries(SPAN_SUMMARY_COLUMNS)
  .map(([name, sql]) => (name === sql ? name : `${sql} AS ${name}`))
  .join(', ');

export interface SpanSummaryRow {
  span_id: string;
  parent_span_id: string;
  name: string;
  kind: string;
  span_type: string;
  start_ns: string;
  end_ns: string;
  duration_ms: number;
  status: string;
  status_message: string;
  service_name: string;
  model: string;
  provider: string;
  input_tokens: string;
  output_tokens: string;
  total_tokens: string;
  cached_input_tokens: string;
  reasoning_tokens: string;
  cost: number;
  cost_source: string;
  tool_name: string;
  agent_name: string;
  time_to_first_token_ms: number | null;
  quality_flags: string[];
  masked_rules: string[];
}

interface SpanDetailRow extends SpanSummaryRow {
  trace_id: string;
  environment: string;
  platform: string;
  scope_name: string;
  scope_version: string;
  input: string;
  output: string;
  session_id: string;
  user_id: string;
  tool_arguments: string;
  tool_call_id: string;
  attributes: Record<string, string>;
  attribute_refs: Record<string, string>;
  resource_attributes: Record<string, string>;
  dimensions: Record<string, string>;
  events: string;
  links: string;
  parent_found: number;
}

export interface SpanSummary {
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: string;
  type: string;
  startTime: string;
  endTime: string;
  durationMs: number;
  status: string;
  statusMessage: string;
  serviceName: string;
  model: string | null;
  provider: string | null;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cachedInputTokens: number;
  reasoningTokens: number;
  cost: number;
  costSource: string | null;
  toolName: string | null;
  agentName: string | null;
  timeToFirstTokenMs: number | null;
  qualityFlags: string[];
  /** Masking rules that changed the span at ingest. */
  maskedRules: string[];
}

export interface SpanEvent {
  name: string;
  time: string;
  attributes: Record<string, unknown>;
}

export interface SpanDetail extends SpanSummary {
  traceId: string;
  environment: string | null;
  platform: string | null;
  scope: { name: string; version: string };
  input: string;
  output: string;
  sessionId: string | null;
  userId: string | null;
  toolArguments: string | null;
  toolCallId: string | null;
  attributes: Record<string, string>;
  resourceAttributes: Record<string, string>;
  /** Values of the project's dimension keys at ingest. */
  dimensions: Record<string, string>;
  events: SpanEvent[];
  links: unknown[];
}

/** One span in full, or null. `parent_missing` is added when its parent is not stored. */
export async function getSpanDetail(
  storage: Storage,
  projectId: string,
  traceId: string,
  spanId: string,
): Promise<SpanDetail | null> {
  const result = await storage.client.query({
    query: `
      SELECT ${SPAN_SUMMARY_SQL},
        trace_id, environment, platform, scope_name, scope_version, input, output, session_id, user_id,
        tool_arguments, tool_call_id, attributes, attribute_refs, resource_attributes, dimensions, events, links,
        parent_span_id = '' OR parent_span_id IN (
          SELECT span_id FROM spans
          WHERE project_id = {projectId:String} AND trace_id = {traceId:String}
        ) AS parent_found
      FROM spans FINAL
      WHERE project_id = {projectId:String} AND trace_id = {traceId:String} AND span_id = {spanId:String}
      LIMIT 1`,
    query_params: { projectId, traceId, spanId },
    format: 'JSONEachRow',
    ...named(storage, 'spans.detail'),
  });
  const [row] = await result.json<SpanDetailRow>();
  if (!row) return null;
  const summary = spanSummaryFromRow(row);
  if (!row.parent_found) summary.qualityFlags = [...summary.qualityFlags, 'parent_missing'];
  return {
    ...summary,
    traceId: row.trace_id,
    environment: row.environment || null,
    platform: row.platform || null,
    scope: { name: row.scope_name, version: row.scope_version },
    input: row.input,
    output: row.output,
    sessionId: row.session_id || null,
    userId: row.user_id || null,
    toolArguments: row.tool_arguments || null,
    toolCallId: row.tool_call_id || null,
    attributes: restoreAttributes(row.attributes, row.attribute_refs, {
      input: row.input,
      output: row.output,
      tool_arguments: row.tool_arguments,
    }),
    resourceAttributes: row.resource_attributes,
    dimensions: row.dimensions,
    events: parseEvents(row.events),
    links: parseJsonArray(row.links),
  };
}

export function spanSummaryFromRow(row: SpanSummaryRow): SpanSummary {
  return {
    spanId: row.span_id,
    parentSpanId: row.parent_span_id || null,
    name: row.name,
    kind: row.kind,
    type: row.span_type,
    startTime: nanosToIso(row.start_ns),
    endTime: nanosToIso(row.end_ns),
    durationMs: row.duration_ms,
    status: row.status,
    statusMessage: row.status_message,
    serviceName: row.service_name,
    model: row.model || null,
    provider: row.provider || null,
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
    totalTokens: Number(row.total_tokens),
    cachedInputTokens: Number(row.cached_input_tokens),
    reasoningTokens: Number(row.reasoning_tokens),
    cost: row.cost,
    costSource: row.cost_source || null,
    toolName: row.tool_name || null,
    agentName: row.agent_name || null,
    timeToFirstTokenMs: row.time_to_first_token_ms,
    qualityFlags: row.quality_flags,
    maskedRules: row.masked_rules,
  };
}

function parseEvents(text: string): SpanEvent[] {
  return parseJsonArray(text).map((e) => {
    const event = e as { name?: string; timeUnixNano?: string; attributes?: Record<string, unknown> };
    return {
      name: event.name ?? '',
      time: event.timeUnixNano ? nanosToIso(event.timeUnixNano) : '',
      attributes: event.attributes ?? {},
    };
  });
}

function parseJsonArray(text: string): unknown[] {
  if (!text) return [];
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
}
