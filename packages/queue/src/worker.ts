import { setTimeout as sleep } from 'node:timers/promises';
import { UnrecoverableError, Worker, type Job, type Processor } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '@aos/log';
import type { JobOutcome } from '@aos/metrics';
import { deadLetterCauseOf, type DeadLetterCause } from './dead-letters.ts';
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
  /**
   * Whether a failure is the world's rather than the job's (a dependency that cannot be
   * reached or cannot write). Such a job goes back to waiting without spending an attempt,
   * and the queue pauses with capped backoff until the dependency works again: an outage
   * of any length dead-letters nothing. Failures it does not claim spend an attempt; an
   * UnrecoverableError fails the job at once whatever this says.
   */
  waits?: (err: unknown) => boolean;
  /** Told how each job ended (for the queue's metrics), with the cause of a dead letter. */
  onOutcome?: (outcome: JobOutcome, cause?: DeadLetterCause) => void;
}

/** The first pause of the queue when a dependency cannot be reached; each failed retry doubles it up to the cap. */
const OUTAGE_FIRST_PAUSE_MS = 1000;
const OUTAGE_MAX_PAUSE_MS = 30_000;

/**
 * How long a worker's close may wait for its jobs and connections before its connections
 * are cut: longer than a job's insert takes on a busy engine, far shorter than a stop's bound.
 */
const WORKER_CLOSE_GRACE_MS = 20_000;

/**
 * Closes a worker, waiting for its active jobs. One whose close is still running after
 * `graceMs` has its connections cut and is left after another `graceMs`: a CI run's stop
 * hung in the writer's worker closes for over 90 s (a BullMQ close waiting on Redis that
 * never answered). Nothing acked is lost by leaving: a job it held keeps its rows in Redis,
 * its lock runs out and the next worker runs it again (every job is idempotent).
 */
export async function closeWorker(worker: Worker, logger: Logger, graceMs = WORKER_CLOSE_GRACE_MS): Promise<void> {
  let closed = false;
  const closing = worker.close().then(() => {
    closed = true;
  });
  // Unreferenced: a grace still running does not keep the stopping process alive.
  const grace = () => sleep(graceMs, undefined, { ref: false });
  await Promise.race([closing, grace()]);
  if (closed) return;
  logger.warn('a worker did not close in time: cutting its Redis connections', { queue: worker.name, graceMs });
  await worker.disconnect().catch(() => undefined);
  await Promise.race([closing, grace()]);
  if (!closed) logger.error('a worker did not close after its connections were cut: left; its jobs run again elsewhere', { queue: worker.name, graceMs });
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
  const outage = outagePauses(log);
  const processor: Processor<T> = async (job, token) => {
    try {
      const result = await opts.processor(job, token);
      outage.ended();
      return result;
    } catch (err) {
      if (err instanceof UnrecoverableError || !opts.waits?.(err)) throw err;
      // Rate-limits the queue (for every worker on it) and puts the job back unspent.
      await worker.rateLimit(outage.pauseFor(err));
      throw Worker.RateLimitError();
    }
  };
  const worker = new Worker<T>(opts.queue, processor, {
    connection: opts.connection,
    prefix: opts.prefix,
    concurrency: opts.concurrency,
    lockDuration: opts.lockDurationMs,
    stalledInterval: Math.max(1000, Math.floor(opts.lockDurationMs / 2)),
    // A job whose worker died is retried rather than failed after one stall: the
    // next attempt is idempotent, and dropping the batch would lose spans.
    maxStalledCount: 10,
  });
  const outcome = (o: JobOutcome, cause?: DeadLetterCause) => {
    countOutcome(stats, o);
    opts.onOutcome?.(o, cause);
  };
  worker.on('completed', () => outcome('completed'));
  worker.on('failed', (job: Job<T> | undefined, err: Error) => {
    // An UnrecoverableError ends the job on its first attempt, whatever attempts are left.
    const final = !job || err instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
    if (final) outcome('dead_lettered', deadLetterCauseOf(err.message).cause);
    else outcome('retried');
    log[final ? 'error' : 'warn'](final ? 'job failed for good (dead letter)' : 'job failed, will retry', {
      jobId: job?.id,
      attemptsMade: job?.attemptsMade,
      error: err.message,
    });
  });
  worker.on('stalled', (jobId: string) => {
    outcome('stalled');
    log.warn('job stalled, its worker stopped renewing the lock; it will run again', { jobId });
  });
  // Mostly Redis connectivity, which the connection itself also reports: throttled.
  worker.on('error', throttledErrorLog(log, 'worker error'));
  return { worker, stats };
}

/** Adds a job's outcome to a worker's counters (failed: retried or dead-lettered). */
export function countOutcome(stats: WorkerStats, outcome: JobOutcome): void {
  stats[outcome === 'retried' || outcome === 'dead_lettered' ? 'failed' : outcome] += 1;
}

/**
 * The pauses of one worker's queue through an outage: doubling up to the cap with each
 * retry that fails again (jobs failing together within one pause share it), logged once
 * as the outage starts and once as it ends.
 */
function outagePauses(log: Logger) {
  let pauseMs = 0;
  let since = 0;
  let until = 0;
  return {
    pauseFor(err: unknown): number {
      const now = Date.now();
      if (pauseMs === 0) {
        since = now;
        log.warn('a dependency cannot be reached or cannot write: the queue waits and retries, spending no attempt', { error: (err as Error).message });
      }
      if (now < until) return until - now;
      pauseMs = Math.min(OUTAGE_MAX_PAUSE_MS, pauseMs === 0 ? OUTAGE_FIRST_PAUSE_MS : pauseMs * 2);
      until = now + pauseMs;
      return pauseMs;
    },
    ended(): void {
      if (pauseMs === 0) return;
      log.info('the dependency works again: the queue resumes', { pausedForMs: Date.now() - since });
      pauseMs = 0;
      until = 0;
    },
  };
}
