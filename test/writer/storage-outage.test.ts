import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queue } from 'bullmq';
import type { SpanBatchPayload } from '@aos/queue';
import type { Storage } from '@aos/storage';
import { readJson, type TraceDetail } from '../support/api-types.ts';
import { openIngestQueue } from '../support/ingest-queue.ts';
import { eventually, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let ingest: ReturnType<typeof openIngestQueue>;
let queue: Queue<SpanBatchPayload>;

// Two attempts with 1 s backoff: without the outage handling a batch would be dead-lettered
// within about three seconds of storage going away.
beforeAll(async () => {
  svc = await startTestService({ WRITER_JOB_ATTEMPTS: '2' });
  ingest = openIngestQueue(svc);
  queue = ingest.queue;
});
afterAll(async () => {
  await ingest?.close();
  await svc?.stop();
});

/**
 * Storage that refuses every insert as an unreachable server does, until `restore`: the
 * fault is injected at the boundary of the real storage; reads and everything else still
 * reach the engine.
 */
function takeInsertsDown(storage: Storage): { restore(): void; refused(): number } {
  const insertRows = storage.insertRows;
  let refused = 0;
  (storage as { insertRows: Storage['insertRows'] }).insertRows = async () => {
    refused += 1;
    throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8123'), { code: 'ECONNREFUSED' });
  };
  return {
    restore: () => ((storage as { insertRows: Storage['insertRows'] }).insertRows = insertRows),
    refused: () => refused,
  };
}

function send(traceId: string, spans: number) {
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
            name: `during-outage-${i}`,
            startTimeUnixNano: String(now + i),
            endTimeUnixNano: String(now + i + 1000),
          })),
        }],
      }],
    }),
  });
}

async function spanCount(traceId: string): Promise<number> {
  const res = await svc.api(`/api/v1/traces/${traceId}`);
  return res.status === 200 ? (await readJson<TraceDetail>(res)).spanCount : 0;
}

describe('a storage outage', () => {
  it('keeps batches waiting without spending attempts, dead-letters nothing, and stores everything once when storage is back', async () => {
    const outage = takeInsertsDown(svc.service.storage);
    const traces = ['d1', 'd2', 'd3'].map((b) => b.repeat(16));
    for (const traceId of traces) expect((await send(traceId, 20)).status).toBe(200);
    // The writer keeps trying (the batches reach storage and are refused) ...
    await eventually(async () => (outage.refused() >= 3 ? true : undefined), 30_000, 'inserts to be tried');
    // ... for longer than two attempts with backoff would last.
    await new Promise((r) => setTimeout(r, 6000));
    expect(outage.refused()).toBeGreaterThan(3);
    expect((await queue.getJobCounts('failed')).failed).toBe(0);
    const waiting = await queue.getJobs(['wait', 'delayed', 'prioritized', 'active']);
    expect(waiting.length).toBeGreaterThan(0);
    for (const job of waiting) expect(job.attemptsMade).toBe(0);

    outage.restore();
    for (const traceId of traces) await eventually(async () => ((await spanCount(traceId)) === 20 ? true : undefined), 60_000, `trace ${traceId}`);
    expect((await queue.getJobCounts('failed')).failed).toBe(0);
  });
});
