import { describe, expect, it } from 'vitest';
import { planExportSlices } from './export-slices.ts';

const MIN = 60_000;
const DAY = 86_400_000;
const minute = (startMs: number, traces = 1, textBytes = 0) => ({ startMs, traces, textBytes });
const budget = { maxTraces: 3, maxTextBytes: 1000 };

describe('planExportSlices', () => {
  it('keeps a window within budget whole', () => {
    const window = { startTimeMs: 30_000, endTimeMs: 10 * MIN };
    expect(planExportSlices(window, [minute(0), minute(2 * MIN), minute(5 * MIN)], budget)).toEqual([window]);
  });

  it('cuts at the minute that would overflow the trace or byte budget, leaving no gap', () => {
    const window = { startTimeMs: 0, endTimeMs: 10 * MIN };
    const minutes = [minute(0, 2), minute(MIN, 1), minute(2 * MIN, 1), minute(3 * MIN, 1, 900), minute(4 * MIN, 1, 200)];
    expect(planExportSlices(window, minutes, budget)).toEqual([
      { startTimeMs: 0, endTimeMs: 2 * MIN },
      { startTimeMs: 2 * MIN, endTimeMs: 4 * MIN },
      { startTimeMs: 4 * MIN, endTimeMs: 10 * MIN },
    ]);
  });

  it('gives a minute over the budget a slice of its own', () => {
    const window = { startTimeMs: 0, endTimeMs: 3 * MIN };
    const minutes = [minute(0), minute(MIN, 50, 5000), minute(2 * MIN)];
    expect(planExportSlices(window, minutes, budget)).toEqual([
      { startTimeMs: 0, endTimeMs: MIN },
      { startTimeMs: MIN, endTimeMs: 2 * MIN },
      { startTimeMs: 2 * MIN, endTimeMs: 3 * MIN },
    ]);
  });

  it('cuts by budget only, across days as well', () => {
    const window = { startTimeMs: DAY - 10 * MIN, endTimeMs: DAY + 10 * MIN };
    expect(planExportSlices(window, [minute(DAY - 5 * MIN), minute(DAY + MIN)], budget)).toEqual([window]);
  });

  it('gives an empty window one slice and an empty range none', () => {
    expect(planExportSlices({ startTimeMs: 0, endTimeMs: MIN }, [], budget)).toEqual([{ startTimeMs: 0, endTimeMs: MIN }]);
    expect(planExportSlices({ startTimeMs: MIN, endTimeMs: MIN }, [], budget)).toEqual([]);
  });
});
