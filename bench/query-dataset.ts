// The query benchmark's dataset: traces of 10 spans spread over 7 days in 4 projects, plus
// the scale cases (a huge session, a huge trace, 1 MB inputs). Written in slices, so a
// dataset grows by appending traces rather than being written again.
//
// Two writers of the same rows: `row()` in JS (rows encoded as JSONCompactEachRow), and
// one INSERT … SELECT FROM numbers() generating them inside the engine (about 20 times as
// fast, so 100M spans load in minutes). checkWritersAgree proves they write the same rows.
import { createHash } from 'node:crypto';
import type { SpanRow } from '@aos/domain';
import { SPAN_COLUMNS, encodeSpanRows, type Storage } from '@aos/storage';

export const SPANS_PER_TRACE = 10;
export const PROJECTS = 4;
export const DAY = 86_400_000;

export const projectIdOf = (p: number) => (p === 0 ? 'default' : `project-${p}`);
/** Trace t of project p: 32 hex digits scattered like real (random) trace ids, the same on every run. */
export const traceIdOf = (p: number, t: number) => createHash('md5').update(`${p}:${t}`).digest('hex');
/** The trace of 20,000 spans. */
export const BIG_TRACE_ID = 'ab'.repeat(16);
const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
const seconds = (ms: number) => (ms / 1000).toFixed(9);

/** Traces [from, to) of every project, spread evenly over the 7 days from `start`. */
export interface Slice {
  from: number;
  to: number;
  start: number;
  /** The rows' ingested_at. */
  now: number;
}

/** Start (ms) of trace t of a slice: the slice's traces spread evenly over its 7 days. */
const traceStart = (slice: Slice, t: number) => slice.start + Math.floor(((t - slice.from + 0.5) / (slice.to - slice.from)) * 7 * DAY);

export function row(projectId: string, traceId: string, spanIndex: number, at: number, now: number, extra: Partial<SpanRow> = {}): SpanRow {
  const llm = spanIndex % 3 === 1;
  return {
    project_id: projectId, trace_id: traceId, span_id: hex(spanIndex + 1, 16), parent_span_id: spanIndex === 0 ? '' : hex(1, 16),
    name: spanIndex === 0 ? 'agent' : llm ? 'chat gpt-4o' : `tool-${spanIndex % 5}`, kind: 'internal',
    span_type: spanIndex === 0 ? 'agent' : llm ? 'llm' : 'tool', start_time: seconds(at + spanIndex * 100), end_time: seconds(at + spanIndex * 100 + 80),
    duration_ms: 80, status: spanIndex === 7 && at % 13 === 0 ? 'error' : 'ok', status_message: '', service_name: 'bench', environment: at % 2 ? 'prod' : 'staging',
    platform: 'otel-genai', scope_name: 'bench', scope_version: '1', agent_name: '', model: llm ? 'gpt-4o' : '', provider: llm ? 'openai' : '',
    input: spanIndex === 0 ? 'Where is my order?' : '', output: spanIndex === 0 ? 'It ships tomorrow.' : '',
    input_messages: '', output_messages: '', system_instructions: '',
    input_tokens: llm ? 1200 : 0, output_tokens: llm ? 200 : 0, total_tokens: llm ? 1400 : 0, cached_input_tokens: 0, reasoning_tokens: 0,
    cost: llm ? 0.005 : 0, cost_source: llm ? 'price_table' : '', session_id: spanIndex === 0 ? `s-${Math.floor(at / 1000) % 20_000}` : '',
    user_id: spanIndex === 0 ? `u-${at % 5000}` : '', tool_name: llm || spanIndex === 0 ? '' : `tool-${spanIndex % 5}`, tool_arguments: '', tool_call_id: '',
    time_to_first_token_ms: null, attributes: {}, attribute_refs: {}, resource_attributes: { 'service.name': 'bench' }, events: '[]', links: '[]',
    quality_flags: [], masked_rules: [], dimensions: {}, log_record_fields: [], ingested_at: now, ...extra,
  };
}

/** Writes a slice through `row()` and JS encoding, 10,000 traces an insert. */
export async function writeSliceJs(storage: Storage, table: string, slice: Slice): Promise<void> {
  for (let p = 0; p < PROJECTS; p++) {
    for (let first = slice.from; first < slice.to; first += 10_000) {
      const rows: SpanRow[] = [];
      for (let t = first; t < Math.min(first + 10_000, slice.to); t++) {
        const at = traceStart(slice, t);
        const traceId = traceIdOf(p, t);
        for (let s = 0; s < SPANS_PER_TRACE; s++) rows.push(row(projectIdOf(p), traceId, s, at, slice.now));
      }
      await storage.insertRows(table, SPAN_COLUMNS, 'JSONCompactEachRow', encodeSpanRows(rows));
    }
  }
}

