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

/**
 * Reads kept waiting by inserts on the storage engine of this process (the embedded engine's
 * statement gate: reads go before inserts, but one statement runs at a time). Once a read
 * has waited `maxWaitMs` while inserts held the engine, the engine is behind: refusing
 * exports for a while hands it the CPU ingest's own decoding and normalizing would take,
 * and lets the writer's queue shrink, rather than letting reads starve. Time reads wait
 * behind other reads does not count: fewer exports would not shorten it. 0 never refuses.
 */
export function readWaitPressure(reads: { readWaitOnWritesMs(): number }, maxWaitMs: number): PressureSource {
  return {
    async refusal() {
      const waited = reads.readWaitOnWritesMs();
      if (maxWaitMs === 0 || waited < maxWaitMs) return undefined;
      return `reads have waited ${Math.round(waited)} ms for the storage engine's inserts (over ${maxWaitMs} ms); retry later`;
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
