import type { SpanRow } from '@aos/domain';
import { RowBinaryWriter } from './rowbinary-writer.ts';
import { SPAN_COLUMNS } from './writes.ts';

/**
 * Span rows as RowBinary: the format ingest's decode threads write, Redis holds and both
 * engines read (the embedded one through a file, a server as an insert's body). Against
 * JSONCompactEachRow through a file: less JS to encode and less engine CPU to parse
 * (docs/benchmarks.md, "Engine write benchmark", "Path").
 */

/**
 * Each column's type in the `spans` table (migrations 0001-0019, single and cluster alike),
 * spelled as DESCRIBE TABLE shows it. RowBinary carries no types: the bytes are read as the
 * table's types, so a column whose type changes must change here too (a test compares this
 * with DESCRIBE TABLE spans on a migrated engine).
 */
export const SPAN_COLUMN_TYPES: Readonly<Record<(typeof SPAN_COLUMNS)[number], string>> = {
  project_id: 'String', trace_id: 'String', span_id: 'String', parent_span_id: 'String', name: 'String',
  kind: 'LowCardinality(String)', span_type: 'LowCardinality(String)',
  start_time: "DateTime64(9, 'UTC')", end_time: "DateTime64(9, 'UTC')",
  duration_ms: 'Float64', status: 'LowCardinality(String)', status_message: 'String',
  service_name: 'LowCardinality(String)', environment: 'LowCardinality(String)', platform: 'LowCardinality(String)',
  scope_name: 'LowCardinality(String)', scope_version: 'LowCardinality(String)', agent_name: 'LowCardinality(String)',
  model: 'LowCardinality(String)', provider: 'LowCardinality(String)',
  input: 'String', output: 'String', input_messages: 'String', output_messages: 'String', system_instructions: 'String',
  input_tokens: 'UInt64', output_tokens: 'UInt64', total_tokens: 'UInt64', cached_input_tokens: 'UInt64', reasoning_tokens: 'UInt64',
  cost: 'Float64', cost_source: 'LowCardinality(String)', session_id: 'String', user_id: 'String',
  tool_name: 'LowCardinality(String)', tool_arguments: 'String', tool_call_id: 'String',
  time_to_first_token_ms: 'Nullable(Float64)',
  attributes: 'Map(LowCardinality(String), String)', attribute_refs: 'Map(LowCardinality(String), LowCardinality(String))',
  resource_attributes: 'Map(LowCardinality(String), String)',
  events: 'String', links: 'String',
  quality_flags: 'Array(LowCardinality(String))', masked_rules: 'Array(LowCardinality(String))',
  dimensions: 'Map(LowCardinality(String), String)', log_record_fields: 'Array(LowCardinality(String))',
  ingested_at: 'UInt64',
};

/** How a value of a type is laid out in RowBinary (LowCardinality changes nothing there). */
type Layout = 'string' | 'nanos' | 'float' | 'uint64' | 'nullableFloat' | 'stringMap' | 'stringArray';

const LAYOUTS: Readonly<Record<string, Layout>> = {
  String: 'string',
  'LowCardinality(String)': 'string',
  "DateTime64(9, 'UTC')": 'nanos',
  Float64: 'float',
  UInt64: 'uint64',
  'Nullable(Float64)': 'nullableFloat',
  'Map(LowCardinality(String), String)': 'stringMap',
  'Map(LowCardinality(String), LowCardinality(String))': 'stringMap',
  'Array(LowCardinality(String))': 'stringArray',
};

function layoutOf(type: string): Layout {
  const layout = LAYOUTS[type];
  if (layout === undefined) throw new Error(`no RowBinary layout for the column type ${type}`);
  return layout;
}

/** The columns in SPAN_COLUMNS order, each with its layout: what one row is written as. */
const ROW_LAYOUT: readonly (readonly [keyof SpanRow, Layout])[] = SPAN_COLUMNS.map((c) => [c, layoutOf(SPAN_COLUMN_TYPES[c])] as const);

/**
 * JSON has no NaN or infinity: the JSON rows carried null for them, which the engine stored
 * as 0 (NULL where the column is Nullable). RowBinary keeps that, so both formats store the same.
 */
const finiteOr = <T>(v: number, otherwise: T): number | T => (Number.isFinite(v) ? v : otherwise);

/**
 * A count as UInt64, stored as the JSON rows stored it: not finite as above (0); past 2^53,
 * where a double stands for many integers, the one its shortest decimal names (what
 * JSON.stringify wrote). Counts past UInt64 (a double attribute like 1e30), which the
 * engine wrapped or refused with the whole batch as JSON, are kept at UInt64's largest
 * value. Counts are whole and not negative (domain/tokens.ts).
 */
const UINT64_MAX = 18_446_744_073_709_551_615n;
function uint64Of(v: number): number | bigint {
  if (!Number.isFinite(v)) return 0;
  if (v <= Number.MAX_SAFE_INTEGER) return v;
  return v < 2 ** 64 ? BigInt(String(v)) : UINT64_MAX;
}

