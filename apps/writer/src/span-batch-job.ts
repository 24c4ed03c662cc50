import { UnrecoverableError, type Job } from 'bullmq';
import type { PriceTable } from '@aos/domain';
import type { Logger } from '@aos/log';
import { deleteJobRows, isSpanRowsKeyPayload, readJobRows, rowsKeyOf, type Redis } from '@aos/queue';
import { createSpanBatchEncoder, parseSpanBatchJob, type EncodedBatch } from './span-batch-encoder.ts';

export interface SpanBatchJobOptions {
  /** The connection the job was taken on; its rows are read and removed there. */
  redis: Redis;
  prefix: string;
  prices: PriceTable;
  maxValueBytes: number;
  logger: Logger;
}

/** Stores a job's rows and does what follows them (deployments, scores, the log join); resolves once all of it is done. */
export type StoreBatch = (batch: EncodedBatch) => Promise<void>;

/**
 * The work of one ingest job, on whichever thread took it. Ingest queues the rows as raw
 * bytes under a key of their own (named by the job): they are read as a Buffer, stored, and
 * only then is the key removed, so a job whose key is gone had its rows stored by an attempt
 * before (one that died between removing the key and completing the job): it completes
 * without storing them again. Jobs queued by older versions carry their rows or the decoded
 * export in their JSON.
 */
export function createSpanBatchJobRunner(opts: SpanBatchJobOptions) {
  const encode = createSpanBatchEncoder({ prices: opts.prices, maxValueBytes: opts.maxValueBytes });
  return async (job: Job, store: StoreBatch): Promise<{ spans: number }> => {
    const payload = parseSpanBatchJob(job.data);
    if (!isSpanRowsKeyPayload(payload)) {
      const batch = encode(payload);
      await store(batch);
      return { spans: batch.rows };
    }
    const { rowsKey, rowCount, ...rest } = payload;
    // A job reads and removes only its own rows, whatever its data says.
    if (rowsKey !== rowsKeyOf(opts.prefix, String(job.id))) throw new UnrecoverableError(`invalid span batch payload: rowsKey is not the key of job ${job.id}`);
    const chunk = await readJobRows(opts.redis, rowsKey);
    if (chunk === null) {
      opts.logger.warn('span batch already stored by an earlier attempt (its rows key is gone); completing the job', { jobId: job.id, spans: rowCount });
      return { spans: 0 };
    }
    await store({ ...rest, chunk, rows: rowCount });
    await deleteJobRows(opts.redis, rowsKey);
    return { spans: rowCount };
  };
}