/**
 * Each column of `row()` as an expression of the project `p`, the trace `t`, its span `s`,
 * its start `at` (ms) and `llm` (whether span s is an LLM call). Typed by the record: a
 * column added to SpanRow fails to compile until it is generated here too.
 */
const GENERATED: Record<(typeof SPAN_COLUMNS)[number], string> = {
  project_id: `if(p = 0, 'default', concat('project-', toString(p)))`,
  trace_id: `lower(hex(MD5(concat(toString(p), ':', toString(t)))))`,
  span_id: `leftPad(lower(hex(s + 1)), 16, '0')`,
  parent_span_id: `if(s = 0, '', '${hex(1, 16)}')`,
  name: `multiIf(s = 0, 'agent', llm, 'chat gpt-4o', concat('tool-', toString(s % 5)))`,
  kind: `'internal'`,
  span_type: `multiIf(s = 0, 'agent', llm, 'llm', 'tool')`,
  start_time: `fromUnixTimestamp64Nano((at + s * 100) * 1000000, 'UTC')`,
  end_time: `fromUnixTimestamp64Nano((at + s * 100 + 80) * 1000000, 'UTC')`,
  duration_ms: '80',
  status: `if(s = 7 AND at % 13 = 0, 'error', 'ok')`,
  status_message: `''`,
  service_name: `'bench'`,
  environment: `if(at % 2 = 1, 'prod', 'staging')`,
  platform: `'otel-genai'`,
  scope_name: `'bench'`,
  scope_version: `'1'`,
  agent_name: `''`,
  model: `if(llm, 'gpt-4o', '')`,
  provider: `if(llm, 'openai', '')`,
  input: `if(s = 0, 'Where is my order?', '')`,
  output: `if(s = 0, 'It ships tomorrow.', '')`,
  input_messages: `''`,
  output_messages: `''`,
  system_instructions: `''`,
  input_tokens: 'if(llm, 1200, 0)',
  output_tokens: 'if(llm, 200, 0)',
  total_tokens: 'if(llm, 1400, 0)',
  cached_input_tokens: '0',
  reasoning_tokens: '0',
  cost: 'if(llm, 0.005, 0)',
  cost_source: `if(llm, 'price_table', '')`,
  session_id: `if(s = 0, concat('s-', toString(intDiv(at, 1000) % 20000)), '')`,
  user_id: `if(s = 0, concat('u-', toString(at % 5000)), '')`,
  tool_name: `if(llm OR s = 0, '', concat('tool-', toString(s % 5)))`,
  tool_arguments: `''`,
  tool_call_id: `''`,
  time_to_first_token_ms: 'NULL',
  attributes: 'map()',
  attribute_refs: 'map()',
  resource_attributes: `map('service.name', 'bench')`,
  events: `'[]'`,
  links: `'[]'`,
  quality_flags: '[]',
  masked_rules: '[]',
  dimensions: 'map()',
  log_record_fields: '[]',
  ingested_at: '{now:UInt64}',
};

/** The columns that vary by trace (the others depend on the span's index only). */
const PER_TRACE = new Set<string>(['project_id', 'trace_id', 'start_time', 'end_time', 'status', 'environment', 'session_id', 'user_id', 'ingested_at']);

/** Traces one generating insert writes at most (10 spans each): blocks of a size the engine merges steadily. */
const TRACES_PER_INSERT = 500_000;

/**
 * Writes a slice inside the engine: the same rows `row()` builds (times are exact
 * milliseconds here; JS writes them through a float, a few nanoseconds off). The columns
 * that depend only on the span's index come from a 10-row template already of the
 * table's types, repeated per trace by ARRAY JOIN: converting constants such as map()
 * or [] to Map/Array(LowCardinality) columns row by row cost about 2 µs a row each,
 * three quarters of the insert.
 */
