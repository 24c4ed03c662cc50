import type { Storage } from '@aos/storage';

const at = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

/** Spans of one trace straight into the spans table, a second long each, the first (span 1) its root; `startsMs` their starts, received at `ingestedAtMs`. */
export async function insertTraceSpans(
  storage: Storage,
  projectId: string,
  traceId: string,
  startsMs: readonly number[],
  firstSpan = 1,
  ingestedAtMs = Date.now(),
): Promise<void> {
  const values = startsMs.map((start, i) => ({
    project_id: projectId,
    trace_id: traceId,
    span_id: (firstSpan + i).toString(16).padStart(16, '0'),
    parent_span_id: firstSpan + i === 1 ? '' : '0000000000000001',
    name: `span ${firstSpan + i}`,
    start_time: at(start),
    end_time: at(start + 1000),
    duration_ms: 1000,
    ingested_at: ingestedAtMs,
  }));
  await storage.client.insert({ table: 'spans', values, format: 'JSONEachRow' });
}

/** The distinct hours (epoch ms) a per-trace hour table (trace_hours, trace_starts) holds for one trace. */
export async function traceHoursIn(storage: Storage, table: 'trace_hours' | 'trace_starts', projectId: string, traceId: string): Promise<number[]> {
  const result = await storage.client.query({
    query: `SELECT DISTINCT toUnixTimestamp(hour) * 1000 AS h FROM ${table} WHERE project_id = {p:String} AND trace_id = {t:String} ORDER BY h`,
    query_params: { p: projectId, t: traceId },
    format: 'JSONEachRow',
  });
  return (await result.json<{ h: string }>()).map((r) => Number(r.h));
}
