import { roundCost } from '@aos/domain';
import { nanosToIso } from '../sql/values.ts';

// A span as the API shows it: the columns read, the row they make, and the one mapping from
// that row to the API's shape (apiSpanFromRow). A trace's tree (detail, figures), the span
// detail (which adds its texts, attributes and events), span search and span export (which
// add the trace, session, user and texts) all read a span through it.

/** The columns of an API span: name in the row → SQL expression. */
export const API_SPAN_COLUMNS = {
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
} as const satisfies Record<keyof ApiSpanRow, string>;

export const API_SPAN_SQL = Object.entries(API_SPAN_COLUMNS)
  .map(([name, sql]) => (name === sql ? name : `${sql} AS ${name}`))
  .join(', ');

export interface ApiSpanRow {
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

export interface ApiSpan {
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

export function apiSpanFromRow(row: ApiSpanRow): ApiSpan {
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
    cost: roundCost(row.cost),
    costSource: row.cost_source || null,
    toolName: row.tool_name || null,
    agentName: row.agent_name || null,
    timeToFirstTokenMs: row.time_to_first_token_ms,
    qualityFlags: row.quality_flags,
    maskedRules: row.masked_rules,
  };
}