export async function writeSliceSql(storage: Storage, table: string, slice: Slice): Promise<void> {
  const typesAnswer = await storage.client.query({
    query: `SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = 'spans'`,
    format: 'JSONEachRow',
  });
  const types = new Map((await typesAnswer.json<{ name: string; type: string }>()).map((c) => [c.name, c.type]));
  const perSpan = SPAN_COLUMNS.filter((c) => !PER_TRACE.has(c));
  await storage.client.command({ query: 'DROP TABLE IF EXISTS bench_span_template' });
  await storage.client.command({
    query: `
      CREATE TABLE bench_span_template ENGINE = Memory AS
      SELECT s, ${perSpan.map((c) => `CAST(${GENERATED[c]}, '${types.get(c)}') AS ${c}`).join(', ')}
      FROM (SELECT toUInt32(number) AS s, s % 3 = 1 AS llm FROM numbers(${SPANS_PER_TRACE}))`,
  });
  const values = SPAN_COLUMNS.map((c) => (PER_TRACE.has(c) ? GENERATED[c] : c)).join(', ');
  try {
    for (let p = 0; p < PROJECTS; p++) {
      for (let first = slice.from; first < slice.to; first += TRACES_PER_INSERT) {
        await storage.client.command({
          // `table` is the bench's own (spans, or the check's scratch tables), never input;
          // the range's bounds are integers the bench computed (ARRAY JOIN takes no parameters there).
          query: `
            INSERT INTO ${table} (${SPAN_COLUMNS.join(', ')})
            SELECT ${values}
            FROM (
              SELECT *, t, {p:UInt32} AS p,
                -- as traceStart(): the same float operations in the same order
                toInt64({start:Int64} + floor((((t - {from:UInt64}) + 0.5) / {count:UInt64}) * 7 * ${DAY})) AS at
              FROM bench_span_template
              ARRAY JOIN range(${first}, ${Math.min(first + TRACES_PER_INSERT, slice.to)}) AS t
            )
            -- no two rows share a key, so there is nothing to collapse: skipping the pass halves the insert
            SETTINGS optimize_on_insert = 0`,
          query_params: { p, start: slice.start, from: slice.from, count: slice.to - slice.from, now: slice.now },
        });
      }
    }
  } finally {
    await storage.client.command({ query: 'DROP TABLE bench_span_template' });
  }
}

/** A session of 50,000 traces, a trace of 20,000 spans, and 20 traces whose root input is 1 MB. */
export async function writeScaleCases(storage: Storage, now: number): Promise<number> {
  const big: SpanRow[] = [];
  for (let t = 0; t < 50_000; t++) big.push(row('default', traceIdOf(100, t), 0, now - DAY + t * 10, now, { session_id: 'huge-session' }));
  for (let s = 0; s < 20_000; s++) big.push(row('default', BIG_TRACE_ID, s, now - 2 * DAY + s, now));
  const mb = 'x'.repeat(1024 * 1024);
  for (let t = 0; t < 20; t++) big.push(row('default', traceIdOf(101, t), 0, now - 60_000 + t, now, { input: mb, output: mb }));
  for (let i = 0; i < big.length; i += 10_000) {
    await storage.insertRows('spans', SPAN_COLUMNS, 'JSONCompactEachRow', encodeSpanRows(big.slice(i, i + 10_000)));
  }
  return big.length;
}

/** Rows and a hash of all of them (times to the millisecond: see writeSliceSql), order-free. */
async function fingerprint(storage: Storage, table: string): Promise<{ rows: string; hash: string }> {
  const columns = SPAN_COLUMNS.map((c) => (c === 'start_time' || c === 'end_time' ? `round(toUnixTimestamp64Nano(${c}) / 1e6)` : c === 'time_to_first_token_ms' ? `ifNull(toString(${c}), 'null')` : c));
  const result = await storage.client.query({
    query: `SELECT toString(count()) AS rows, toString(groupBitXor(cityHash64(${columns.join(', ')}))) AS hash FROM ${table}`,
    format: 'JSONEachRow',
  });
  const [answer] = await result.json<{ rows: string; hash: string }>();
  return answer!;
}

/**
 * Writes the same slice with both writers into two scratch tables shaped as spans and
 * throws unless they hold the same rows; prints each writer's rate.
 */
export async function checkWritersAgree(storage: Storage, slice: Slice): Promise<void> {
  const rates: string[] = [];
  const fingerprints = [];
  for (const [name, write] of [['js', writeSliceJs], ['sql', writeSliceSql]] as const) {
    const table = `bench_writer_check_${name}`;
    await storage.client.command({ query: `DROP TABLE IF EXISTS ${table}` });
    await storage.client.command({ query: `CREATE TABLE ${table} AS spans` });
    const t0 = performance.now();
    await write(storage, table, slice);
    const spans = (slice.to - slice.from) * PROJECTS * SPANS_PER_TRACE;
    rates.push(`${name} ${Math.round(spans / ((performance.now() - t0) / 1000))} spans/s`);
    fingerprints.push(await fingerprint(storage, table));
    await storage.client.command({ query: `DROP TABLE ${table}` });
  }
  const [js, sql] = fingerprints;
  if (js!.rows !== sql!.rows || js!.hash !== sql!.hash) {
    throw new Error(`the two dataset writers differ: js ${JSON.stringify(js)}, sql ${JSON.stringify(sql)}`);
  }
  console.log(`writers agree: ${js!.rows} spans written by each, the same rows (hash ${js!.hash}); ${rates.join(', ')}`);
}
