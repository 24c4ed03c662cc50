import { describe, expect, it } from 'vitest';
import { cachedMeasure } from './backpressure.ts';
import { PACE_FLOOR_JOBS, PACE_WINDOW_SECONDS, backlogSeconds, paceRefusal } from './writer-pace-pressure.ts';

/** Writers that stored `jobsPerSecond` jobs of `rowsPerJob` rows each second for `seconds` seconds. */
function pace(jobsPerSecond: number, rowsPerJob: number, seconds = PACE_WINDOW_SECONDS) {
  const jobs = jobsPerSecond * seconds;
  return { rows: jobs * rowsPerJob, jobs, seconds };
}

describe('the writer pace arithmetic', () => {
  it('is the queued jobs times the mean rows a job, over the rows stored a second', () => {
    // 3 jobs of 1,000 spans a second: 3,000 spans/s; 60 jobs queued are 60,000 spans, 20 s.
    expect(backlogSeconds({ queuedJobs: 60, pace: pace(3, 1000) })).toBeCloseTo(20);
    // The same rate over the 2 s since the writers' first commit in the window (a writer that just started).
    expect(backlogSeconds({ queuedJobs: 60, pace: pace(3, 1000, 2) })).toBeCloseTo(20);
    expect(backlogSeconds({ queuedJobs: 0, pace: pace(0, 0, 0) })).toBe(0);
    expect(backlogSeconds({ queuedJobs: 1, pace: pace(0, 0, 0) })).toBe(Infinity);
  });

  it('refuses once the backlog passes the bound, and admits at or below it', () => {
    const writers = pace(3, 1000);
    expect(paceRefusal({ queuedJobs: 30, pace: writers }, 10)).toBeUndefined();
    expect(paceRefusal({ queuedJobs: 31, pace: writers }, 10)).toBe(
      'the ingest queue holds 10.3 s of what the writers store (about 31000 spans at 3000 spans/s; the limit is 10 s); retry later',
    );
    expect(paceRefusal({ queuedJobs: 200, pace: writers }, 10)).toContain('holds 66.7 s');
  });

  it('never refuses below the floor, however slow the writers: an idle or starting writer has no pace yet', () => {
    const trickle = { rows: 3, jobs: 1, seconds: 9 };
    expect(paceRefusal({ queuedJobs: PACE_FLOOR_JOBS - 1, pace: trickle }, 10)).toBeUndefined();
    expect(paceRefusal({ queuedJobs: PACE_FLOOR_JOBS - 1, pace: pace(0, 0, 0) }, 10)).toBeUndefined();
    expect(paceRefusal({ queuedJobs: PACE_FLOOR_JOBS, pace: trickle }, 10)).toContain('holds 144.0 s');
  });

  it('refuses at the floor when the writers stored nothing in the window (storage down, no writer running)', () => {
    expect(paceRefusal({ queuedJobs: PACE_FLOOR_JOBS, pace: pace(0, 0, 0) }, 3600)).toBe(
      `the writers stored nothing in the last ${PACE_WINDOW_SECONDS} s and ${PACE_FLOOR_JOBS} batches wait; retry later`,
    );
  });
});

describe('cachedMeasure', () => {
  it('measures once per window, shares a run in progress, and measures again after a failure', async () => {
    let runs = 0;
    let fail = false;
    const measure = cachedMeasure(async () => {
      runs++;
      await new Promise((r) => setTimeout(r, 10));
      if (fail) throw new Error('redis gone');
      return runs;
    });
    expect(await Promise.all([measure(), measure(), measure()])).toEqual([1, 1, 1]);
    expect(await measure()).toBe(1);
    await new Promise((r) => setTimeout(r, 300));
    fail = true;
    await expect(measure()).rejects.toThrow('redis gone');
    fail = false;
    expect(await measure()).toBe(3);
  });
});
