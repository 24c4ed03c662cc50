import type { Queue } from 'bullmq';
import { readWriterPace, type WriterPace } from '@aos/queue';

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
 * Job states the writers still have to store: waiting, delayed and retrying jobs (what the
 * depth limit counts), and the jobs a writer holds (active): acknowledged spans are not
 * stored until their insert commits, and a writer takes up to WRITER_CONCURRENCY jobs ahead
 * of its inserts.
 */
const WAITING_STATES = ['wait', 'delayed', 'prioritized', 'waiting-children'] as const;

/** A queue's backlog as one measurement: its jobs by kind and, for spans, the writers' recent pace. */
export interface QueueBacklog {
  waitingJobs: number;
  activeJobs: number;
  /** The writers' pace over the window asked for (writer-pace-pressure.ts); absent when not asked. */
  pace?: WriterPace;
}

/**
 * The queue's backlog, measured at most once per MEASURE_TTL_MS for every reason that reads
 * it: the counts and the pace are two commands sent together on one connection, one round
 * trip for the depth limit and the pace limit alike.
 */
export function queueBacklog(queue: Queue, paceWindowSeconds?: number): () => Promise<QueueBacklog> {
  return cachedMeasure(async () => {
    const [counts, pace] = await Promise.all([
      queue.getJobCounts(...WAITING_STATES, 'active'),
      paceWindowSeconds === undefined ? undefined : readWriterPace(queue, paceWindowSeconds),
    ]);
    const activeJobs = counts.active ?? 0;
    const waitingJobs = Object.values(counts).reduce((a, b) => a + b, 0) - activeJobs;
    return { waitingJobs, activeJobs, ...(pace ? { pace } : {}) };
  });
}

/** The queue above its high-water mark (INGEST_MAX_QUEUE_DEPTH): its waiting, delayed and retrying jobs. */
export function queueDepthPressure(backlog: () => Promise<QueueBacklog>, maxDepth: number): PressureSource {
  return {
    async refusal() {
      return (await backlog()).waitingJobs >= maxDepth ? 'the ingest queue is full; retry later' : undefined;
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
