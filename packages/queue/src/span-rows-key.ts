import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { INGEST_QUEUE, type IngestJobPayload, type SpanRowsKeyPayload } from './ingest-queue.ts';

/**
 * Where an ingest job's rows wait: beside the job's own keys (`<prefix>:span-batches:<id>`),
 * so a job's rows are found from its id alone and removing the queue removes them too.
 */
export function rowsKeyOf(prefix: string, jobId: string): string {
  return `${prefix}:${INGEST_QUEUE}:rows:${jobId}`;
}

/** The job's fields apart from the key, which is chosen with the job's id. */
export type SpanRowsJob = Omit<SpanRowsKeyPayload, 'rowsKey'>;

/**
 * Queues one export's rows: the bytes under a key of their own, then the job naming it,
 * with an id chosen here (the key is written before the job exists, so it cannot be
 * BullMQ's counter). BullMQ's add is a script of its own, so these are two round trips;
 * resolves once both are in Redis. When adding the job fails, its key is removed (best
 * effort: a key left behind is an orphan, docs/operations.md) and the error is thrown.
 */
export async function addSpanRowsJob(queue: Queue<IngestJobPayload>, job: SpanRowsJob, rows: Uint8Array): Promise<string> {
  const redis = await redisOf(queue);
  const jobId = randomUUID();
  const rowsKey = rowsKeyOf(prefixOf(queue), jobId);
  await redis.set(rowsKey, asBuffer(rows));
  try {
    await queue.add('batch', { ...job, rowsKey }, { jobId });
  } catch (err) {
    await redis.del(rowsKey).catch(() => {});
    throw err;
  }
  return jobId;
}

/** The queue's own ioredis connection (BullMQ types it as its minimal client interface, which has no Buffer commands). */
export async function redisOf(queue: Queue<IngestJobPayload>): Promise<Redis> {
  const client: unknown = await queue.getBackend().client;
  if (!(client instanceof Redis)) throw new Error('the ingest queue is not on an ioredis connection');
  return client;
}

/** The queue's key prefix; BullMQ's default when none was given. */
export function prefixOf(queue: Queue<IngestJobPayload>): string {
  return queue.opts.prefix ?? 'bull';
}

/** The rows of a job, or null when its key is gone (the job's work was done by an attempt before this one). */
export function readJobRows(redis: Redis, rowsKey: string): Promise<Buffer | null> {
  return redis.getBuffer(rowsKey);
}

/** Removes a job's rows once nothing will read them again. */
export async function deleteJobRows(redis: Redis, rowsKey: string): Promise<void> {
  await redis.del(rowsKey);
}

/**
 * The Buffer ioredis sends as bytes: a plain Uint8Array (as a decode thread's result
 * arrives) would be sent as its String() form, so it is viewed as a Buffer without a copy.
 */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
