import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { createRedisConnection, INGEST_QUEUE, type DeadLetter, type SpanBatchPayload } from '@aos/queue';
import { readJson } from './support/api-types.ts';
import { eventually, startTestService, type TestService } from './support/service.ts';

let svc: TestService;
let connection: ReturnType<typeof createRedisConnection>;
let queue: Queue<SpanBatchPayload>;

beforeAll(async () => {
  svc = await startTestService({ WRITER_JOB_ATTEMPTS: '2' });
  connection = createRedisConnection(svc.env.REDIS_URL!);
  queue = new Queue<SpanBatchPayload>(INGEST_QUEUE, { connection, prefix: svc.env.QUEUE_PREFIX! });
});
afterAll(async () => {
  await queue?.close();
  await connection?.quit();
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
    expect(letters[0]?.reason).toMatch(/invalid span batch payload/);
  });
});
