// The encoder as it was before the rewrite (issue 33 item 4): kept only to compare bytes and time.
import type { SpanRow } from '@aos/domain';
import { RowBinaryWriter } from './rowbinary-writer.ts';
import { SPAN_COLUMNS } from '@aos/storage';

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
const SPAN_COLUMN_TYPES: Readonly<Record<(typeof SPAN_COLUMNS)[number], string>> = {
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
export function encodeSpanRowsRowBinaryOld(rows: readonly SpanRow[]): Buffer {
  writer.reset();
  for (const row of rows) {
    for (const [column, layout] of ROW_LAYOUT) writeValue(layout, row[column]);
  }
  return writer.take();
}

function writeValue(layout: Layout, value: unknown): void {
  switch (layout) {
    case 'string':
      return writer.string(value as string);
    case 'nanos':
      return writer.dateTime64Nanos(value as string);
    case 'float':
      return writer.float64(finiteOr(value as number, 0));
    case 'uint64':
      // Rows read back from the engine (the log join's) carry 64-bit integers as decimal text.
      return writer.uint64(typeof value === 'string' ? BigInt(value) : uint64Of(value as number));
    case 'nullableFloat': {
      const v = value === null ? null : finiteOr(value as number, null);
      writer.byte(v === null ? 1 : 0);
      if (v !== null) writer.float64(v);
      return;
    }
    case 'stringArray': {
      const items = value as readonly string[];
      writer.varUInt(items.length);
      for (const item of items) writer.string(item);
      return;
    }
    case 'stringMap': {
      const map = value as Readonly<Record<string, string>>;
      const keys = Object.keys(map);
      writer.varUInt(keys.length);
      for (const key of keys) {
        writer.string(key);
        writer.string(map[key]!);
      }
    }
  }
}

