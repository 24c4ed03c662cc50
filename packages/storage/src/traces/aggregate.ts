/**
 * Trace-level figures are computed from the deduplicated spans at query time, so a
 * late span or a replayed batch is reflected at once and nothing has to be kept in sync.
 * This is the engine's definition of a trace's columns; summaries, sessions and rollups
 * select from it, and the trace detail and small list pages compute the same figures
 * from the spans they read anyway (figures.ts, kept equal by
 * test/traces/detail.test.ts). Aliases never reuse a span column name: ClickHouse resolves
 * aliases anywhere in the query, so `sum(cost) AS cost` would capture later references
 * to the column.
 *
 * Usage is counted once: wrapper spans (an agent, a Vercel AI `generateText` call) often
 * report the sum of the model calls below them, so when a trace has model spans (llm,
 * embedding) only those are added up; a trace without any (a remote agent reporting its
 * own usage) adds up what its spans report.
 */
import { SNAPSHOT_SUFFIX_RUN } from '@aos/domain';
import { sqlStringConstant } from '../sql/values.ts';

/** Span types that call a model; traceFiguresOfSpans (figures.ts) reads the same list. */
export const MODEL_SPAN_TYPES = ['llm', 'embedding'] as const;
const spanTypeIn = (types: readonly string[]) => `span_type IN (${types.map(sqlStringConstant).join(', ')})`;
const MODEL_SPAN = spanTypeIn(MODEL_SPAN_TYPES);
const usage = (column: string) => `if(countIf(${MODEL_SPAN}) > 0, sumIf(${column}, ${MODEL_SPAN}), sum(${column}))`;

/**
 * A column's value on the trace's root span (the earliest span without a parent), or on
 * its earliest span when no root has arrived. Written as two conditional aggregates rather
 * than one argMin over (has parent, start time): comparing that tuple on every span took
 * about half of a day's trace aggregation.
 */
export function rootValueSql(column: string): string {
  const root = "parent_span_id = ''";
  return `if(countIf(${root}) > 0, argMinIf(${column}, start_time, ${root}), argMin(${column}, start_time))`;
}

/** Span types whose texts stand for a trace whose root has none (traceTextSql). */
export const TEXT_SPAN_TYPES = ['agent', 'llm'] as const;
const TEXT_SPAN = spanTypeIn(TEXT_SPAN_TYPES);

/**
 * A trace's input or output as one aggregate over its spans: the root span's (the first
 * input, the last output, of the spans without a parent that have one), else the first
 * input (by start time) or the last output (by end time) of its agent and LLM spans; empty
 * when none has one. A trace whose root has no text (an HTTP server span) or has not arrived
 * yet so reads as its agent's or model calls' exchange.
 *
 * One argMin/argMax over a numeric key, root spans ranked before the others in its top
 * bits, rather than the root's value and a fallback as two sets of aggregates: the engine
 * plans each aggregate (about a millisecond apiece for a trace lookup) and copies every
 * candidate text into each; aggregating two hours of traces' whole texts this way took
 * 43 ms instead of 72 ms for the root's texts alone. Nanoseconds since 1970 stay below
 * 2^62 until the year 2116.
 *
 * `column` is the column read (`input_preview` for previews: it is empty exactly when the
 * whole text is, so a preview and the whole text come from the same span); with `bytes`
 * the aggregate is the text's length in bytes, which reads only the column's sizes.
 */
export function traceTextSql(field: 'input' | 'output', column: string = field, read: 'text' | 'bytes' = 'text'): string {
  const value = read === 'text' ? column : `length(${column})`;
  const candidate = `notEmpty(${column}) AND (parent_span_id = '' OR ${TEXT_SPAN})`;
  return field === 'input'
    ? `argMinIf(${value}, bitShiftLeft(toUInt64(parent_span_id != ''), 62) + toUInt64(toUnixTimestamp64Nano(start_time)), ${candidate})`
    : `argMaxIf(${value}, bitShiftLeft(toUInt64(parent_span_id = ''), 62) + toUInt64(toUnixTimestamp64Nano(end_time)), ${candidate})`;
}

