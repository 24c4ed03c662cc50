import type { Storage } from '@aos/storage';
import type { TestService } from './service.ts';

/** Posts one OTLP/JSON export of `spans` spans of one trace, ids 1…n, to the service. */
export function sendSpans(svc: Pick<TestService, 'api'>, traceId: string, spans: number): Promise<Response> {
  const now = Date.now() * 1e6;
  return svc.api('/api/v1/traces/otlp', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      resourceSpans: [{
        scopeSpans: [{
          spans: Array.from({ length: spans }, (_, i) => ({
            traceId,
            spanId: (i + 1).toString(16).padStart(16, '0'),
            name: `span-${i}`,
            startTimeUnixNano: String(now + i),
            endTimeUnixNano: String(now + i + 1000),
          })),
        }],
      }],
    }),
  });
}

/**
 * The spans table's rows of these traces as stored, before the engine collapses repeats
 * (no FINAL): `rows` counts every copy, `distinct` each span once, so a batch stored twice
 * shows as rows > distinct.
 */
export async function storedRows(storage: Storage, traceIds: readonly string[]): Promise<{ rows: number; distinct: number }> {
  const result = await storage.client.query({
    query: 'SELECT count() AS rows, uniqExact(trace_id, span_id) AS distinct FROM spans WHERE trace_id IN {traceIds:Array(String)}',
    query_params: { traceIds },
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ rows: string; distinct: string }>();
  return { rows: Number(row!.rows), distinct: Number(row!.distinct) };
}
