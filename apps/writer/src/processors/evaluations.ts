import * as v from 'valibot';
import type { EvaluatorSettings } from '@aos/config';
import {
  BackfillInterrupted,
  KeyedLimiter,
  autoRunsForCompletedTraces,
  failBackfill,
  judgeItem,
  runBackfillChunk,
  type EvaluatorRuntime,
} from '@aos/evaluators';
import type { Logger } from '@aos/log';
import type { Metrics } from '@aos/metrics';
import {
  closeWorker,
  BACKFILL_CHUNK_JOB,
  EVALUATION_QUEUE,
  EVALUATOR_RUN_JOB,
  backfillChunkPayloadSchema,
  createEvaluationQueue,
  createRedisConnection,
  enqueueBackfillChunk,
  enqueueEvaluatorRuns,
  evaluatorRunPayloadSchema,
  postponeJob,
  startWorker,
  type EvaluationPayload,
  type WorkerStats,
} from '@aos/queue';
import { getEvaluator, isStorageUnavailable, type Storage } from '@aos/storage';

/** An interrupted backfill chunk waits this long before a writer takes it up again. */
const INTERRUPTED_CHUNK_DELAY_MS = 1000;

export interface EvaluationProcessorDeps {
  storage: Storage;
  redisUrl: string;
  prefix: string;
  settings: EvaluatorSettings;
  /** Jobs (runs or backfill chunks) in flight per writer. */
  concurrency: number;
  lockDurationMs: number;
  logger: Logger;
  metrics: Metrics;
}

export interface EvaluationProcessor {
  stats: WorkerStats;
  /** Queues the automatic judgements of traces that just completed (called by the trace-flags pass). */
  tracesCompleted(projectId: string, traceIds: string[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * The writer's evaluation work, on this thread (which owns the storage connection):
 * automatic runs on completed traces and backfill chunks, from the evaluation queue.
 * Each backfill chunk queues the next one when it is done, so a backfill is a chain of
 * short jobs that a restarted writer picks up where it stopped.
 */
export function startEvaluationProcessor(deps: EvaluationProcessorDeps): EvaluationProcessor {
  const log = deps.logger.child({ queue: EVALUATION_QUEUE });
  const connection = createRedisConnection(deps.redisUrl, deps.logger);
  const queue = createEvaluationQueue({ connection, prefix: deps.prefix, logger: deps.logger });
  // Set when the writer stops: a running backfill chunk gives up before its next items
  // (its job is retried later) instead of holding the shutdown for all of them.
  let stopping = false;
  const runtime: EvaluatorRuntime = { storage: deps.storage, settings: deps.settings, limiter: new KeyedLimiter(), logger: log };
  const started = startWorker<EvaluationPayload>({
    queue: EVALUATION_QUEUE,
    onOutcome: deps.metrics.jobOutcomes(EVALUATION_QUEUE),
    connection,
    prefix: deps.prefix,
    concurrency: deps.concurrency,
    lockDurationMs: deps.lockDurationMs,
    logger: deps.logger,
    waits: isStorageUnavailable,
    processor: async (job, token) => {
      if (job.name === BACKFILL_CHUNK_JOB) {
        const payload = v.parse(backfillChunkPayloadSchema, job.data);
        try {
          const result = await runBackfillChunk(
            runtime,
            payload.projectId,
            payload.backfillId,
            payload.chunk,
            deps.settings.backfillChunk,
            () => stopping,
          );
          if (result.next !== null) await enqueueBackfillChunk(queue, { ...payload, chunk: result.next });
          return result;
        } catch (err) {
          // Interrupted by this writer stopping: the chunk waits for the next writer.
          if (err instanceof BackfillInterrupted) throw await postponeJob(job, token, INTERRUPTED_CHUNK_DELAY_MS);
          // The last attempt failed: say so on the backfill rather than leave it running forever.
          if (job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) {
            await failBackfill(runtime, payload.projectId, payload.backfillId, (err as Error).message).catch(() => {});
          }
          throw err;
        }
      }
      if (job.name === EVALUATOR_RUN_JOB) {
        const payload = v.parse(evaluatorRunPayloadSchema, job.data);
        const evaluator = await getEvaluator(deps.storage, payload.projectId, payload.evaluatorId);
        // Deleted or switched off since the job was queued: nothing to do.
        if (!evaluator || !evaluator.autoRun) return { skipped: true };
        const outcome = await judgeItem(runtime, evaluator, payload.item, 'auto');
        return { status: outcome.status };
      }
      throw new Error(`unknown evaluation job ${job.name}`);
    },
  });
  return {
    stats: started.stats,
    async tracesCompleted(projectId, traceIds) {
      const runs = await autoRunsForCompletedTraces(deps.storage, projectId, traceIds);
      await enqueueEvaluatorRuns(
        queue,
        runs.map((r) => ({ projectId, evaluatorId: r.evaluator.id, item: r.item })),
      );
    },
    async close() {
      stopping = true;
      await closeWorker(started.worker, deps.logger);
      await queue.close();
      await connection.quit();
    },
  };
}
