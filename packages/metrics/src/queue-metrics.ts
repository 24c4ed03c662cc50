import type { Queue } from 'bullmq';
import { Gauge } from 'prom-client';
import { METRIC_PREFIX, type Metrics } from './metrics.ts';

/** Job states a queue's depth is reported in. */
const STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed'] as const;

/**
 * Reports the depth of each queue by state, and the age of the oldest job still waiting,
 * read from Redis at scrape time (so every process that has the queues sees the same
 * figures; sum them in no query). A Redis that cannot be reached leaves them out of the
 * scrape rather than failing it: aos_redis_up says why.
 */
export function registerQueueMetrics(metrics: Metrics, queues: readonly Queue[], readTimeoutMs = 2000): void {
  const registers = [metrics.registry];
  new Gauge({
    name: `${METRIC_PREFIX}queue_jobs`,
    help: 'Jobs in each queue by state (failed: dead letters kept for inspection)',
    labelNames: ['queue', 'state'] as const,
    registers,
    async collect() {
      this.reset();
      await Promise.all(
        queues.map(async (queue) => {
          const counts = await withTimeout(queue.getJobCounts(...STATES), readTimeoutMs).catch(() => null);
          if (counts) for (const state of STATES) this.set({ queue: queue.name, state }, counts[state] ?? 0);
        }),
      );
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}queue_oldest_waiting_age_seconds`,
    help: 'Age of the oldest job waiting in each queue (0 when none waits)',
    labelNames: ['queue'] as const,
    registers,
    async collect() {
      this.reset();
      await Promise.all(
        queues.map(async (queue) => {
          // Ascending: the head of the wait list is the job added first.
          const oldest = await withTimeout(queue.getJobs(['wait'], 0, 0, true), readTimeoutMs).catch(() => null);
          if (oldest) this.set({ queue: queue.name }, oldest[0] ? Math.max(0, (Date.now() - oldest[0].timestamp) / 1000) : 0);
        }),
      );
    },
  });
}

/** Rejects once `ms` has passed: a command to an unreachable Redis waits for a reconnect. */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
