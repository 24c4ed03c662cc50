import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queue } from 'bullmq';
import { addSpanRowsJob, createRedisConnection, rowsKeyOf, type DeadLetter, type IngestJobPayload, type SpanBatchPayload } from '@aos/queue';
import { readJson } from './support/api-types.ts';
import { openIngestQueue, openIngestQueueOf } from './support/ingest-queue.ts';
import { eventually, startTestService, type TestService } from './support/service.ts';

let svc: TestService;
let ingest: ReturnType<typeof openIngestQueue>;
let queue: Queue<SpanBatchPayload>;

beforeAll(async () => {
  svc = await startTestService({ WRITER_JOB_ATTEMPTS: '2' });
  ingest = openIngestQueue(svc);
  queue = ingest.queue;
});
afterAll(async () => {
  await ingest?.close();
  await svc?.stop();
});

describe('GET /dead-letters', () => {
  it('lists a batch that cannot be processed, per project', async () => {
    await queue.add('batch', { projectId: 'default', receivedAtMs: Date.now(), export: { resourceSpans: 'broken' } } as never);
    await queue.add('batch', { projectId: 'someone-else', receivedAtMs: Date.now(), export: { resourceSpans: 'broken' } } as never);
    // Both batches fail; each project sees only its own.
    await eventually(async () => ((await queue.getJobCounts('failed')).failed === 2 ? true : undefined));
    const res = await svc.api('/api/v1/dead-letters');
    expect(res.status).toBe(200);
    const letters = (await readJson<{ data: DeadLetter[] }>(res)).data;
    expect(letters).toHaveLength(1);
    expect(letters[0]?.projectId).toBe('default');
    expect(letters[0]?.cause).toBe('invalid_batch');
    expect(letters[0]?.refusal).toBeNull();
    expect(letters[0]?.reason).toBe('the batch could not be decoded; retrying will not help');
    // The writer's own words (a decoder's or the engine's message, paths of the server) stay in its log.
    expect(JSON.stringify(letters)).not.toMatch(/invalid span batch payload|resourceSpans|\/tmp\//);
  });

  it('puts dead letters back on request, each with fresh attempts, and never another project\'s', async () => {
    const letters = (await readJson<{ data: DeadLetter[] }>(await svc.api('/api/v1/dead-letters'))).data;
    const mine = letters[0]!.jobId;
    const theirs = (await queue.getFailed()).find((job) => job.data.projectId === 'someone-else')!;
    expect((await svc.api(`/api/v1/dead-letters/${theirs.id}/retry`, { method: 'POST' })).status).toBe(404);
    expect((await svc.api('/api/v1/dead-letters/abc/retry', { method: 'POST' })).status).toBe(400);
    const failedAgain = async (id: string, after: number) => {
      const job = await queue.getJob(id);
      return job && (await job.isFailed()) && job.finishedOn! > after ? true : undefined;
    };

    const before = (await queue.getJob(mine))!.finishedOn!;
    const one = await svc.api(`/api/v1/dead-letters/${mine}/retry`, { method: 'POST' });
    expect(one.status).toBe(200);
    expect(await one.json()).toEqual({ retried: 1 });
    // Back in the queue; the writer fails it again (the batch is still broken).
    await eventually(() => failedAgain(mine, before));

    // All of the project's: the one of this project only.
    const again = (await queue.getJob(mine))!.finishedOn!;
    const all = await svc.api('/api/v1/dead-letters/retry', { method: 'POST' });
    expect(await all.json()).toEqual({ retried: 1 });
    await eventually(() => failedAgain(mine, again));
    const untouched = (await queue.getJob(theirs.id!))!;
    expect(untouched.finishedOn).toBe(theirs.finishedOn);
    expect(await untouched.isFailed()).toBe(true);

    // A batch that was stored is no dead letter: nothing to put back.
    const done = await queue.add('batch', { projectId: 'default', receivedAtMs: Date.now(), export: { resourceSpans: [] } } as never);
    await eventually(async () => ((await done.isCompleted()) ? true : undefined));
    const none = await svc.api(`/api/v1/dead-letters/${done.id}/retry`, { method: 'POST' });
    expect(await none.json()).toEqual({ retried: 0 });
  });
});

describe('DELETE /dead-letters', () => {
  it('removes a dead letter with its rows key, which it keeps until then so that a retry finds its rows', async () => {
    const rowsQueue = openIngestQueueOf<IngestJobPayload>(svc);
    const redis = createRedisConnection(svc.env.REDIS_URL!);
    try {
      // Rows the engine refuses: the insert fails on every attempt, so the batch is a dead letter.
      const job = { projectId: 'default', receivedAtMs: Date.now(), rowCount: 1, deploymentIds: [], traceIds: ['t'], telemetryScores: [] };
      const jobId = await addSpanRowsJob(rowsQueue.queue, job, Buffer.from('["not", "a span row"]\n'));
      const rowsKey = rowsKeyOf(svc.env.QUEUE_PREFIX!, jobId);
      await eventually(async () => ((await (await rowsQueue.queue.getJob(jobId))?.isFailed()) ? true : undefined));
      const letter = (await readJson<{ data: DeadLetter[] }>(await svc.api('/api/v1/dead-letters'))).data.find((l) => l.jobId === jobId);
      expect(letter).toMatchObject({ spanCount: 1, cause: 'rows_refused', refusal: 'parse' });
      expect(await redis.exists(rowsKey)).toBe(1);
      // Put back, it reads its rows again and fails on them again (a job without its rows would complete).
      const failedOn = (await rowsQueue.queue.getJob(jobId))!.finishedOn!;
      expect(await (await svc.api(`/api/v1/dead-letters/${jobId}/retry`, { method: 'POST' })).json()).toEqual({ retried: 1 });
      await eventually(async () => {
        const retried = await rowsQueue.queue.getJob(jobId);
        return retried && (await retried.isFailed()) && retried.finishedOn! > failedOn ? true : undefined;
      });
      expect(await redis.exists(rowsKey)).toBe(1);

      // Another project's letter is unknown to this one; a path that is no job id is a 400.
      const theirs = (await queue.getFailed()).find((j) => j.data.projectId === 'someone-else')!;
      expect((await svc.api(`/api/v1/dead-letters/${theirs.id}`, { method: 'DELETE' })).status).toBe(404);
      expect((await svc.api('/api/v1/dead-letters/not-a-job', { method: 'DELETE' })).status).toBe(400);

      const one = await svc.api(`/api/v1/dead-letters/${jobId}`, { method: 'DELETE' });
      expect(one.status).toBe(200);
      expect(await one.json()).toEqual({ removed: 1 });
      expect(await rowsQueue.queue.getJob(jobId)).toBeUndefined();
      expect(await redis.exists(rowsKey)).toBe(0);

      // All of the project's: the broken export of the first test is the one left; the other project's stays.
      const all = await svc.api('/api/v1/dead-letters', { method: 'DELETE' });
      expect(await all.json()).toEqual({ removed: 1 });
      expect((await readJson<{ data: DeadLetter[] }>(await svc.api('/api/v1/dead-letters'))).data).toEqual([]);
      expect(await (await queue.getJob(theirs.id!))!.isFailed()).toBe(true);
    } finally {
      await redis.quit();
      await rowsQueue.close();
    }
  });
});
