import { describe, expect, it } from 'vitest';
import { HOUR_MS, rollupRuns, type DueRollupHour } from './rollups.ts';

const T0 = Date.UTC(2026, 10, 20);
/** A due hour `h` hours after T0 with `own` span rows, and `around` counted over it and its neighbours. */
const hour = (projectId: string, h: number, own: number, around = own * 3): DueRollupHour => ({
  projectId,
  hourMs: T0 + h * HOUR_MS,
  writtenIn: own,
  writtenAround: around,
  currentVersion: 0,
});
const hoursOf = (runs: DueRollupHour[][]) => runs.map((run) => run.map((h) => `${h.projectId}@${(h.hourMs - T0) / HOUR_MS}`));

describe('rollupRuns', () => {
  it('groups consecutive hours of one project, newest run first, whatever order they come in', () => {
    const due = [hour('a', 5, 10), hour('b', 3, 10), hour('a', 3, 10), hour('a', 4, 10), hour('a', 9, 10), hour('b', 4, 10)];
    expect(hoursOf(rollupRuns(due, 1000))).toEqual([['a@9'], ['a@3', 'a@4', 'a@5'], ['b@3', 'b@4']]);
  });

  it('keeps the spans a run reads, margin hours included, within the budget', () => {
    // Ten hours of 100 rows each: a run of n hours reads 100 n plus 200 for its margins.
    const due = Array.from({ length: 10 }, (_, h) => hour('a', h, 100, 300));
    const runs = rollupRuns(due, 600);
    expect(runs.map((r) => r.length)).toEqual([2, 4, 4]);
    for (const run of runs) expect(run.length * 100 + 200).toBeLessThanOrEqual(600);
    expect(runs.flat()).toHaveLength(10);
  });

  it('leaves an hour busier than the budget alone in its run', () => {
    const due = [hour('a', 1, 100), hour('a', 2, 5000), hour('a', 3, 100)];
    expect(hoursOf(rollupRuns(due, 1000))).toEqual([['a@3'], ['a@2'], ['a@1']]);
  });
});
