import { afterEach, beforeEach } from 'vitest';
import type { Redis } from 'ioredis';
import { Queue } from 'bullmq';
import { createRedisConnection } from '@aos/queue';
import { startTestService, type TestService } from './service.ts';

/**
 * A service per test with a small body limit (`maxBodyBytes`), a queue high-water mark of 2
 * and Retry-After 7, plus a handle on one of its queues to fill it. A service per test: a
 * shutdown of one that had run several such tests stalled in closing its log record queue
 * (BullMQ, shared connection), which none of them alone does.
 */
export function limitedServicePerTest(queueName: string, maxBodyBytes: number): { svc: TestService; queue: Queue } {
  const current = {} as { svc: TestService; queue: Queue };
  let connection: Redis | undefined;
  beforeEach(async () => {
    current.svc = await startTestService({ INGEST_MAX_BODY_BYTES: String(maxBodyBytes), INGEST_MAX_QUEUE_DEPTH: '2', INGEST_RETRY_AFTER_SECONDS: '7' });
    connection = createRedisConnection(current.svc.env.REDIS_URL!);
    current.queue = new Queue(queueName, { connection, prefix: current.svc.env.QUEUE_PREFIX! });
  });
  afterEach(async () => {
    await current.queue?.close();
    await connection?.quit();
    await current.svc?.stop();
  });
  return current;
}
