import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { EvaluatorSettings, MonitorSettings, WriterSettings } from '@aos/config';
import type { Logger, LogLevel } from '@aos/log';
import { INGEST_QUEUE, TRACE_FLAGS_JOB, TRACE_ROLLUPS_JOB, createRedisConnection, startWorker, type WorkerStats } from '@aos/queue';
import { insertEncodedSpans, registerDeployments as insertDeployments, type Storage } from '@aos/storage';
import { InsertBatcher } from './insert-batcher.ts';
import { loadPrices } from './prices.ts';
import { createSpanBatchProcessor, type EncodedBatch } from './span-batch-processor.ts';
import { startMonitorWorker, type MonitorWorker } from './monitor-processor.ts';
import { startEvaluationWorker } from './evaluation-worker.ts';
import { startMaintenanceWorker } from './maintenance-worker.ts';
import { createCostStatsCache, runTraceFlagsPass } from './trace-flags-processor.ts';
import { runTraceRollupPass } from './trace-rollup-processor.ts';
import { startWriterThreads } from './writer-threads.ts';

export interface SpanWriterDeps {
  storage: Storage;
  redisUrl: string;
  prefix: string;
  settings: WriterSettings;
  monitorSettings: MonitorSettings;
  evaluatorSettings: EvaluatorSettings;
  logger: Logger;
  logLevel: LogLevel;
}

export interface SpanWriter {
  stats: WorkerStats & { inserts: number; rows: number };
  /** Monitor evaluations and webhook deliveries. */
  monitors: MonitorWorker;
  /** Stops taking jobs, writes what is pending, and waits for active jobs to finish. */
  close(): Promise<void>;
}

/**
 * The writer: BullMQ workers turn queued OTLP batches into span rows, and one batcher on
 * this thread (which owns the storage connection) combines them into large inserts.
 * With WRITER_THREADS > 0 the per-job CPU work runs on worker threads, so an ingest app
 * in the same process keeps answering quickly while batches are normalized.
 */
export function startSpanWriter(deps: SpanWriterDeps): SpanWriter {
  const { settings } = deps;
  const prices = loadPrices(settings.modelPricesFile); // fails fast on a bad price file
  // Items are JSONEachRow chunks, one per job, each standing for that job's rows.
  const batcher = new InsertBatcher<string>({
    maxRows: settings.batchMaxRows,
    maxWaitMs: settings.batchMaxWaitMs,
    maxPendingAdds: settings.concurrency * Math.max(1, settings.threads),
    insert: (chunks) => insertEncodedSpans(deps.storage, chunks),
  });
  const registerDeployments = deploymentRegistry(deps);
  // Both ways of running the workers end a job's processing here.
  const storeBatch = async (batch: EncodedBatch) => {
    await Promise.all([batcher.add([batch.chunk], batch.rows), registerDeployments(batch.projectId, batch.deploymentIds)]);
  };
  const workers =
    settings.threads > 0
      ? startWriterThreads(deps, storeBatch)
      : startInThread(deps, storeBatch, createSpanBatchProcessor({ prices, maxValueBytes: settings.maxAttributeBytes }));
  // Maintenance passes and evaluations need storage, which lives on this thread.
  const evaluations = startEvaluationWorker({
    storage: deps.storage,
    redisUrl: deps.redisUrl,
    prefix: deps.prefix,
    settings: deps.evaluatorSettings,
    lockDurationMs: settings.lockDurationMs,
    logger: deps.logger,
  });
  const costStats = createCostStatsCache();
  const maintenance = startMaintenanceWorker({
    redisUrl: deps.redisUrl,
    prefix: deps.prefix,
    lockDurationMs: settings.lockDurationMs,
    logger: deps.logger,
    passes: {
      [TRACE_FLAGS_JOB]: {
        everyMs: settings.traceFlagsIntervalMs,
        run: async () => {
          const result = await runTraceFlagsPass(deps.storage, {
            rules: settings.traceFlagRules,
            quietMs: settings.traceQuietMs,
            costStats,
            // A trace judged for flags has completed: the evaluators that run on new traces take it from here.
            onTracesJudged: (projectId, traceIds) => evaluations.tracesCompleted(projectId, traceIds),
          });
          return { done: result.traces, ...result };
        },
      },
      [TRACE_ROLLUPS_JOB]: {
        everyMs: settings.traceRollupIntervalMs,
        run: () => runTraceRollupPass(deps.storage, { quietMs: settings.traceRollupQuietMs }),
      },
    },
  });
  const monitors = startMonitorWorker({
    storage: deps.storage,
    redisUrl: deps.redisUrl,
    prefix: deps.prefix,
    lockDurationMs: settings.lockDurationMs,
    settings: deps.monitorSettings,
    logger: deps.logger,
  });
  return {
    stats: Object.defineProperties(workers.stats as SpanWriter['stats'], {
      inserts: { get: () => batcher.stats.inserts, enumerable: true },
      rows: { get: () => batcher.stats.rows, enumerable: true },
    }),
    monitors,
    async close() {
      // Evaluation jobs finish before the span workers stop: in tests, an evaluation query
      // still running while the writer threads ended never returned (embedded engine).
      await maintenance.close();
      await evaluations.close();
      const closing = Promise.all([workers.close(), monitors.close()]);
      await batcher.flush();
      await closing;
      await batcher.flush();
    },
  };
}

interface RunningWorkers {
  stats: WorkerStats;
  close(): Promise<void>;
}

function startInThread(
  deps: SpanWriterDeps,
  storeBatch: (batch: EncodedBatch) => Promise<void>,
  processBatch: ReturnType<typeof createSpanBatchProcessor>,
): RunningWorkers {
  const connection = createRedisConnection(deps.redisUrl, deps.logger);
  const started = startWorker({
    queue: INGEST_QUEUE,
    connection,
    prefix: deps.prefix,
    concurrency: deps.settings.concurrency,
    lockDurationMs: deps.settings.lockDurationMs,
    logger: deps.logger,
    processor: async (job) => {
      // Let ingest requests in the same process run before milliseconds of CPU work.
      await yieldToEventLoop();
      const batch = processBatch(job.data);
      await storeBatch(batch);
      return { spans: batch.rows };
    },
  });
  return {
    stats: started.stats,
    async close() {
      await started.worker.close();
      await connection.quit();
    },
  };
}

/** Deployment ids already recorded by this process; bounded so a flood of ids cannot grow it forever. */
const MAX_REMEMBERED_DEPLOYMENTS = 100_000;

/** Records each (project, deployment id) once per process; the table collapses repeats anyway. */
function deploymentRegistry(deps: SpanWriterDeps) {
  const seen = new Set<string>();
  return async (projectId: string, ids: readonly number[]) => {
    const fresh = ids.filter((id) => !seen.has(`${projectId}\u0000${id}`));
    if (fresh.length === 0) return;
    await insertDeployments(deps.storage, projectId, fresh);
    if (seen.size > MAX_REMEMBERED_DEPLOYMENTS) seen.clear();
    for (const id of fresh) seen.add(`${projectId}\u0000${id}`);
  };
}
