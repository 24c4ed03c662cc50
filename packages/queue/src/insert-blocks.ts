import type { Redis } from 'ioredis';
import { INSERT_BLOCK_FIELD, ROWS_STORED_FIELD, jobKeyOf, rowsKeyOf } from './span-rows-key.ts';

/**
 * Insert blocks: the ingest jobs whose rows the writer sent to storage as one insert, named
 * by their ids in the order their rows were sent (joined by commas). The writer records
 * a block on each of its jobs before the insert; after a crash between the engine
 * committing the insert and the jobs being marked stored, the next attempt of any of them
 * finds the block, re-forms exactly that insert and sends it with the same
 * insert_deduplication_token, which the engine recognises (apps/writer/src/span-batches/insert-blocks.ts).
 */
export function insertBlockOf(jobIds: readonly string[]): string {
  return jobIds.join(',');
}

export function jobsOfInsertBlock(block: string): string[] {
  return block.split(',');
}

/** Records, in one transaction, the block each job's rows are sent in (`[jobId, block]` pairs). */
export async function recordInsertBlocks(redis: Redis, prefix: string, entries: readonly (readonly [jobId: string, block: string])[]): Promise<void> {
  const multi = redis.multi();
  for (const [jobId, block] of entries) multi.hset(jobKeyOf(prefix, jobId), INSERT_BLOCK_FIELD, block);
  await execAll(multi, 'recording insert blocks');
}

/** One job of a block as Redis has it now. */
export interface InsertBlockMember {
  jobId: string;
  /** False once the job is gone (completed and removed, after its rows were marked stored). */
  exists: boolean;
  /** The block its rows were last sent in. */
  block: string | null;
  stored: boolean;
  rows: Buffer | null;
}

/** Reads every job of a block in one transaction. */
export async function readInsertBlock(redis: Redis, prefix: string, block: string): Promise<InsertBlockMember[]> {
  const jobIds = jobsOfInsertBlock(block);
  const multi = redis.multi();
  for (const jobId of jobIds) {
    const jobKey = jobKeyOf(prefix, jobId);
    multi.exists(jobKey).hget(jobKey, INSERT_BLOCK_FIELD).hexists(jobKey, ROWS_STORED_FIELD).getBuffer(rowsKeyOf(prefix, jobId));
  }
  const replies = await execAll(multi, `reading insert block ${block}`);
  return jobIds.map((jobId, i) => ({
    jobId,
    exists: replies[4 * i] === 1,
    block: replies[4 * i + 1] as string | null,
    stored: replies[4 * i + 2] === 1,
    rows: replies[4 * i + 3] as Buffer | null,
  }));
}

/**
 * Marks the rows of these jobs stored and removes them, in one transaction (what
 * markJobRowsStored does for one job): after it no job of an inserted block is left
 * unmarked beside marked ones.
 */
export async function markJobsRowsStored(redis: Redis, prefix: string, jobIds: readonly string[]): Promise<void> {
  const multi = redis.multi();
  const now = Date.now();
  for (const jobId of jobIds) multi.hset(jobKeyOf(prefix, jobId), ROWS_STORED_FIELD, now).del(rowsKeyOf(prefix, jobId));
  await execAll(multi, 'marking rows stored');
}

async function execAll(multi: ReturnType<Redis['multi']>, what: string): Promise<unknown[]> {
  const replies = await multi.exec();
  const failed = replies?.find(([err]) => err !== null);
  if (!replies || failed) throw failed?.[0] ?? new Error(`${what}: the transaction was discarded`);
  return replies.map(([, value]) => value);
}
