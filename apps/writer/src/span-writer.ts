import { UnrecoverableError, type Job } from 'bullmq';
import { spanRowsFromExport, type PriceTable, type SpanRow } from '@aos/domain';
import type { Logger } from '@aos/log';
import { INGEST_QUEUE, parseSpanBatchPayload, startWorker, type Redis, type WorkerStats } from '@aos/queue';
import { insertSpanRows, type Storage } from '@aos/storage';
import type { WriterSettings } from '@aos/config';
import { InsertBatcher } from './insert-batcher.ts';

export interface SpanWriterDeps {
  storage: Storage;
  connection: Redis;
  prefix: string;
  settings: WriterSettings;
  prices: PriceTable;
  logger: Logger;
}

export interface SpanWriter {
  stats: WorkerStats & { inserts: number; rows: number };
  /** Stops taking jobs, writes what is pending, and waits for active jobs to finish. */
  close(): Promise<void>;
}

/** The BullMQ worker that turns queued OTLP batches into span rows in ClickHouse. */
export function startSpanWriter(deps: SpanWriterDeps): SpanWriter {
  const { settings } = deps;
  const batcher = new InsertBatcher<SpanRow>({
    maxRows: settings.batchMaxRows,
    maxWaitMs: settings.batchMaxWaitMs,
    maxPendingAdds: settings.concurrency,
    insert: (rows) => insertSpanRows(deps.storage, rows),
  });
  const processor = async (job: Job) => {
    let payload;
    try {
      payload = parseSpanBatchPayload(job.data);
    } catch (err) {
      // A payload of the wrong shape will never succeed: straight to the dead letters.
      throw new UnrecoverableError(`invalid span batch payload: ${(err as Error).message}`);
    }
    const rows = spanRowsFromExport(payload.export, {
      projectId: payload.projectId,
      receivedAtMs: payload.receivedAtMs,
      prices: deps.prices,
      maxValueBytes: settings.maxAttributeBytes,
    });
    await batcher.add(rows);
    return { spans: rows.length };
  };
  const { worker, stats } = startWorker({
    queue: INGEST_QUEUE,
    connection: deps.connection,
    prefix: deps.prefix,
    concurrency: settings.concurrency,
    lockDurationMs: settings.lockDurationMs,
    processor,
    logger: deps.logger,
  });
  return {
    stats: Object.defineProperties(stats as SpanWriter['stats'], {
      inserts: { get: () => batcher.stats.inserts, enumerable: true },
      rows: { get: () => batcher.stats.rows, enumerable: true },
    }),
    async close() {
      const closing = worker.close();
      await batcher.flush();
      await closing;
    },
  };
}
