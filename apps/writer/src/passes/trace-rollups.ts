import { dropSupersededRollups, findDueRollupHours, rollUpHours, rollupRuns, type DueRollupHour, type Storage } from '@aos/storage';

/** Due hours looked at per pass; a backlog (after the migration, say) is worked off over the following ticks. */
export const TRACE_ROLLUP_HOURS_PER_PASS = 200;
/** A pass stops taking new hours after this long, so a tick of busy hours does not hold the queue for minutes. */
export const TRACE_ROLLUP_PASS_BUDGET_MS = 20_000;

export interface TraceRollupPassOptions {
  quietMs: number;
  now?: number;
  maxHours?: number;
}

/** Rolls up the hours (of any project) that have gone quiet since they were last written, newest runs of hours first. */
export async function runTraceRollupPass(storage: Storage, opts: TraceRollupPassOptions): Promise<{ done: number; due: number }> {
  const started = Date.now();
  const due = await findDueRollupHours(storage, {
    nowMs: opts.now ?? started,
    quietMs: opts.quietMs,
    limit: opts.maxHours ?? TRACE_ROLLUP_HOURS_PER_PASS,
  });
  const done: DueRollupHour[] = [];
  for (const run of rollupRuns(due)) {
    if (Date.now() - started > TRACE_ROLLUP_PASS_BUDGET_MS) break;
    await rollUpHours(storage, run);
    done.push(...run);
  }
  // Once for the pass (a process stopped before it leaves them to the hour's next pass).
  await dropSupersededRollups(storage, done);
  return { done: done.length, due: due.length };
}
