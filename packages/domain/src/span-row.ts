import type { PromotedColumn } from './promoted-attributes.ts';

/**
 * One span as stored in ClickHouse (table `spans`), column for column.
 * Field names are the column names so rows go to the engine as JSONEachRow unchanged.
 */

/** What a span does in an agent run, unified across instrumentation conventions. */
export const SPAN_TYPES = [
  'agent',
  'llm',
  'tool',
  'retrieval',
  'embedding',
  'reranker',
  'chain',
  'guardrail',
  'evaluator',
  'span',
] as const;
export type SpanType = (typeof SPAN_TYPES)[number];

export const SPAN_STATUSES = ['unset', 'ok', 'error'] as const;
export type SpanStatus = (typeof SPAN_STATUSES)[number];

/** Data-quality problems the writer can see in one span on its own. */
export const SPAN_QUALITY_FLAGS = [
  /** start time more than 5 minutes after the batch was received */
  'future_timestamp',
  /** an attribute, input or output value was cut to the configured maximum size */
  'attribute_truncated',
  /** the exporter reported dropped attributes, events or links */
  'data_dropped',
  /** an LLM span without any token counts */
  'missing_token_counts',
  /** an LLM span without a model name */
  'missing_model',
  /** tokens are known but no price matches the model, so cost is unknown */
  'unknown_model_price',
  /** token counts that contradict each other (e.g. cached > input) */
  'inconsistent_token_counts',
] as const;
export type SpanQualityFlag = (typeof SPAN_QUALITY_FLAGS)[number];

/** Flags derived when the spans of a trace are read together (not stored per span). */
export const TRACE_TREE_QUALITY_FLAGS = ['parent_missing'] as const;

export interface SpanRow {
  project_id: string;
  trace_id: string;
  span_id: string;
  parent_span_id: string;
  name: string;
  /** OTel span kind: unspecified | internal | server | client | producer | consumer */
  kind: string;
  span_type: SpanType;
  /** Seconds since the epoch with nine decimals ("1700000000.123456789"), as DateTime64(9) parses it unambiguously. */
  start_time: string;
  end_time: string;
  duration_ms: number;
  status: SpanStatus;
  status_message: string;
  service_name: string;
  environment: string;
  /** The agent framework / instrumentation that produced the span (e.g. vercel-ai, openinference). */
  platform: string;
  scope_name: string;
  scope_version: string;
  agent_name: string;
  model: string;
  provider: string;
  /** The text a person reads for the span's input: the last user turn, a tool's arguments… (messages/readable.ts). */
  input: string;
  /** The text a person reads for the span's output: the assistant's answer or its tool calls. */
  output: string;
  /** The conversation the span sent, as GenAI messages JSON (messages/model.ts); '' when none. */
  input_messages: string;
  /** What came back, as GenAI messages JSON; '' when none. */
  output_messages: string;
  /** System instructions given apart from the messages, as GenAI parts JSON; '' when none. */
  system_instructions: string;
  /** Includes cached input tokens. */
  input_tokens: number;
  /** Includes reasoning tokens. */
  output_tokens: number;
  total_tokens: number;
  cached_input_tokens: number;
  reasoning_tokens: number;
  /** USD. */
  cost: number;
  /** '' when unknown, 'explicit' from a cost attribute, 'price_table' when computed. */
  cost_source: '' | 'explicit' | 'price_table';
  session_id: string;
  user_id: string;
  tool_name: string;
  tool_arguments: string;
  tool_call_id: string;
  time_to_first_token_ms: number | null;
  /** Span attributes; non-string values JSON-encoded. Values promoted verbatim to another
   *  column (input, output, tool_arguments, the message columns) are not repeated here
   *  (see attribute_refs). */
  attributes: Record<string, string>;
  /** Attribute key → the column holding its value (promoted-attributes.ts). */
  attribute_refs: Record<string, PromotedColumn>;
  resource_attributes: Record<string, string>;
  /** JSON array of {name, timeUnixNano, attributes}. */
  events: string;
  /** JSON array of {traceId, spanId, traceState, attributes}. */
  links: string;
  quality_flags: SpanQualityFlag[];
  /** Names of the masking rules that changed this span at ingest (empty: none fired). */
  masked_rules: string[];
  /** Values of the project's dimension keys found on the span or its resource. */
  dimensions: Record<string, string>;
  /** The columns above that were filled from the span's OTLP log records (span-log-join.ts), not from the span. */
  log_record_fields: JoinedField[];
  /** Milliseconds since the epoch the batch was received; the version column: the newest wins on replace. */
  ingested_at: number;
}

/** The columns a span's GenAI event log records can fill (span-log-join.ts). */
export const JOINED_FIELDS = ['system_instructions', 'input_messages', 'output_messages', 'input', 'output'] as const;
export type JoinedField = (typeof JOINED_FIELDS)[number];
