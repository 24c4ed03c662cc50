import { describe, expect, it } from 'vitest';
import { whyNotHeld } from './held-rate.ts';
import type { PacedFigures } from './paced-phase.ts';
import { depthSlope, percentile } from './service-probe.ts';

const flat = (depth: number, seconds: number) => Array.from({ length: seconds }, (_, t) => ({ t, depth, rss: 1 }));

function figures(over: Partial<PacedFigures>): PacedFigures {
  return {
    offered: 10_000, seconds: 20, acked: 10_000, written: 9_800, refused: 0, refusedBy: {}, p50: 50, p99: 90,
    samples: flat(3, 20), slope: 0, eventLoop: { p50: 10, p99: 20, max: 30 }, ...over,
  };
}

describe('the held-rate judgement', () => {
  it('holds a step with everything acked and written and a flat queue', () => {
    expect(whyNotHeld(figures({}))).toBeNull();
  });

  it('fails a step on any refusal, a shortfall of acks or writes, or a growing queue', () => {
    expect(whyNotHeld(figures({ refused: 1 }))).toBe('1 refusals');
    expect(whyNotHeld(figures({ acked: 9_000, written: 9_000 }))).toMatch(/^acked 9000 of 10000/);
    expect(whyNotHeld(figures({ written: 9_000 }))).toMatch(/^wrote 9000 of 10000/);
    // 2 % of 10 jobs/s offered is 0.2 jobs/s, below the 0.25 noise floor: the floor rules.
    expect(whyNotHeld(figures({ slope: 0.24 }))).toBeNull();
    expect(whyNotHeld(figures({ slope: 0.3 }))).toMatch(/^queue grew 0.30 jobs\/s/);
  });
});

describe('queue depth slope', () => {
  it('is zero for a flat queue and the growth per second for a growing one', () => {
    expect(depthSlope(flat(7, 10))).toBe(0);
    expect(depthSlope(Array.from({ length: 10 }, (_, t) => ({ t, depth: 5 + 2 * t, rss: 1 })))).toBeCloseTo(2);
  });

  it('reads a queue that saws between empty and a block as flat, and a rising floor as growth', () => {
    // A block of 14 jobs taken every other second, teeth placed so that a fit through every sample rises.
    const sawing = Array.from({ length: 25 }, (_, t) => ({ t, depth: t % 2 === 1 || t > 20 ? 14 : 0, rss: 1 }));
    expect(depthSlope(sawing)).toBe(0);
    const rising = sawing.map((s) => ({ ...s, depth: s.depth + Math.floor(s.t / 5) * 3 }));
    expect(depthSlope(rising)).toBeCloseTo(0.6);
  });
});

describe('percentile', () => {
  it('takes the nearest rank of unsorted values', () => {
    const values = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
    expect(percentile(values, 50)).toBe(6);
    expect(percentile(values, 99)).toBe(10);
  });
});
