import { findDueRollupDays, rollUpDay, type Storage } from '@aos/storage';

/** Days rolled up per pass: a day of a busy project takes a while; a backlog is worked off over the following ticks. */
export const TRACE_ROLLUP_DAYS_PER_PASS = 4;

export interface TraceRollupPassOptions {
  quietMs: number;
  now?: number;
  maxDays?: number;
}

/** Rolls up the days (of any project) whose hours have gone quiet since they were last written. */
export async function runTraceRollupPass(storage: Storage, opts: TraceRollupPassOptions): Promise<{ done: number; days: string[] }> {
  const due = await findDueRollupDays(storage, {
    nowMs: opts.now ?? Date.now(),
    quietMs: opts.quietMs,
    limit: opts.maxDays ?? TRACE_ROLLUP_DAYS_PER_PASS,
  });
  for (const day of due) await rollUpDay(storage, day);
  return { done: due.length, days: due.map((d) => `${d.projectId}/${d.day}`) };
}
