import { Queue } from 'bullmq';
import { createRedisConnection, INGEST_QUEUE, type IngestJobPayload, type SpanBatchPayload } from '@aos/queue';

/** The ingest queue of a test service (or of parts started with that environment), on a connection of its own, for tests that add or inspect jobs directly. */
export function openIngestQueue(svc: { env: Record<string, string | undefined> }): { queue: Queue<SpanBatchPayload>; close(): Promise<void> } {
  return openIngestQueueOf<SpanBatchPayload>(svc);
}

/** The same, typed for the payload shape a test adds or reads (ingest queues rows; older versions queued the export). */
export function openIngestQueueOf<Payload extends IngestJobPayload>(svc: { env: Record<string, string | undefined> }): {
  queue: Queue<Payload>;
  close(): Promise<void>;
} {
  const connection = createRedisConnection(svc.env.REDIS_URL!);
  const queue = new Queue<Payload>(INGEST_QUEUE, { connection, prefix: svc.env.QUEUE_PREFIX! });
  return {
    queue,
    async close() {
      await queue.close();
      await connection.quit();
    },
  };
}
