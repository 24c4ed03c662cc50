import type { Queue } from 'bullmq';

/**
 * One reason ingest turns exports away for a while (503 with Retry-After, gRPC's retryable
 * refusal), checked before a message is read: the queue's depth, and for spans the
 * writers' pace (writer-pace-pressure.ts).
 */
export interface PressureSource {
  /** Why exports should wait now, for the exporter's developer; undefined when they may come. */
  refusal(): Promise<string | undefined>;
}

/** How long a measurement of the queue is trusted: one Redis round trip per window, not per request. */
const MEASURE_TTL_MS = 250;

/**
 * `measure` run at most once per MEASURE_TTL_MS: requests within the window share its last
 * value, and those that come while it runs share that run. A failed run throws to its
 * callers and leaves the last value stale, so the next request measures again.
 */
export function cachedMeasure<T>(measure: () => Promise<T>): () => Promise<T> {
  let last: { value: T; at: number } | null = null;
  let pending: Promise<T> | null = null;
  return async () => {
    if (last && Date.now() - last.at <= MEASURE_TTL_MS) return last.value;
    pending ??= measure()
      .then((value) => (last = { value, at: Date.now() }).value)
      .finally(() => (pending = null));
    return pending;
  };
}

/**
 * The queue above its high-water mark. Counts waiting, delayed and retrying jobs, which are
 * what the writers still have to do.
 */
export function queueDepthPressure(queue: Queue, maxDepth: number): PressureSource {
  const depth = cachedMeasure(async () => {
    const counts = await queue.getJobCounts('wait', 'delayed', 'prioritized', 'waiting-children');
    return Object.values(counts).reduce((a, b) => a + b, 0);
  });
  return {
    async refusal() {
      return (await depth()) >= maxDepth ? 'the ingest queue is full; retry later' : undefined;
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
