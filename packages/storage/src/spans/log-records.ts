import { createHash } from 'node:crypto';
import type { SpanEventRecord, SpanRow } from '@aos/domain';
import type { SpanLogRecord } from '@aos/otlp';
import type { Storage } from '../client.ts';
import { named } from '../sql/query-name.ts';
import { msToDateTimeParam } from '../sql/values.ts';
import { SPAN_COLUMNS } from './writes.ts';

/** One span of one trace. */
export interface SpanKey {
  traceId: string;
  spanId: string;
}

/**
 * Stores a batch of GenAI event log records for their spans. A record's key is a digest of
 * all it carries, so a replayed batch (or the same record exported twice) collapses into
 * the rows already there.
 */
export async function insertSpanLogRecords(storage: Storage, projectId: string, receivedAtMs: number, records: readonly SpanLogRecord[]): Promise<void> {
  if (records.length === 0) return;
  const receivedAt = msToDateTimeParam(receivedAtMs);
  let body = '';
  for (const r of records) {
    const attributes = JSON.stringify(r.attributes);
    const recordBody = JSON.stringify(r.body);
    const recordId = createHash('sha256').update([r.traceId, r.spanId, r.timeUnixNano, r.eventName, attributes, recordBody].join('\u0000')).digest('hex').slice(0, 32);
    body += `${JSON.stringify([projectId, r.traceId, r.spanId, recordId, r.timeUnixNano, r.eventName, attributes, recordBody, receivedAt])}\n`;
  }
  await storage.insertRows('span_log_records', RECORD_COLUMNS, 'JSONCompactEachRow', body, 'spans.log-records.write');
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

/** The live rows of these spans, whole, as the writer wrote them (those stored so far). */
export async function readSpanRows(storage: Storage, projectId: string, keys: readonly SpanKey[]): Promise<SpanRow[]> {
  if (keys.length === 0) return [];
  // Times as decimal seconds, the form SpanRow holds and inserts take back unchanged.
  const columns = SPAN_COLUMNS.map((c) => (c === 'start_time' || c === 'end_time' ? `toString(toDecimal64(${c}, 9)) AS ${c}` : c)).join(', ');
  const result = await storage.client.query({
    query: `SELECT ${columns} FROM spans FINAL
            WHERE project_id = {projectId:String} AND trace_id IN {traceIds:Array(String)}
              AND concat(trace_id, '/', span_id) IN {keys:Array(String)}`,
    query_params: { projectId, traceIds: traceIdsOf(keys), keys: keys.map((k) => spanKey(k.traceId, k.spanId)) },
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
