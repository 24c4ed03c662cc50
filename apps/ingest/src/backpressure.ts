import type { Queue } from 'bullmq';

/** How long a measured depth is trusted: one Redis round trip per window, not per request. */
const DEPTH_TTL_MS = 250;

/**
 * Tells whether the queue is above its high-water mark. Counts waiting, delayed and
 * retrying jobs, which are what the writers still have to do.
 */
export function createBackpressure(queue: Queue, maxDepth: number) {
  let depth = 0;
  let measuredAt = 0;
  let pending: Promise<number> | null = null;
  const measure = async () => {
    const counts = await queue.getJobCounts('wait', 'delayed', 'prioritized', 'waiting-children');
    depth = Object.values(counts).reduce((a, b) => a + b, 0);
    measuredAt = Date.now();
    return depth;
  };
  return {
    async overloaded(): Promise<boolean> {
      if (Date.now() - measuredAt > DEPTH_TTL_MS) {
        pending ??= measure().finally(() => (pending = null));
        await pending;
      }
      return depth >= maxDepth;
    },
    depth: () => depth,
  };
}
export type Backpressure = ReturnType<typeof createBackpressure>;
