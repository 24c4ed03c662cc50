import type { Logger } from '@aos/log';
import type { Metrics } from '@aos/metrics';
import { isStorageUnavailable } from '@aos/storage';
import {
  closeWorker,
  MAINTENANCE_QUEUE,
  createMaintenanceQueue,
  createRedisConnection,
  parseMaintenancePayload,
  scheduleMaintenance,
  startWorker,
  type MaintenancePayload,
  type WorkerStats,
} from '@aos/queue';

/** A periodic pass: how often it runs and what it does (its result is logged when it did something). */
export interface MaintenancePass {
  everyMs: number;
  run(): Promise<{ done: number } & Record<string, unknown>>;
}

export interface MaintenanceProcessorDeps {
  redisUrl: string;
  prefix: string;
  /** Passes run at once by one writer. */
  concurrency: number;
  lockDurationMs: number;
  logger: Logger;
  metrics: Metrics;
  /** Passes by maintenance job name. */
  passes: Record<string, MaintenancePass>;
}

/**
 * The maintenance queue's processor: schedules each pass and runs it on this thread
 * (which owns the storage connection). With several writers, each tick of a pass runs
 * on one of them.
 */
export function startMaintenanceProcessor(deps: MaintenanceProcessorDeps): { stats: WorkerStats; close(): Promise<void> } {
  const connection = createRedisConnection(deps.redisUrl, deps.logger);
  const queue = createMaintenanceQueue({ connection, prefix: deps.prefix, logger: deps.logger });
  const scheduled = Promise.all(
    Object.entries(deps.passes).map(([job, pass]) =>
      scheduleMaintenance(queue, job, pass.everyMs).catch((err: Error) =>
        deps.logger.error('could not schedule a maintenance pass', { job, error: err.message }),
      ),
    ),
  );
  const started = startWorker<MaintenancePayload>({
    queue: MAINTENANCE_QUEUE,
    onOutcome: deps.metrics.jobOutcomes(MAINTENANCE_QUEUE),
    connection,
    prefix: deps.prefix,
    concurrency: deps.concurrency,
    lockDurationMs: deps.lockDurationMs,
    logger: deps.logger,
    waits: isStorageUnavailable,
    processor: async (job) => {
      const pass = deps.passes[job.name];
      if (!pass) throw new Error(`unknown maintenance job ${job.name}`);
      parseMaintenancePayload(job.data);
      const result = await pass.run();
      if (result.done > 0) deps.logger.debug('maintenance pass done', { job: job.name, ...result });
      return result;
    },
  });
  return {
    stats: started.stats,
    async close() {
      await scheduled;
      await closeWorker(started.worker, deps.logger);
      await queue.close();
      await connection.quit();
    },
  };
}
