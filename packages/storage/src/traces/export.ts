import { COST_DECIMALS } from '@aos/domain';
import type { Storage } from '../client/client.ts';
import { msToDateTimeParam } from '../sql/values.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';
import { traceTextSql } from './aggregate.ts';
import { traceFilterSql, type TraceFilter } from './filter.ts';
import type { RolledUpHour } from './rollups.ts';
import { rollupsToRead, splitByRollups, traceRowsSql } from './rows.ts';

/** The formats an export is written in. */
export const EXPORT_FORMATS = ['csv', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * Trace exports written by the engine itself: a slice of the window is aggregated and
 * formatted (CSV or JSON Lines) in one query, and the bytes go to the client as they are.
 * Parsing rows into objects and writing them out again in JavaScript cost far more than
 * the query (about 90 % of an export's time), so the rows never become objects here.
 */

/**
 * How a column is written: text (formula-escaped in CSV), long text (the same, checked
 * before JSON escaping: see jsonValueSql), text or null, a list, a count (an integer), a
 * float (null in JSON when not finite), or plain text that never needs escaping of any
 * kind (ids, enumerations, ISO 8601 times).
 */
type ColumnKind = 'text' | 'longText' | 'nullableText' | 'list' | 'count' | 'float' | 'plain';

const isoTime = (column: string) => `concat(replaceOne(toString(${column}), ' ', 'T'), 'Z')`;
/** A cost as the API answers it: roundCost (@aos/domain) is this rounding, done in JavaScript. */
const roundedCost = (column: string) => `round(${column}, ${COST_DECIMALS})`;

/** Every column a trace export can have: its SQL over the trace aggregate, and its kind. */
const TRACE_EXPORT_SQL = {
  traceId: ['trace_id', 'plain'],
  name: ['trace_name', 'text'],
  startTime: [isoTime('trace_start'), 'plain'],
  endTime: [isoTime('trace_end'), 'plain'],
  durationMs: ['trace_duration_ms', 'float'],
  status: ['trace_status', 'plain'],
  spanCount: ['span_count', 'count'],
  errorCount: ['error_count', 'count'],
  inputTokens: ['trace_input_tokens', 'count'],
  outputTokens: ['trace_output_tokens', 'count'],
  totalTokens: ['trace_total_tokens', 'count'],
  cachedInputTokens: ['trace_cached_input_tokens', 'count'],
  reasoningTokens: ['trace_reasoning_tokens', 'count'],
  cost: [roundedCost('trace_cost'), 'float'],
  sessionId: ['trace_session_id', 'nullableText'],
  userId: ['trace_user_id', 'nullableText'],
  environment: ['trace_environment', 'nullableText'],
  serviceName: ['trace_service_name', 'nullableText'],
  platform: ['trace_platform', 'nullableText'],
  models: ['trace_models', 'list'],
  flaggedSpanCount: ['flagged_span_count', 'count'],
  maskedSpanCount: ['masked_span_count', 'count'],
  input: ['trace_input', 'longText'],
  output: ['trace_output', 'longText'],
} as const satisfies Record<string, readonly [string, ColumnKind]>;

export type TraceExportColumn = keyof typeof TRACE_EXPORT_SQL;

/**
 * A CSV cell as the spreadsheet-safe writer in the query app writes it: text that starts
 * like a formula (=, +, -, @, tab, CR, LF) gets a leading apostrophe, lists are joined
 * with `|`, null is empty. The CSV format itself quotes every text cell.
 */
function csvCellSql(sql: string, kind: ColumnKind): string {
  if (kind === 'count' || kind === 'float' || kind === 'plain') return sql;
  const text = kind === 'list' ? `arrayStringConcat(${sql}, '|')` : sql;
  return `if(match(${text}, '^[=+\\\\-@\\t\\r\\n]'), concat('''', ${text}), ${text})`;
}

/** A character JSON must escape in a string: a control character, a quote or a backslash. */
const JSON_ESCAPED_CHARACTER = String.raw`'[[:cntrl:]"\\\\]'`;

/**
 * A value as JSON text. Long text with nothing to escape (nearly all of it) is quoted as
 * it is; only the rest goes through the engine's JSON escaping, which reads a byte at a
 * time and took most of an export's time on large inputs. Short text is escaped at once:
 * checking it first cost more than escaping it.
 */
function jsonValueSql(sql: string, kind: ColumnKind): string {
  switch (kind) {
    case 'count':
      return `toString(${sql})`;
    case 'float':
      return `if(isFinite(${sql}), toString(${sql}), 'null')`;
    case 'plain':
      return `concat('"', ${sql}, '"')`;
    case 'list':
      return `toJSONString(${sql})`;
    case 'nullableText':
      return `if(${sql} = '', 'null', toJSONString(${sql}))`;
    case 'text':
      return `toJSONString(${sql})`;
    case 'longText':
      return `if(match(${sql}, ${JSON_ESCAPED_CHARACTER}), toJSONString(${sql}), concat('"', ${sql}, '"'))`;
  }
}

/**
 * A JSON Lines record as one text: the engine's JSON format writes each field's name
 * anew on every row, which cost more than the values; here the names are constants.
 */
function jsonLineSql(columns: readonly TraceExportColumn[]): string {
  const fields = columns.map((name, i) => {
    const [expr, kind] = TRACE_EXPORT_SQL[name];
    return `'${i === 0 ? '{' : ','}"${name}":', ${jsonValueSql(expr, kind)}`;
  });
  return `concat(${fields.join(', ')}, '}')`;
}

/**
 * Settings that make the engine's output read like JSON.stringify and RFC 4180. In the
 * query's own SETTINGS clause: the embedded engine is one session, where SET would stick.
 */
const FORMAT_SETTINGS = [
  'output_format_json_quote_64bit_integers = 0',
  'output_format_json_escape_forward_slashes = 0',
  'output_format_csv_crlf_end_of_line = 1',
  // One formatting thread: with parallel formatting a rolled-up day (36,000 traces) took
  // 87 ms instead of 80 ms here (medians of 15, taking turns).
  'output_format_parallel_formatting = 0',
].join(', ');

/**
 * The traces of the filter's window (oldest first, ties by id) in one format, whole
 * inputs and outputs included. Sorted as trace_rollups stores them (see storedOrder in
 * rows.ts): sorting a slice's formatted rows took about a sixth of its time. The
 * caller keeps the window small enough for one result to fit in memory (see
 * traceExportMinutes).
 */
export async function exportTraceRows(
  storage: Storage,
  filter: TraceFilter,
  format: ExportFormat,
  columns: readonly TraceExportColumn[],
  rollups?: readonly RolledUpHour[],
): Promise<Uint8Array> {
  const { query, params } = traceExportSql(filter, format, columns, await rollupsToRead(storage, filter, rollups));
  const result = await storage.client.exec({
    query,
    query_params: params,
    ...named(storage, 'traces.export.rows'),
  });
  const parts: Buffer[] = [];
  for await (const part of result.stream) parts.push(part as Buffer);
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

/** The statement of exportTraceRows: the window's traces as CSV rows or JSON Lines, `rollups` read from trace_rollups. */
export function traceExportSql(
  filter: TraceFilter,
  format: ExportFormat,
  columns: readonly TraceExportColumn[],
  rollups: readonly RolledUpHour[],
): Statement {
  const sql = traceFilterSql(filter);
  const select =
    format === 'csv'
      ? columns.map((name) => `${csvCellSql(TRACE_EXPORT_SQL[name][0], TRACE_EXPORT_SQL[name][1])} AS ${name}`).join(', ')
      : `${jsonLineSql(columns)} AS line`;
  const traces = traceRowsSql(filter, sql, rollups, { texts: true, storedOrder: true });
  const query = `
      SELECT ${select}
      FROM (${traces})
      WHERE ${sql.traceConditions.join(' AND ')}
      ORDER BY hour, version, trace_start, trace_id
      SETTINGS ${FORMAT_SETTINGS}
      FORMAT ${format === 'csv' ? 'CSV' : 'TSVRaw'}`;
  return { query, params: sql.params };
}

/** One minute of a window: about how many traces start in it, and their texts' bytes. */
export interface ExportMinute {
  startMs: number;
  traces: number;
  textBytes: number;
}

/**
 * The minutes of the filter's window that have traces, in order, with rough sizes: what an
 * export needs to cut its window into slices that each fit in memory. Rolled-up hours
 * (`rollups`, as exactRollupHours gives them) are counted from their one row per trace, by
 * the minute each trace starts; the other hours from their spans, by the minute of each
 * trace's first span among them. The filter's other conditions are not applied.
 */
export async function traceExportMinutes(
  storage: Storage,
  filter: Pick<TraceFilter, 'projectId' | 'startTimeMs' | 'endTimeMs'>,
  rollups: readonly RolledUpHour[] = [],
): Promise<ExportMinute[]> {
  const statement = traceExportMinutesSql(filter, rollups);
  if (!statement) return [];
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
    format: 'JSONCompactEachRow',
    ...named(storage, 'traces.export.minutes'),
  });
  const rows = await result.json<[string, string, string]>();
  return rows.map(([minute, traces, bytes]) => ({ startMs: Number(minute), traces: Number(traces), textBytes: Number(bytes) }));
}

/**
 * The statement of traceExportMinutes: rows of (minute_ms, traces, text_bytes) in minute
 * order; null when the window has no hour (nothing to ask).
 */
export function traceExportMinutesSql(
  filter: Pick<TraceFilter, 'projectId' | 'startTimeMs' | 'endTimeMs'>,
  rollups: readonly RolledUpHour[],
): Statement | null {
  const params: Record<string, unknown> = {
    projectId: filter.projectId,
    start: msToDateTimeParam(filter.startTimeMs),
    end: msToDateTimeParam(filter.endTimeMs),
  };
  const split = splitByRollups(filter, rollups, 0, params);
  const parts: string[] = [];
  if (split.rolled) {
    parts.push(`
      SELECT toUnixTimestamp(toStartOfMinute(trace_start)) * 1000 AS minute_ms, count() AS traces,
        sum(length(trace_input) + length(trace_output)) AS text_bytes
      FROM trace_rollups
      WHERE project_id = {projectId:String} AND ${split.rolled}
        AND trace_start >= {start:DateTime64(3)} AND trace_start < {end:DateTime64(3)}
      GROUP BY minute_ms`);
  }
  if (split.live) {
    // Per trace, by the minute of its first span here: its text is its root's or, when the
    // root has none, an agent's or LLM span's (traceTextSql), so it is known per trace only.
    // Lengths read only the texts' sizes, not the texts.
    parts.push(`
      SELECT toUnixTimestamp(toStartOfMinute(first_start)) * 1000 AS minute_ms, count() AS traces, sum(text_bytes_of_trace) AS text_bytes
      FROM (
        SELECT min(start_time) AS first_start,
          ${traceTextSql('input', 'input', 'bytes')} + ${traceTextSql('output', 'output', 'bytes')} AS text_bytes_of_trace
        FROM spans
        WHERE project_id = {projectId:String} AND ${split.live}
        GROUP BY trace_id
      )
      GROUP BY minute_ms`);
  }
  if (parts.length === 0) return null;
  const query = `
      SELECT minute_ms, sum(traces), sum(text_bytes)
      FROM (${parts.join(' UNION ALL ')})
      GROUP BY minute_ms
      ORDER BY minute_ms`;
  return { query, params };
}
