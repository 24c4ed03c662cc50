import { randomUUID } from 'node:crypto';
import { afterAll, expect, inject, it } from 'vitest';
import { Queue } from 'bullmq';
import { closeWorker, createRedisConnection, startWorker } from '@aos/queue';
import { silentLogger } from '@aos/log';
import { eventually } from '../support/service.ts';

// A worker whose close cannot end on its own (its job never finishes) is left after its
// grace, cut off, and its job stays in Redis for the next worker: the bound a service's
// stop relies on when a BullMQ close hangs.
const connection = createRedisConnection(inject('redisUrl'));
const prefix = `close-bound-${randomUUID()}`;
const queue = new Queue('held', { connection, prefix });
afterAll(async () => {
  await queue.close();
  await connection.quit();
});

it('leaves a worker whose job never ends after its grace, and the job stays in Redis', async () => {
  let started = false;
  const { worker } = startWorker({
    queue: 'held',
    connection: createRedisConnection(inject('redisUrl')),
    prefix,
    concurrency: 1,
    lockDurationMs: 30_000,
    logger: silentLogger,
    processor: () => {
      started = true;
      return new Promise(() => {});
    },
  });
  const job = await queue.add('held', { n: 1 });
  await eventually(async () => (started ? true : undefined));
  const t0 = Date.now();
  await closeWorker(worker, silentLogger, 500);
  // Two graces: one for the close, one after the connections were cut.
  expect(Date.now() - t0).toBeLessThan(5_000);
  expect(Date.now() - t0).toBeGreaterThanOrEqual(500);
  // Not completed nor failed: the job is still held in Redis, to run again once its lock lapses.
  expect(await queue.getJobState(job.id!)).toBe('active');
}, 30_000);
