import { Queue } from 'bullmq';
import { createRedisConnection, INGEST_QUEUE, type SpanBatchPayload } from '@aos/queue';

/** The ingest queue of a test service (or of parts started with that environment), on a connection of its own, for tests that add or inspect jobs directly. */
export function openIngestQueue(svc: { env: Record<string, string | undefined> }): { queue: Queue<SpanBatchPayload>; close(): Promise<void> } {
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
