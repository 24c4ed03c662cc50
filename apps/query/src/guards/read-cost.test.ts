import { describe, expect, it } from 'vitest';
import { readCostOf } from './read-cost.ts';

describe('readCostOf', () => {
  it.each([
    ['GET', '/traces', 'heavy'],
    ['GET', '/traces/summary', 'heavy'],
    ['GET', '/traces/sessions/s-1', 'heavy'],
    ['GET', '/traces/spans', 'heavy'],
    ['GET', '/trace-scores/summary', 'heavy'],
    ['POST', '/trace-monitors/preview', 'heavy'],
    ['GET', '/traces/export', 'export'],
    ['GET', '/traces/spans/export', 'export'],
    ['GET', `/traces/${'a'.repeat(32)}`, 'light'],
    ['GET', '/traces/exports', 'light'],
    ['GET', '/trace-views', 'light'],
    ['POST', '/trace-scores', 'light'],
  ] as const)('%s %s is %s', (method, path, cost) => {
    expect(readCostOf(method, path)).toBe(cost);
  });
});
