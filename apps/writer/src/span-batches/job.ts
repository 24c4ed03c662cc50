import { UnrecoverableError, type Job } from 'bullmq';
import type { PriceTable } from '@aos/domain';
import type { Logger } from '@aos/log';
import { ROWS_MISSING_PREFIX, ROWS_REFUSED_PREFIX, isSpanRowsKeyPayload, markJobRowsStored, readJobRows, rowsKeyOf, type Redis } from '@aos/queue';
import { RowsRefusedError, rowsRefusal } from '@aos/storage';
import { createSpanBatchEncoder, parseSpanBatchJob, type EncodedBatch } from './encoder.ts';

export interface SpanBatchJobOptions {
  /** The connection the job was taken on; its rows are read and removed there. */
  redis: Redis;
  prefix: string;
  prices: PriceTable;
  maxValueBytes: number;
  logger: Logger;
}

/** What follows a batch's rows once they are stored: its deployment ids, telemetry scores and the log-record join. */
export type BatchFollowUp = Omit<EncodedBatch, 'chunk' | 'format' | 'jobId' | 'insertBlock'>;

/**
 * Where a job's work is done (the thread that owns the storage connection), in two steps
 * with the stored mark between them: a failure of the follow-up (storage gone a moment
 * after the insert) then retries the follow-up alone, never the rows.
 */
export interface BatchStore {
  /** Stores the rows; resolves once they are in storage. */
  rows(batch: EncodedBatch): Promise<void>;
  /** Does what follows stored rows; idempotent, as a retried job does it again. */
  followUp(batch: BatchFollowUp): Promise<void>;
}

/**
 * The work of one ingest job, on whichever thread took it. Ingest queues the rows as raw
 * bytes under a key of their own (named by the job): they are read as a Buffer, stored, and
 * only then is the key removed, in the transaction that marks the job's rows as stored. A
 * job that finds the mark had its rows stored by an attempt before (one that died before
 * completing the job) and completes without storing them again; a job that finds neither
 * rows nor mark has lost its rows (evicted or removed behind the writer's back) and fails
 * for good as `rows missing`, never as completed; a job whose rows an attempt before sent
 * (and did not mark) sends them again as that attempt did (insert-blocks.ts). Jobs
 * queued by older versions carry their rows or the decoded export in their JSON.
 */
export function createSpanBatchJobRunner(opts: SpanBatchJobOptions) {
  const encode = createSpanBatchEncoder({ prices: opts.prices, maxValueBytes: opts.maxValueBytes });
  return async (job: Job, store: BatchStore): Promise<{ spans: number }> => {
    const payload = parseSpanBatchJob(job.data);
    if (!isSpanRowsKeyPayload(payload)) {
      const { chunk, format, ...followUp } = encode(payload);
      await storeOrSayRefused(store, { ...followUp, chunk, format });
      await store.followUp(followUp);
      return { spans: followUp.rows };
    }
    const { rowsKey, rowCount, rowsFormat, ...rest } = payload;
    const jobId = String(job.id);
    // A job reads and removes only its own rows, whatever its data says.
    if (rowsKey !== rowsKeyOf(opts.prefix, jobId)) throw new UnrecoverableError(`invalid span batch payload: rowsKey is not the key of job ${job.id}`);
    const found = await readJobRows(opts.redis, opts.prefix, jobId);
    if (found === 'stored') {
      opts.logger.warn('span batch already stored by an earlier attempt (the job is marked stored); finishing its follow-up', { jobId, spans: rowCount });
      await store.followUp({ ...rest, rows: rowCount });
      return { spans: 0 };
    }
    if (found === 'missing') {
      throw new UnrecoverableError(`${ROWS_MISSING_PREFIX}: job ${jobId} has neither its rows (${rowsKey}) nor the mark that they were stored`);
    }
    // A job without a format was queued before RowBinary: its rows are JSON.
    const format = rowsFormat ?? 'JSONCompactEachRow';
    await storeOrSayRefused(store, { ...rest, chunk: found.rows, format, rows: rowCount, jobId, insertBlock: found.block });
    await markJobRowsStored(opts.redis, opts.prefix, jobId);
    await store.followUp({ ...rest, rows: rowCount });
    return { spans: rowCount };
  };
}

/**
 * Stores a batch; when the engine refused its rows, the failure is reworded with the
 * refusal's category, which the dead-letter list and metrics read from the job's failed
 * reason. Other failures pass unchanged (they are the world's: the job waits).
 */
async function storeOrSayRefused(store: BatchStore, batch: EncodedBatch): Promise<void> {
  try {
    await store.rows(batch);
  } catch (err) {
    const refusal = rowsRefusal(err);
    if (refusal === null) throw err;
    throw new RowsRefusedError(refusal, `${ROWS_REFUSED_PREFIX} (${refusal}): ${(err as Error).message}`);
  }
}
