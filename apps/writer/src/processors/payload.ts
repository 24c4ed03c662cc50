import { UnrecoverableError } from 'bullmq';
import type { Logger } from '@aos/log';
import type { Metrics } from '@aos/metrics';
import { closeWorker, createRedisConnection, startWorker, type WorkerStats } from '@aos/queue';
import { writeFailureWaits } from '@aos/storage';

export interface PayloadProcessorDeps {
  redisUrl: string;
  prefix: string;
  logger: Logger;
  lockDurationMs: number;
  concurrency: number;
  metrics: Metrics;
}

/**
 * A worker on its own Redis connection for a queue whose jobs each carry one payload (log
 * records, metric points): the payload is parsed first, and one that does not parse is
 * a poison job, failed for good rather than retried.
 */
export function startPayloadProcessor<Payload>(
  deps: PayloadProcessorDeps,
  queue: { name: string; parse: (data: unknown) => Payload; describe: string },
  process: (payload: Payload) => Promise<Record<string, number>>,
): { stats: WorkerStats; close(): Promise<void> } {
  const connection = createRedisConnection(deps.redisUrl, deps.logger);
  const started = startWorker({
    queue: queue.name,
    connection,
    prefix: deps.prefix,
    concurrency: deps.concurrency,
    lockDurationMs: deps.lockDurationMs,
    logger: deps.logger,
    // Acknowledged items: only the engine's refusal of them spends an attempt.
    waits: writeFailureWaits,
    onOutcome: deps.metrics.jobOutcomes(queue.name),
    processor: async (job) => {
      let payload: Payload;
      try {
        payload = queue.parse(job.data);
      } catch (err) {
        throw new UnrecoverableError(`invalid ${queue.describe} payload: ${(err as Error).message}`);
      }
      return process(payload);
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
