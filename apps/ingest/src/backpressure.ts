import type { Queue } from 'bullmq';

/**
 * One reason ingest turns exports away for a while (503 with Retry-After, gRPC's retryable
 * refusal), checked before a message is read. The queue's depth is one; a process may add
 * its own (ExportDeps.pressure).
 */
export interface PressureSource {
  /** Why exports should wait now, for the exporter's developer; undefined when they may come. */
  refusal(): Promise<string | undefined>;
}

/** How long a measured depth is trusted: one Redis round trip per window, not per request. */
const DEPTH_TTL_MS = 250;

/**
 * The queue above its high-water mark. Counts waiting, delayed and retrying jobs, which are
 * what the writers still have to do.
 */
export function queueDepthPressure(queue: Queue, maxDepth: number): PressureSource {
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
    async refusal() {
      if (Date.now() - measuredAt > DEPTH_TTL_MS) {
        pending ??= measure().finally(() => (pending = null));
        await pending;
      }
      return depth >= maxDepth ? 'the ingest queue is full; retry later' : undefined;
    },
  };
}

/** Every reason to refuse exports for now, in order: the first that applies is the exporter's answer. */
export function createBackpressure(sources: readonly PressureSource[]) {
  return {
    async overloaded(): Promise<string | undefined> {
      for (const source of sources) {
        const refusal = await source.refusal();
        if (refusal !== undefined) return refusal;
      }
      return undefined;
    },
  };
}
export type Backpressure = ReturnType<typeof createBackpressure>;
