import { distinctModels, roundCost } from '@aos/domain';
import { positionalRows } from '../sql/positional-rows.ts';
import { nanosToIso } from '../sql/values.ts';
import { API_SPAN_COLUMNS, type ApiSpanRow } from './api-span.ts';
import { MODEL_SPAN_TYPES } from './aggregate.ts';
import type { TraceRecord } from './record.ts';

/** What the figures read of a span: part of its API span row, and the trace-level values it carries. */
export interface FigureSpanRow
  extends Pick<
    ApiSpanRow,
    | 'parent_span_id' | 'name' | 'span_type' | 'start_ns' | 'end_ns' | 'status' | 'service_name' | 'model' | 'input_tokens'
    | 'output_tokens' | 'total_tokens' | 'cached_input_tokens' | 'reasoning_tokens' | 'cost' | 'quality_flags' | 'masked_rules'
  > {
  session_id: string;
  user_id: string;
  environment: string;
  platform: string;
}

/** The columns of FigureSpanRow: row field → SQL expression (an API span field's as the API span reads it). */
const FIGURE_SPAN_COLUMNS = {
  parent_span_id: API_SPAN_COLUMNS.parent_span_id,
  name: API_SPAN_COLUMNS.name,
  span_type: API_SPAN_COLUMNS.span_type,
  start_ns: API_SPAN_COLUMNS.start_ns,
  end_ns: API_SPAN_COLUMNS.end_ns,
  status: API_SPAN_COLUMNS.status,
  service_name: API_SPAN_COLUMNS.service_name,
  model: API_SPAN_COLUMNS.model,
  input_tokens: API_SPAN_COLUMNS.input_tokens,
  output_tokens: API_SPAN_COLUMNS.output_tokens,
  total_tokens: API_SPAN_COLUMNS.total_tokens,
  cached_input_tokens: API_SPAN_COLUMNS.cached_input_tokens,
  reasoning_tokens: API_SPAN_COLUMNS.reasoning_tokens,
  cost: API_SPAN_COLUMNS.cost,
  quality_flags: API_SPAN_COLUMNS.quality_flags,
  masked_rules: API_SPAN_COLUMNS.masked_rules,
  session_id: 'session_id',
  user_id: 'user_id',
  environment: 'environment',
  platform: 'platform',
} as const satisfies Record<keyof FigureSpanRow, string>;

export type TraceFigures = Omit<TraceRecord, 'input' | 'output'>;

/**
 * A trace's spans, reading the given columns (row field → SQL expression), as an aggregate
 * of tuples in (start time, span id) order, and the reader of those tuples as rows. Tuples
 * sort by their first elements: the start in nanoseconds and the span id, which are also
 * the rows' `start_ns` and `span_id` (written once: a 20,000-span answer is a fifth smaller).
 */
function spanTuples<Row extends { start_ns: string }>(columns: Record<keyof Row & string, string>) {
  const rest = Object.keys(columns).filter((field) => field !== 'start_ns' && field !== 'span_id') as (keyof Row & string)[];
  return {
    sql: `arraySort(groupArray(tuple(toUnixTimestamp64Nano(start_time), span_id, ${rest.map((field) => columns[field]).join(', ')})))`,
    rowOf: positionalRows<Row>(['start_ns', 'span_id', ...rest] as (keyof Row & string)[]),
  };
}

/** The spans as the figures read them (for lists, which show no spans). */
export const FIGURE_SPAN_TUPLES = spanTuples<FigureSpanRow>(FIGURE_SPAN_COLUMNS);

/** The spans as the figures and a trace's tree read them. */
export const API_SPAN_TUPLES = spanTuples<FigureSpanRow & ApiSpanRow>({ ...API_SPAN_COLUMNS, ...FIGURE_SPAN_COLUMNS });

const MODEL_SPAN = new Set<string>(MODEL_SPAN_TYPES);

/** Trace-level values taken from the first span that has one. */
const FIRST_OF = ['session_id', 'user_id', 'environment', 'service_name', 'platform'] as const;

interface UsageSums {
  input: number;
  output: number;
  total: number;
  cached: number;
  reasoning: number;
  cost: number;
}

const noUsage = (): UsageSums => ({ input: 0, output: 0, total: 0, cached: 0, reasoning: 0, cost: 0 });

