import { describe, expect, it } from 'vitest';
import { conditionProblem, judgeValue, thresholdFor, worstState, type MonitorCondition } from './monitor-rules.ts';

const above: MonitorCondition = { operator: 'above', threshold: 10, warningThreshold: 5, noData: 'no_data' };
const below: MonitorCondition = { operator: 'below', threshold: 0.5, warningThreshold: 0.8, noData: 'ok' };

describe('judgeValue', () => {
  it('moves up and down across the warning and alert thresholds (equal counts as crossed)', () => {
    expect([1, 5, 7, 10, 12, 6, 4].map((v) => judgeValue(above, v, null))).toEqual(['ok', 'warning', 'warning', 'alert', 'alert', 'warning', 'ok']);
    expect([0.9, 0.8, 0.6, 0.5, 0.1].map((v) => judgeValue(below, v, null))).toEqual(['ok', 'warning', 'warning', 'alert', 'alert']);
  });

  it('without a warning threshold goes straight from ok to alert', () => {
    const c: MonitorCondition = { operator: 'above', threshold: 3, noData: 'no_data' };
    expect([2.99, 3].map((v) => judgeValue(c, v, 'ok'))).toEqual(['ok', 'alert']);
  });

  it('applies the no-data rule to a window without data', () => {
    expect(judgeValue(above, null, 'alert')).toBe('no_data');
    expect(judgeValue(below, null, 'alert')).toBe('ok');
    expect(judgeValue({ ...above, noData: 'alert' }, null, 'ok')).toBe('alert');
    expect(judgeValue({ ...above, noData: 'keep' }, null, 'warning')).toBe('warning');
    expect(judgeValue({ ...above, noData: 'keep' }, null, null)).toBe('no_data');
  });
});

describe('conditions', () => {
  it('refuse a warning threshold on the wrong side', () => {
    expect(conditionProblem(above)).toBeNull();
    expect(conditionProblem({ ...above, warningThreshold: 10 })?.field).toBe('warningThreshold');
    expect(conditionProblem({ ...below, warningThreshold: 0.2 })?.message).toMatch(/above threshold/);
    expect(conditionProblem({ ...above, warningThreshold: null })).toBeNull();
  });

  it('name the threshold each state was judged against', () => {
    expect(thresholdFor(above, 'warning')).toBe(5);
    expect(thresholdFor(above, 'alert')).toBe(10);
    expect(thresholdFor(above, 'no_data')).toBeNull();
  });

  it('take the worst group as the monitor state', () => {
    expect(worstState(['ok', 'no_data', 'warning'])).toBe('warning');
    expect(worstState(['ok', 'alert', 'warning'])).toBe('alert');
    expect(worstState([])).toBe('ok');
  });
});