/**
 * The distinct model names of a trace's spans, one entry per model: a name dropped when
 * another of the trace names the same model more precisely (distinctModels in @aos/domain,
 * which figures.ts applies: `gpt-4o` beside `gpt-4o-2024-08-06`). lower() changes ASCII
 * letters only, as the domain rule does; the suffix is what follows the shorter name.
 */
const MODEL_NAMES = "arraySort(groupUniqArrayIf(model, model != ''))";
const MORE_SPECIFIC = `o != m AND startsWith(lower(o), lower(m)) AND match(substring(lower(o), length(m) + 1), ${sqlStringConstant(SNAPSHOT_SUFFIX_RUN)})`;
const DISTINCT_MODELS_SQL = `arrayFilter(m -> NOT arrayExists(o -> ${MORE_SPECIFIC}, ${MODEL_NAMES}), ${MODEL_NAMES})`;

/** The trace's cost alone (as `trace_cost`), for scans that need nothing else of the trace. */
export const TRACE_COST_SQL = `${usage('cost')} AS trace_cost`;

/**
 * Each trace figure by name, as an aggregate over the trace's spans. A figure may use
 * another by its name (the engine resolves aliases); traceFiguresSql adds those it needs.
 */
const TRACE_FIGURES: Record<string, string> = {
  trace_start: 'min(start_time)',
  trace_end: 'max(end_time)',
  trace_duration_ms: "dateDiff('microsecond', trace_start, trace_end) / 1000",
  trace_name: rootValueSql('name'),
  span_count: 'count()',
  error_count: "countIf(status = 'error')",
  trace_status: "multiIf(error_count > 0, 'error', countIf(status = 'ok') > 0, 'ok', 'unset')",
  trace_input_tokens: usage('input_tokens'),
  trace_output_tokens: usage('output_tokens'),
  trace_total_tokens: usage('total_tokens'),
  trace_cached_input_tokens: usage('cached_input_tokens'),
  trace_reasoning_tokens: usage('reasoning_tokens'),
  trace_cost: usage('cost'),
  trace_session_id: "anyIf(session_id, session_id != '')",
  trace_user_id: "anyIf(user_id, user_id != '')",
  trace_environment: "anyIf(environment, environment != '')",
  trace_service_name: "anyIf(service_name, service_name != '')",
  trace_platform: "anyIf(platform, platform != '')",
  trace_models: DISTINCT_MODELS_SQL,
  flagged_span_count: 'countIf(notEmpty(quality_flags))',
  masked_span_count: 'countIf(notEmpty(masked_rules))',
  trace_start_ns: 'toString(toUnixTimestamp64Nano(trace_start))',
  trace_end_ns: 'toString(toUnixTimestamp64Nano(trace_end))',
  // Spans per masking rule that changed them (rule -> count), summed over traces by sumMap.
  trace_masked_rules: "sumMap(CAST(arrayMap(r -> (r, toUInt64(1)), masked_rules), 'Map(String, UInt64)'))",
};

/**
 * The select list of `trace_id` and the given figures, with the figures they are computed
 * from. Planning an aggregate costs the engine even when an outer query drops its column
 * (the whole list takes ~20 ms to parse, analyse and plan), so a query that needs only a
 * few figures asks for only those.
 */
export function traceFiguresSql(columns: readonly string[]): string {
  const wanted = new Set<string>();
  const add = (column: string) => {
    const sql = TRACE_FIGURES[column];
    if (sql === undefined || wanted.has(column)) return;
    for (const other of Object.keys(TRACE_FIGURES)) if (new RegExp(`\\b${other}\\b`).test(sql)) add(other);
    wanted.add(column);
  };
  columns.forEach(add);
  // In the table's order, so a figure comes after those it names (aliases need not, but it reads better).
  return ['trace_id', ...Object.keys(TRACE_FIGURES).filter((c) => wanted.has(c)).map((c) => `${TRACE_FIGURES[c]} AS ${c}`)].join(',\n    ');
}


