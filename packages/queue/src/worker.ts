import { Worker, type Job, type Processor } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '@aos/log';
import { throttledErrorLog } from './redis.ts';

export interface WorkerOptions<T> {
  queue: string;
  connection: Redis;
  prefix: string;
  concurrency: number;
  /** How long a job may stay locked without renewal before another worker takes it over. */
  lockDurationMs: number;
  processor: Processor<T>;
  logger: Logger;
}

/** Counters a worker keeps for health and metrics endpoints. */
export interface WorkerStats {
  completed: number;
  failed: number;
  stalled: number;
}

/**
 * Starts a BullMQ worker with the service's common wiring: bounded concurrency,
 * logging of failures and stalls, and counters. Every queue's worker goes through here.
 */
export function startWorker<T>(opts: WorkerOptions<T>): { worker: Worker<T>; stats: WorkerStats } {
  const stats: WorkerStats = { completed: 0, failed: 0, stalled: 0 };
  const log = opts.logger.child({ queue: opts.queue });
  const worker = new Worker<T>(opts.queue, opts.processor, {
    connection: opts.connection,
    prefix: opts.prefix,
    concurrency: opts.concurrency,
    lockDuration: opts.lockDurationMs,
    stalledInterval: Math.max(1000, Math.floor(opts.lockDurationMs / 2)),
    // A job whose worker died is retried rather than failed after one stall: the
    // next attempt is idempotent, and dropping the batch would lose spans.
    maxStalledCount: 10,
  });
  worker.on('completed', () => {
    stats.completed += 1;
  });
  worker.on('failed', (job: Job<T> | undefined, err: Error) => {
    stats.failed += 1;
    const final = job ? job.attemptsMade >= (job.opts.attempts ?? 1) : true;
    log[final ? 'error' : 'warn'](final ? 'job failed for good (dead letter)' : 'job failed, will retry', {
      jobId: job?.id,
      attemptsMade: job?.attemptsMade,
      error: err.message,
    });
  });
  worker.on('stalled', (jobId: string) => {
    stats.stalled += 1;
    log.warn('job stalled, its worker stopped renewing the lock; it will run again', { jobId });
  });
  // Mostly Redis connectivity, which the connection itself also reports: throttled.
  worker.on('error', throttledErrorLog(log, 'worker error'));
  return { worker, stats };
}