/** This thread's buffer, reused by every call (each call copies its rows out before returning). */
const writer = new RowBinaryWriter();

/** Encodes span rows as RowBinary, columns in SPAN_COLUMNS order, in a buffer of their own. */
export function encodeSpanRowsRowBinary(rows: readonly SpanRow[]): Buffer {
  writer.reset();
  for (const row of rows) writeSpanRow(row);
  return writer.take();
}

/**
 * One row, column by column in SPAN_COLUMNS order, each as its type in SPAN_COLUMN_TYPES
 * lays it out. Spelled out rather than walked from the layout table: reading a property by
 * a name that changes each column, and choosing the layout each value, were a third of the
 * encoder's time; a named read of the same row shape is one load. Tests read every column
 * back by SPAN_COLUMN_TYPES, so an order that drifts from SPAN_COLUMNS fails them.
 */
function writeSpanRow(row: SpanRow): void {
  const w = writer;
  w.recurringString(row.project_id);
  w.string(row.trace_id);
  w.string(row.span_id);
  w.string(row.parent_span_id);
  w.string(row.name);
  w.recurringString(row.kind);
  w.recurringString(row.span_type);
  w.dateTime64Nanos(row.start_time);
  w.dateTime64Nanos(row.end_time);
  w.float64(finiteOr(row.duration_ms, 0));
  w.recurringString(row.status);
  w.string(row.status_message);
  w.recurringString(row.service_name);
  w.recurringString(row.environment);
  w.recurringString(row.platform);
  w.recurringString(row.scope_name);
  w.recurringString(row.scope_version);
  w.recurringString(row.agent_name);
  w.recurringString(row.model);
  w.recurringString(row.provider);
  w.string(row.input);
  w.string(row.output);
  w.string(row.input_messages);
  w.string(row.output_messages);
  w.string(row.system_instructions);
  writeCount(row.input_tokens);
  writeCount(row.output_tokens);
  writeCount(row.total_tokens);
  writeCount(row.cached_input_tokens);
  writeCount(row.reasoning_tokens);
  w.float64(finiteOr(row.cost, 0));
  w.recurringString(row.cost_source);
  w.string(row.session_id);
  w.string(row.user_id);
  w.recurringString(row.tool_name);
  w.string(row.tool_arguments);
  w.string(row.tool_call_id);
  writeNullableFloat(row.time_to_first_token_ms);
  writeStringMap(row.attributes, false);
  writeStringMap(row.attribute_refs, true);
  writeStringMap(row.resource_attributes, true);
  w.string(row.events);
  w.string(row.links);
  writeStringArray(row.quality_flags);
  writeStringArray(row.masked_rules);
  writeStringMap(row.dimensions, false);
  writeStringArray(row.log_record_fields);
  writeCount(row.ingested_at);
}

/** A UInt64 count. Rows read back from the engine (the log join's) carry 64-bit integers as decimal text. */
function writeCount(value: number | string): void {
  writer.uint64(typeof value === 'string' ? BigInt(value) : uint64Of(value));
}

function writeNullableFloat(value: number | null): void {
  const v = value === null ? null : finiteOr(value, null);
  writer.byte(v === null ? 1 : 0);
  if (v !== null) writer.float64(v);
}

function writeStringArray(items: readonly string[]): void {
  writer.varUInt(items.length);
  for (let i = 0; i < items.length; i++) writer.recurringString(items[i]!);
}

/** A Map(LowCardinality(String), String): keys recur, and values too in some maps (a resource's, the refs' column names). */
function writeStringMap(map: Readonly<Record<string, string>>, valuesRecur: boolean): void {
  const keys = Object.keys(map);
  writer.varUInt(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    writer.recurringString(key);
    if (valuesRecur) writer.recurringString(map[key]!);
    else writer.string(map[key]!);
  }
}

/** How many rows RowBinary span bytes hold (a replayed block's count, which its jobs do not carry), by walking their layout. */
export function spanRowBinaryRowCount(bytes: Uint8Array): number {
  let pos = 0;
  const varUInt = () => {
    let v = 0;
    for (let shift = 1; ; shift *= 128) {
      if (pos >= bytes.length) throw new Error('RowBinary span rows end inside a row');
      const b = bytes[pos++]!;
      v += (b & 127) * shift;
      if (b < 128) return v;
    }
  };
  const skipString = () => {
    const len = varUInt();
    pos += len;
  };
  let rows = 0;
  while (pos < bytes.length) {
    for (const [, layout] of ROW_LAYOUT) {
      if (layout === 'string') skipString();
      else if (layout === 'nullableFloat') pos += bytes[pos] === 1 ? 1 : 9;
      else if (layout === 'stringArray') for (let n = varUInt(); n > 0; n--) skipString();
      else if (layout === 'stringMap') for (let n = 2 * varUInt(); n > 0; n--) skipString();
      else pos += 8;
    }
    rows++;
  }
  if (pos !== bytes.length) throw new Error('RowBinary span rows end inside a row');
  return rows;
}