export const TRACE_FIGURES_SQL = traceFiguresSql(Object.keys(TRACE_FIGURES).filter((c) => c !== 'trace_masked_rules'));

/**
 * The figures of a trace row that trace_rollups keeps (migration 0011), in its order: the
 * figures above without the derived text times, plus the masking counts. The table also
 * keeps the trace's texts (TRACE_TEXT_COLUMNS).
 */
export const TRACE_ROLLUP_COLUMNS = [
  'trace_id', 'trace_start', 'trace_end', 'trace_duration_ms', 'trace_name', 'span_count', 'error_count', 'trace_status',
  'trace_input_tokens', 'trace_output_tokens', 'trace_total_tokens', 'trace_cached_input_tokens', 'trace_reasoning_tokens',
  'trace_cost', 'trace_session_id', 'trace_user_id', 'trace_environment', 'trace_service_name', 'trace_platform',
  'trace_models', 'flagged_span_count', 'masked_span_count', 'trace_masked_rules',
] as const;
export type TraceRollupColumn = (typeof TRACE_ROLLUP_COLUMNS)[number];

/** The columns of TRACE_ROLLUP_COLUMNS that conditions name (besides trace_id). */
export function figuresNamedIn(conditions: readonly string[]): TraceRollupColumn[] {
  const text = conditions.join(' ');
  return TRACE_ROLLUP_COLUMNS.filter((c) => c !== 'trace_id' && new RegExp(`\\b${c}\\b`).test(text));
}

/** The trace's input and output, as TRACE_TEXT_SQL names them. */
export const TRACE_TEXT_COLUMNS = ['trace_input', 'trace_output'] as const;

/** Aggregates spans into rows of TRACE_ROLLUP_COLUMNS. */
export const TRACE_ROLLUP_SQL = traceFiguresSql(TRACE_ROLLUP_COLUMNS);

/**
 * The trace's input and output text (traceTextSql). Kept apart from the figures: these
 * columns are the heavy ones (prompts, completions), so lists read them only for the rows
 * they return.
 */
export const TRACE_TEXT_SQL = `
    ${traceTextSql('input')} AS trace_input,
    ${traceTextSql('output')} AS trace_output`;

/** Every column of a trace row. */
export const TRACE_COLUMNS_SQL = `${TRACE_FIGURES_SQL},${TRACE_TEXT_SQL}`;

/** Whether a condition looks at the trace's text (which only spans and rollups hold). */
export function conditionsNeedTexts(conditions: readonly string[]): boolean {
  return conditions.some((c) => /\btrace_(input|output)\b/.test(c));
}

/** The trace columns a query needs: the text only when a condition looks at it. */
export function traceColumnsFor(conditions: readonly string[]): string {
  return conditionsNeedTexts(conditions) ? TRACE_COLUMNS_SQL : TRACE_FIGURES_SQL;
}

/** A trace row as the SQL above returns it (64-bit integers arrive as strings). */
export interface TraceAggregateRow {
  trace_id: string;
  trace_start_ns: string;
  trace_end_ns: string;
  trace_duration_ms: number;
  trace_name: string;
  trace_input: string;
  trace_output: string;
  span_count: string;
  error_count: string;
  trace_status: string;
  trace_input_tokens: string;
  trace_output_tokens: string;
  trace_total_tokens: string;
  trace_cached_input_tokens: string;
  trace_reasoning_tokens: string;
  trace_cost: number;
  trace_session_id: string;
  trace_user_id: string;
  trace_environment: string;
  trace_service_name: string;
  trace_platform: string;
  trace_models: string[];
  flagged_span_count: string;
  masked_span_count: string;
}
