import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { WriterSettings } from '@aos/config';
import { loadPrices, type PriceTable } from '@aos/domain';
import type { Logger, LogLevel } from '@aos/log';
import type { JobOutcome, Metrics } from '@aos/metrics';
import { closeWorker, INGEST_QUEUE, createRedisConnection, recordStoredSpans, startWorker, type DeadLetterCause, type WorkerStats } from '@aos/queue';
import { insertEncodedSpans, registerDeployments as insertDeployments, writeFailureWaits, writeTelemetryScores, type Storage } from '@aos/storage';
import { InsertBatcher } from './insert-batcher.ts';
import { createSpanInsertBlocks, type BlockItem } from './insert-blocks.ts';
import { createSpanBatchJobRunner, type BatchStore } from './job.ts';
import type { SpanLogJoin } from '../span-log-join.ts';
import { startWriterThreads } from '../writer-threads/pool.ts';

export interface SpanBatchProcessorDeps {
  storage: Storage;
  redisUrl: string;
  prefix: string;
  settings: WriterSettings;
  logger: Logger;
  logLevel: LogLevel;
  metrics: Metrics;
  join: SpanLogJoin;
}

export interface SpanBatchProcessor {
  stats: WorkerStats & { inserts: number; rows: number };
  /** Stops taking jobs, writes what is pending, and waits for active jobs to finish. */
  close(): Promise<void>;
}

/**
 * The ingest queue's processor: BullMQ workers take queued batches of span rows (normalizing
 * only jobs queued by an older version), and one batcher on this thread (which owns the
 * storage connection) combines them into large inserts. With WRITER_THREADS > 0 the jobs
 * are taken (and their payloads parsed) on worker threads, so an ingest app in the same
 * process keeps answering quickly meanwhile.
 */
export function startSpanBatchProcessor(deps: SpanBatchProcessorDeps): SpanBatchProcessor {
  const { settings } = deps;
  const prices = loadPrices(settings.modelPricesFile); // fails fast on a bad price file
  // This thread's own connection: the inserts' blocks are recorded on their jobs and marked stored here.
  const redis = createRedisConnection(deps.redisUrl, deps.logger);
  // The writers' recent pace, which ingest holds its queue's backlog to (INGEST_MAX_QUEUE_SECONDS); a
  // block's chunks are one per job. Not awaited: a count that fails only leaves the rate short a moment.
  const countStored = (rows: number, jobs: number) =>
    void recordStoredSpans(redis, deps.prefix, rows, jobs).catch((err: unknown) => deps.logger.warn('counting stored spans for the writer pace failed', { error: err }));
  const blocks = createSpanInsertBlocks({
    redis,
    prefix: deps.prefix,
    logger: deps.logger,
    insert: async (chunks, format, rows, token) => {
      await timedInsert(deps.metrics, 'spans', chunks, rows, () => insertEncodedSpans(deps.storage, chunks, format, token));
      countStored(rows, chunks.length);
    },
  });
  // Items are encoded chunks, one per job, each standing for that job's rows: RowBinary, or
  // JSONCompactEachRow from jobs queued by older versions. One insert holds one format.
  const batcher = new InsertBatcher<BlockItem>({
    kindOf: (items) => items[0]!.format,
    maxRows: settings.batchMaxRows,
    maxWaitMs: settings.batchMaxWaitMs,
    maxPendingAdds: settings.concurrency * Math.max(1, settings.threads),
    insert: (items, rows) => blocks.insert(items, rows),
    // Only rows the engine refused have a culprit among the block's jobs.
    isolates: (err) => !writeFailureWaits(err),
    // Only the embedded engine makes reads wait for inserts (a server runs them side by side),
    // and its gate tells an insert's engine time apart from its wait for reads to go first.
    insertTime: deps.storage.statements && { maxMs: settings.batchMaxInsertMs, engineClock: () => deps.storage.statements!.runMs('write') },
  });
  const registerDeployments = deploymentRegistry(deps);
  // Both ways of running the workers do a job's storage work here.
  const store: BatchStore = {
    async rows(batch) {
      // Rows an attempt before sent go again in the block they went in, unless that block is void.
      const replayed = batch.jobId !== undefined && batch.insertBlock ? await blocks.replay(batch.jobId, batch.insertBlock, batch.format) : false;
      if (!replayed) await batcher.add([{ jobId: batch.jobId, chunk: batch.chunk, format: batch.format }], batch.rows);
      deps.metrics.writerLag.observe(Math.max(0, Date.now() - batch.receivedAtMs) / 1000);
    },
    async followUp(batch) {
      await Promise.all([
        registerDeployments(batch.projectId, batch.deploymentIds),
        writeTelemetryScores(deps.storage, batch.projectId, batch.telemetryScores),
      ]);
      // Only once the spans are stored: records stored before then are found now, later ones find the spans.
      await deps.join.join(batch.projectId, batch.traceIds);
    },
  };
  const onOutcome = deps.metrics.jobOutcomes(INGEST_QUEUE);
  const workers =
    settings.threads > 0
      ? startWriterThreads({ ...deps, onOutcome }, store)
      : startInThread({ ...deps, onOutcome }, store, prices);
  return {
    stats: Object.defineProperties(workers.stats as SpanBatchProcessor['stats'], {
      inserts: { get: () => batcher.stats.inserts, enumerable: true },
      rows: { get: () => batcher.stats.rows, enumerable: true },
    }),
    async close() {
      const closing = workers.close();
      await batcher.flush();
      await closing;
      await batcher.flush();
      await redis.quit();
    },
  };
}

