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

/** The field set on a job's own hash, in the transaction that removes its rows, saying they were stored. */
export const ROWS_STORED_FIELD = 'aosRowsStored';

/** The field on a job's own hash naming the insert block its rows went to last (insert-blocks.ts). */
export const INSERT_BLOCK_FIELD = 'aosInsertBlock';

/** BullMQ's key of a job's hash in the ingest queue. */
export function jobKeyOf(prefix: string, jobId: string): string {
  return `${prefix}:${INGEST_QUEUE}:${jobId}`;
}

/**
 * A job's rows as the writer finds them: the bytes, with the insert block an attempt before
 * this one sent them in (null when none did; insert-blocks.ts); `stored` when an attempt
 * before this one stored them (and said so on the job); or `missing` when neither the rows
 * nor that mark are there (the key was evicted, flushed or removed by hand): the rows are
 * lost, and the job must not complete as if they had been stored.
 */
export type JobRows = { rows: Buffer; block: string | null } | 'stored' | 'missing';

/** Reads a job's rows, or what became of them, in one round trip. */
export async function readJobRows(redis: Redis, prefix: string, jobId: string): Promise<JobRows> {
  const jobKey = jobKeyOf(prefix, jobId);
  const replies = await redis.multi().getBuffer(rowsKeyOf(prefix, jobId)).hexists(jobKey, ROWS_STORED_FIELD).hget(jobKey, INSERT_BLOCK_FIELD).exec();
  if (!replies) throw new Error(`reading the rows of job ${jobId}: the transaction was discarded`);
  const [[rowsErr, rows], [markErr, marked], [blockErr, block]] = replies as [[Error | null, Buffer | null], [Error | null, number], [Error | null, string | null]];
  if (rowsErr || markErr || blockErr) throw rowsErr ?? markErr ?? blockErr;
  if (rows !== null) return { rows, block };
  return marked === 1 ? 'stored' : 'missing';
}

/**
 * Removes a job's rows once they are stored and marks the job as stored, in one
 * transaction: a later attempt of the same job (its worker died before completing it)
 * then finds the mark, never a bare absence. The mark lives on the job's own hash, so it
 * goes when the job is removed and costs nothing after.
 */
export async function markJobRowsStored(redis: Redis, prefix: string, jobId: string): Promise<void> {
  const replies = await redis.multi().hset(jobKeyOf(prefix, jobId), ROWS_STORED_FIELD, Date.now()).del(rowsKeyOf(prefix, jobId)).exec();
  const failed = replies?.find(([err]) => err !== null);
  if (!replies || failed) throw failed?.[0] ?? new Error(`marking the rows of job ${jobId} stored: the transaction was discarded`);
}

/**
 * The Buffer ioredis sends as bytes: a plain Uint8Array (as a decode thread's result
 * arrives) would be sent as its String() form, so it is viewed as a Buffer without a copy.
 */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
