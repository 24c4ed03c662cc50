import { roundCost } from '@aos/domain';
import { nanosToIso } from '../sql/values.ts';
import type { TraceAggregateRow } from './aggregate.ts';

/** A trace with its trace-level figures, as the API returns it. */
export interface TraceRecord {
  traceId: string;
  name: string;
  startTime: string;
  endTime: string;
  durationMs: number;
  status: string;
  spanCount: number;
  errorCount: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cachedInputTokens: number;
  reasoningTokens: number;
  /** USD, rounded to 1e-10 (roundCost). */
  cost: number;
  sessionId: string | null;
  userId: string | null;
  environment: string | null;
  serviceName: string | null;
  platform: string | null;
  /** One entry per model (distinctModels: `gpt-4o-2024-08-06`, not also `gpt-4o`). */
  models: string[];
  flaggedSpanCount: number;
  /** Spans changed by the project's masking policy at ingest. */
  maskedSpanCount: number;
  /** The root span's input, else the first agent or LLM input (traceTextSql). */
  input: string;
  /** The root span's output, else the last agent or LLM output. */
  output: string;
}

/** The fields of a trace row, e.g. the columns a saved view may show. */
export const TRACE_RECORD_FIELDS = [
  'traceId', 'name', 'startTime', 'endTime', 'durationMs', 'status', 'spanCount', 'errorCount', 'inputTokens',
  'outputTokens', 'totalTokens', 'cachedInputTokens', 'reasoningTokens', 'cost', 'sessionId', 'userId', 'environment',
  'serviceName', 'platform', 'models', 'flaggedSpanCount', 'maskedSpanCount', 'input', 'output',
] as const satisfies readonly (keyof TraceRecord)[];

// Every field of TraceRecord must be listed: this fails to compile when one is missing.
type UnlistedTraceFields = Exclude<keyof TraceRecord, (typeof TRACE_RECORD_FIELDS)[number]>;
const _allTraceFieldsListed: UnlistedTraceFields extends never ? true : UnlistedTraceFields = true;
void _allTraceFieldsListed;

/** The API form of a trace row selected with TRACE_COLUMNS_SQL. */
export function traceRecordFromRow(row: TraceAggregateRow): TraceRecord {
  return {
    traceId: row.trace_id,
    name: row.trace_name,
    startTime: nanosToIso(row.trace_start_ns),
    endTime: nanosToIso(row.trace_end_ns),
    durationMs: row.trace_duration_ms,
    status: row.trace_status,
    spanCount: Number(row.span_count),
    errorCount: Number(row.error_count),
    inputTokens: Number(row.trace_input_tokens),
    outputTokens: Number(row.trace_output_tokens),
    totalTokens: Number(row.trace_total_tokens),
    cachedInputTokens: Number(row.trace_cached_input_tokens),
    reasoningTokens: Number(row.trace_reasoning_tokens),
    cost: roundCost(row.trace_cost),
    sessionId: row.trace_session_id || null,
    userId: row.trace_user_id || null,
    environment: row.trace_environment || null,
    serviceName: row.trace_service_name || null,
    platform: row.trace_platform || null,
    models: row.trace_models,
    flaggedSpanCount: Number(row.flagged_span_count),
    maskedSpanCount: Number(row.masked_span_count),
    input: row.trace_input,
    output: row.trace_output,
  };
}
