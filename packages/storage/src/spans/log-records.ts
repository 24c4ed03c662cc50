import { createHash } from 'node:crypto';
import type { SpanEventRecord, SpanRow } from '@aos/domain';
import type { SpanLogRecord } from '@aos/otlp';
import type { Storage } from '../client/client.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';
import { msToDateTimeParam } from '../sql/values.ts';
import { SPAN_COLUMNS } from './writes.ts';

/** One span of one trace. */
export interface SpanKey {
  traceId: string;
  spanId: string;
}

/**
 * Stores one export's GenAI event log records for their spans. A replayed export (or the
 * same record exported twice in the same place) collapses into the rows already there.
 */
export async function insertSpanLogRecords(storage: Storage, projectId: string, receivedAtMs: number, records: readonly SpanLogRecord[]): Promise<void> {
  if (records.length === 0) return;
  const receivedAt = msToDateTimeParam(receivedAtMs);
  const ids = logRecordIds(records);
  let body = '';
  records.forEach((r, i) => {
    body += `${JSON.stringify([projectId, r.traceId, r.spanId, ids[i], r.timeUnixNano, r.eventName, JSON.stringify(r.attributes), JSON.stringify(r.body), receivedAt])}\n`;
  });
  await storage.insertRows('span_log_records', RECORD_COLUMNS, 'JSONCompactEachRow', body, 'spans.log-records.write');
}

/**
 * The stored key of each record of one export: its place among its span's records in the
 * export, then a digest of all it carries. Reads order a span's records by time, then by
 * this key, so records with the same time stay in the order they were sent: the OpenAI
 * instrumentation stamps every message of a call with one millisecond, and a conversation
 * read back as user, tool, assistant would be wrong. A replay of the export gives the same
 * keys and collapses into the rows already there.
 */
export function logRecordIds(records: readonly SpanLogRecord[]): string[] {
  const placeInSpan = new Map<string, number>();
  return records.map((r) => {
    const key = spanKey(r.traceId, r.spanId);
    const place = placeInSpan.get(key) ?? 0;
    placeInSpan.set(key, place + 1);
    const digest = createHash('sha256')
      .update([r.traceId, r.spanId, r.timeUnixNano, r.eventName, JSON.stringify(r.attributes), JSON.stringify(r.body)].join('\u0000'))
      .digest('hex')
      .slice(0, 32);
    return `${place.toString(16).padStart(8, '0')}-${digest}`;
  });
}

const RECORD_COLUMNS = ['project_id', 'trace_id', 'span_id', 'record_id', 'time_unix_nano', 'event_name', 'attributes', 'body', 'received_at'] as const;

/** The spans of these traces that have log records. */
export async function spansWithLogRecords(storage: Storage, projectId: string, traceIds: readonly string[]): Promise<SpanKey[]> {
  if (traceIds.length === 0) return [];
  const result = await storage.client.query({
    query: `SELECT DISTINCT trace_id AS traceId, span_id AS spanId FROM span_log_records
            WHERE project_id = {projectId:String} AND trace_id IN {traceIds:Array(String)}`,
    query_params: { projectId, traceIds: [...new Set(traceIds)] },
    format: 'JSONEachRow',
    ...named(storage, 'spans.log-records.keys'),
  });
  return result.json<SpanKey>();
}

/** Every log record of these spans (replays collapsed), by span key `trace/span`, oldest first. */
export async function readSpanLogRecords(storage: Storage, projectId: string, keys: readonly SpanKey[]): Promise<Map<string, SpanEventRecord[]>> {
  const byKey = new Map<string, SpanEventRecord[]>();
  if (keys.length === 0) return byKey;
  const result = await storage.client.query({
    query: `SELECT trace_id, span_id, toString(time_unix_nano) AS time, event_name, attributes, body
            FROM span_log_records FINAL
            WHERE project_id = {projectId:String} AND trace_id IN {traceIds:Array(String)}
              AND concat(trace_id, '/', span_id) IN {keys:Array(String)}
            ORDER BY trace_id, span_id, time_unix_nano, record_id`,
    query_params: { projectId, traceIds: traceIdsOf(keys), keys: keys.map((k) => spanKey(k.traceId, k.spanId)) },
    format: 'JSONCompactEachRow',
    ...named(storage, 'spans.log-records.read'),
  });
  for (const [traceId, spanId, time, name, attributes, body] of await result.json<[string, string, string, string, string, string]>()) {
    const key = spanKey(traceId, spanId);
    let records = byKey.get(key);
    if (records === undefined) byKey.set(key, (records = []));
    records.push({ name, timeUnixNano: time, attributes: JSON.parse(attributes), body: JSON.parse(body) });
  }
  return byKey;
}

/** The statement of readSpanRows: every column of these spans' live rows. */
export function spanRowsSql(projectId: string, keys: readonly SpanKey[]): Statement {
  // Times as decimal seconds, the form SpanRow holds and inserts take back unchanged.
  const columns = SPAN_COLUMNS.map((c) => (c === 'start_time' || c === 'end_time' ? `toString(toDecimal64(${c}, 9)) AS ${c}` : c)).join(', ');
  const query = `SELECT ${columns} FROM spans FINAL
            WHERE project_id = {projectId:String} AND trace_id IN {traceIds:Array(String)}
              AND concat(trace_id, '/', span_id) IN {keys:Array(String)}`;
  return { query, params: { projectId, traceIds: traceIdsOf(keys), keys: keys.map((k) => spanKey(k.traceId, k.spanId)) } };
}

/** The live rows of these spans, whole, as the writer wrote them (those stored so far). */
export async function readSpanRows(storage: Storage, projectId: string, keys: readonly SpanKey[]): Promise<SpanRow[]> {
  if (keys.length === 0) return [];
  const statement = spanRowsSql(projectId, keys);
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
    format: 'JSONEachRow',
    ...named(storage, 'spans.log-records.span-rows'),
  });
  return result.json<SpanRow>();
}

export function spanKey(traceId: string, spanId: string): string {
  return `${traceId}/${spanId}`;
}

function traceIdsOf(keys: readonly SpanKey[]): string[] {
  return [...new Set(keys.map((k) => k.traceId))];
}
