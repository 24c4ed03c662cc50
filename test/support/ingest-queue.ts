import { Queue } from 'bullmq';
import { createRedisConnection, INGEST_QUEUE, type SpanBatchPayload } from '@aos/queue';
import type { TestService } from './service.ts';

/** The test service's ingest queue, on a connection of its own, for tests that add or inspect jobs directly. */
export function openIngestQueue(svc: TestService): { queue: Queue<SpanBatchPayload>; close(): Promise<void> } {
  const connection = createRedisConnection(svc.env.REDIS_URL!);
  const queue = new Queue<SpanBatchPayload>(INGEST_QUEUE, { connection, prefix: svc.env.QUEUE_PREFIX! });
  return {
    queue,
    async close() {
      await queue.close();
      await connection.quit();
    },
  };
}