interface RunningWorkers {
  stats: WorkerStats;
  close(): Promise<void>;
}

function startInThread(
  deps: SpanBatchProcessorDeps & { onOutcome(outcome: JobOutcome, cause?: DeadLetterCause): void },
  store: BatchStore,
  prices: PriceTable,
): RunningWorkers {
  const connection = createRedisConnection(deps.redisUrl, deps.logger);
  const runJob = createSpanBatchJobRunner({ redis: connection, prefix: deps.prefix, prices, maxValueBytes: deps.settings.maxAttributeBytes, logger: deps.logger });
  const started = startWorker({
    queue: INGEST_QUEUE,
    connection,
    prefix: deps.prefix,
    concurrency: deps.settings.concurrency,
    lockDurationMs: deps.settings.lockDurationMs,
    logger: deps.logger,
    waits: writeFailureWaits,
    onOutcome: deps.onOutcome,
    processor: async (job) => {
      // Let ingest requests in the same process run before milliseconds of CPU work.
      await yieldToEventLoop();
      return runJob(job, store);
    },
  });
  return {
    stats: started.stats,
    async close() {
      await closeWorker(started.worker, deps.logger);
      await connection.quit();
    },
  };
}

/** Runs one insert of encoded rows, timing it and counting its rows and bytes as inserted once it succeeds. */
async function timedInsert(metrics: Metrics, table: string, chunks: readonly Uint8Array[], rows: number, insert: () => Promise<void>): Promise<void> {
  const end = metrics.insertDuration.startTimer({ table });
  await insert();
  end();
  metrics.insertedRows.inc({ table }, rows);
  metrics.insertedBytes.inc({ table }, chunks.reduce((n, chunk) => n + chunk.byteLength, 0));
}

/** Deployment ids already recorded by this process; bounded so a flood of ids cannot grow it forever. */
const MAX_REMEMBERED_DEPLOYMENTS = 100_000;

/** Records each (project, deployment id) once per process; the table collapses repeats anyway. */
function deploymentRegistry(deps: SpanBatchProcessorDeps) {
  const seen = new Set<string>();
  return async (projectId: string, ids: readonly number[]) => {
    const fresh = ids.filter((id) => !seen.has(`${projectId}\u0000${id}`));
    if (fresh.length === 0) return;
    await insertDeployments(deps.storage, projectId, fresh);
    if (seen.size > MAX_REMEMBERED_DEPLOYMENTS) seen.clear();
    for (const id of fresh) seen.add(`${projectId}\u0000${id}`);
  };
}