function addUsage(sums: UsageSums, span: FigureSpanRow): void {
  sums.input += Number(span.input_tokens);
  sums.output += Number(span.output_tokens);
  sums.total += Number(span.total_tokens);
  sums.cached += Number(span.cached_input_tokens);
  sums.reasoning += Number(span.reasoning_tokens);
  sums.cost += span.cost;
}

/** A trace's cost by the usage rule (aggregate.ts): its model spans' when it has any, else all its spans'. */
export function traceCostOfSpans(spans: ReadonlyArray<Pick<FigureSpanRow, 'span_type' | 'cost'>>): number {
  const counted = spans.some((s) => MODEL_SPAN.has(s.span_type)) ? spans.filter((s) => MODEL_SPAN.has(s.span_type)) : spans;
  return counted.reduce((sum, s) => sum + s.cost, 0);
}

/** Earlier of two nanosecond times as the engine writes them (decimal strings without leading zeros). */
const nanosBefore = (a: string, b: string) => (a.length !== b.length ? a.length < b.length : a < b);

/**
 * A trace's figures from its spans, in (start time, span id) order: TRACE_FIGURES_SQL
 * (aggregate.ts) computed here for the one trace whose spans the detail view reads
 * anyway. Planning that SQL cost the engine about 7 ms a query, a third of a trace lookup;
 * this takes microseconds for a normal trace. Where the SQL picks any of several values
 * (a session, a user), this picks the earliest span's. The cost is answered rounded, as
 * traceRecordFromRow answers the engine's.
 */
export function traceFiguresOfSpans(traceId: string, spans: readonly FigureSpanRow[]): TraceFigures {
  let start = spans[0]?.start_ns ?? '0';
  let end = spans[0]?.end_ns ?? '0';
  let root: FigureSpanRow | undefined;
  let errors = 0;
  let anyOk = false;
  const all = noUsage();
  const models = noUsage();
  let modelSpans = 0;
  let flagged = 0;
  let masked = 0;
  const firstOf: Record<(typeof FIRST_OF)[number], string> = { session_id: '', user_id: '', environment: '', service_name: '', platform: '' };
  const modelNames = new Set<string>();
  for (const span of spans) {
    if (nanosBefore(span.start_ns, start)) start = span.start_ns;
    if (nanosBefore(end, span.end_ns)) end = span.end_ns;
    if (!root && span.parent_span_id === '') root = span;
    if (span.status === 'error') errors++;
    else if (span.status === 'ok') anyOk = true;
    addUsage(all, span);
    if (MODEL_SPAN.has(span.span_type)) {
      modelSpans++;
      addUsage(models, span);
    }
    for (const key of FIRST_OF) {
      if (firstOf[key] === '' && span[key] !== '') firstOf[key] = span[key];
    }
    if (span.model !== '') modelNames.add(span.model);
    if (span.quality_flags.length > 0) flagged++;
    if (span.masked_rules.length > 0) masked++;
  }
  // Usage is counted once: only the model spans' when there are any (see aggregate.ts).
  const usage = modelSpans > 0 ? models : all;
  // dateDiff('microsecond', …) / 1000: whole microseconds of each end apart.
  const micros = (nanos: string) => BigInt(nanos) / 1000n;
  return {
    traceId,
    name: (root ?? spans[0])?.name ?? '',
    startTime: nanosToIso(start),
    endTime: nanosToIso(end),
    durationMs: Number(micros(end) - micros(start)) / 1000,
    status: errors > 0 ? 'error' : anyOk ? 'ok' : 'unset',
    spanCount: spans.length,
    errorCount: errors,
    inputTokens: usage.input,
    outputTokens: usage.output,
    totalTokens: usage.total,
    cachedInputTokens: usage.cached,
    reasoningTokens: usage.reasoning,
    cost: roundCost(usage.cost),
    sessionId: firstOf.session_id || null,
    userId: firstOf.user_id || null,
    environment: firstOf.environment || null,
    serviceName: firstOf.service_name || null,
    platform: firstOf.platform || null,
    models: distinctModels([...modelNames].sort()),
    flaggedSpanCount: flagged,
    maskedSpanCount: masked,
  };
}
