import { describe, expect, it } from 'vitest';
import { assessRisk, levelOf, likelihoodOf, type RiskInputs } from './risk-assessment.ts';

const DAY = 86_400_000;
const base: RiskInputs = {
  severity: 'medium',
  occurrences: 1,
  firstSeenMs: 0,
  lastSeenMs: 0,
  affectedTraces: 1,
  affectedUsers: 1,
  affectedSessions: 1,
  affectedCost: 0.01,
  investigatorKind: 'trace_flag',
};

describe('assessRisk (figures worked out by hand)', () => {
  it('one occurrence of a medium problem: 1/day → likelihood 2, impact 2, score 4, medium', () => {
    const r = assessRisk(base);
    expect([r.frequencyPerDay, r.likelihood, r.impact, r.score, r.level]).toEqual([1, 2, 2, 4, 'medium']);
    expect(r.rationale[2]).toBe('Score 2 × 2 = 4 of 25: medium.');
  });

  it('30 occurrences over 2.5 days of a high problem with wide, costly reach', () => {
    // 30 / 2.5 = 12 per day → likelihood 4; impact 3 (high) + 1 (12 users ≥ 10) + 1 ($25 ≥ $10) = 5; 4 × 5 = 20 → critical
    const r = assessRisk({ ...base, severity: 'high', occurrences: 30, lastSeenMs: 2.5 * DAY, affectedTraces: 30, affectedUsers: 12, affectedCost: 25 });
    expect([r.frequencyPerDay, r.likelihood, r.impact, r.score, r.level]).toEqual([12, 4, 5, 20, 'critical']);
    expect(r.mitigations).toHaveLength(3);
  });

  it('3 occurrences over 10 days of a low problem: 0.3/day → 1 × 1 = 1, low', () => {
    const r = assessRisk({ ...base, severity: 'low', occurrences: 3, lastSeenMs: 10 * DAY });
    expect([r.frequencyPerDay, r.likelihood, r.impact, r.score, r.level]).toEqual([0.3, 1, 1, 1, 'low']);
  });

  it('caps impact at 5 and keeps inputs with the result', () => {
    const r = assessRisk({ ...base, severity: 'critical', occurrences: 100, affectedTraces: 100, affectedCost: 10 });
    // 100/day → 5; 4 + 1 + 1 = 6 capped to 5; 25 → critical
    expect([r.likelihood, r.impact, r.score, r.level]).toEqual([5, 5, 25, 'critical']);
    expect(r.inputs.occurrences).toBe(100);
  });

  it('bands: likelihood and level edges', () => {
    expect([0.49, 0.5, 1.99, 2, 9.99, 10, 49.99, 50].map(likelihoodOf)).toEqual([1, 2, 2, 3, 3, 4, 4, 5]);
    expect([3, 4, 8, 9, 14, 15].map(levelOf)).toEqual(['low', 'medium', 'medium', 'high', 'high', 'critical']);
  });
});
