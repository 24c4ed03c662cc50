import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queue } from 'bullmq';
import type { SpanBatchPayload } from '@aos/queue';
import { openIngestQueue } from '../support/ingest-queue.ts';
import { eventually, startTestService, type TestService } from '../support/service.ts';
import { sendSpans, storedRows } from '../support/stored-rows.ts';
import { setImmutable, spansFolderOf } from '../support/unwritable-spans.ts';

let svc: TestService;
let ingest: ReturnType<typeof openIngestQueue>;
let queue: Queue<SpanBatchPayload>;
let spansFolder: string;

// Two attempts with 1 s backoff: were the fault spent on attempts, every batch would be a
// dead letter within about three seconds of the folder refusing writes.
beforeAll(async () => {
  svc = await startTestService({ WRITER_JOB_ATTEMPTS: '2' });
  ingest = openIngestQueue(svc);
  queue = ingest.queue;
  spansFolder = await spansFolderOf(svc.service.storage);
});
afterAll(async () => {
  if (spansFolder) setImmutable(spansFolder, false);
  await ingest?.close();
  await svc?.stop();
});

describe('an unwritable spans folder', () => {
  it('keeps every acknowledged batch waiting without spending attempts, dead-letters nothing, and stores each span once when the folder writes again, with no one acting', async () => {
    setImmutable(spansFolder, true);
    const traces = ['d1', 'd2', 'd3'].map((b) => b.repeat(16));
    try {
      for (const traceId of traces) expect((await sendSpans(svc, traceId, 20)).status).toBe(200);
      // The writer tries: the engine's own failure to create a part is what it meets.
      await eventually(async () => ((await queue.getJobs(['wait', 'delayed', 'prioritized', 'active'])).length > 0 ? true : undefined));
      // Longer than two attempts with backoff would last.
      await new Promise((r) => setTimeout(r, 6000));
      expect((await queue.getJobCounts('failed')).failed).toBe(0);
      const waiting = await queue.getJobs(['wait', 'delayed', 'prioritized', 'active']);
      expect(waiting.length).toBe(traces.length);
      for (const job of waiting) expect(job.attemptsMade).toBe(0);
      expect(await storedRows(svc.service.storage, traces)).toEqual({ rows: 0, distinct: 0 });
    } finally {
      setImmutable(spansFolder, false);
    }

    // The writer's paused queue tries again on its own (a pause is at most 30 s).
    await eventually(async () => ((await storedRows(svc.service.storage, traces)).rows === 60 ? true : undefined), 60_000, 'every span stored');
    await eventually(async () => ((await queue.getJobs(['wait', 'delayed', 'prioritized', 'active'])).length === 0 ? true : undefined), 30_000, 'the queue drained');
    // Raw rows, no FINAL: a batch stored twice would show here.
    expect(await storedRows(svc.service.storage, traces)).toEqual({ rows: 60, distinct: 60 });
    expect((await queue.getJobCounts('failed')).failed).toBe(0);
  });
});
