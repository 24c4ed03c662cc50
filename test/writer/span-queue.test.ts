import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queue } from 'bullmq';
import type { SpanBatchPayload } from '@aos/queue';
import { readJson, type TraceDetail } from '../support/api-types.ts';
import { openIngestQueue } from '../support/ingest-queue.ts';
import { eventually, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let ingest: ReturnType<typeof openIngestQueue>;
let queue: Queue<SpanBatchPayload>;

beforeAll(async () => {
  svc = await startTestService({ INGEST_MAX_QUEUE_DEPTH: '2', INGEST_RETRY_AFTER_SECONDS: '7' });
  ingest = openIngestQueue(svc);
  queue = ingest.queue;
});
afterAll(async () => {
  await ingest?.close();
  await svc?.stop();
});

function payload(traceId: string, spans: number): SpanBatchPayload {
  const start = BigInt(Date.now()) * 1_000_000n;
  return {
    projectId: 'default',
    receivedAtMs: Date.now(),
    export: {
      resourceSpans: [
        {
          resource: { attributes: { 'service.name': 'queue-test' } },
          scopeSpans: [
            {
              scope: { name: 'q', version: '' },
              spans: Array.from({ length: spans }, (_, i) => ({
                traceId,
                spanId: (i + 1).toString(16).padStart(16, '0'),
                parentSpanId: '',
                traceState: '',
                name: `span-${i}`,
                kind: 1 as const,
                startTimeUnixNano: String(start + BigInt(i)),
                endTimeUnixNano: String(start + BigInt(i) + 1000n),
                attributes: {},
                droppedAttributesCount: 0,
                events: [],
                droppedEventsCount: 0,
                links: [],
                status: { code: 0 as const, message: '' },
              })),
            },
          ],
        },
      ],
    },
  };
}

async function traceSpanCount(traceId: string) {
  const res = await svc.api(`/api/v1/traces/${traceId}`);
  return res.status === 200 ? (await readJson<TraceDetail>(res)).spanCount : 0;
}

describe('the span queue', () => {
  it('a replayed batch adds no duplicates to what reads return', async () => {
    const traceId = '1f'.repeat(16);
    const batch = payload(traceId, 25);
    // The same batch twice, as when a writer inserted it but died before acknowledging.
    await queue.add('batch', batch);
    await queue.add('batch', batch);
    await eventually(async () => ((await queue.getJobCounts('wait', 'active')).wait === 0 ? true : undefined));
    await eventually(async () => ((await traceSpanCount(traceId)) === 25 ? true : undefined));
    // Both inserts reached the table; reads see each span once.
    const raw = await (
      await svc.service.storage.client.query({
        query: 'SELECT count() AS n FROM spans WHERE trace_id = {t:String}',
        query_params: { t: traceId },
        format: 'JSONEachRow',
      })
    ).json<{ n: string }>();
    expect(Number(raw[0]!.n)).toBeGreaterThanOrEqual(25);
    expect(await traceSpanCount(traceId)).toBe(25);
  });

  it('above the high-water mark ingest answers 503 with Retry-After, and accepts again once drained', async () => {
    await queue.pause();
    const send = (traceId: string) =>
      svc.api('/api/v1/traces/otlp', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          resourceSpans: [{ scopeSpans: [{ spans: [{ traceId, spanId: '0000000000000001', name: 'x', startTimeUnixNano: String(Date.now() * 1e6), endTimeUnixNano: String(Date.now() * 1e6 + 5) }] }] }],
        }),
      });
    const accepted: string[] = [];
    let refused: Response | undefined;
    for (let i = 0; i < 10 && !refused; i++) {
      const traceId = (i + 1).toString(16).padStart(32, 'b');
      const res = await send(traceId);
      if (res.status === 200) accepted.push(traceId);
      else refused = res;
      // The depth is sampled at most every 250 ms.
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(refused?.status).toBe(503);
    expect(refused?.headers.get('retry-after')).toBe('7');
    expect(accepted.length).toBeGreaterThanOrEqual(2);
    await queue.resume();
    for (const traceId of accepted) await eventually(async () => ((await traceSpanCount(traceId)) === 1 ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    expect((await send('c'.repeat(32))).status).toBe(200);
  });
});
