/**
 * The risk assessment of a finding: a fixed, documented formula (docs/api.md,
 * "Risk assessment"), so the same figures always give the same answer and a reviewer can
 * redo it by hand.
 *
 *   frequency  = occurrences / max(1, days between first and last seen)      (per day)
 *   likelihood = 5 if frequency >= 50, 4 if >= 10, 3 if >= 2, 2 if >= 0.5, else 1
 *   impact     = severity base (low 1, medium 2, high 3, critical 4)
 *                + 1 when the reach is wide (>= 100 affected traces, or >= 10 users, or >= 10 sessions)
 *                + 1 when the affected traces cost >= $10
 *                capped at 5
 *   score      = likelihood × impact                                           (1 to 25)
 *   level      = critical if score >= 15, high if >= 9, medium if >= 4, else low
 */

export const FINDING_SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export type FindingSeverity = (typeof FINDING_SEVERITIES)[number];

export const RISK_METHOD = 'likelihood-impact-v1';

export interface RiskInputs {
  severity: FindingSeverity;
  occurrences: number;
  firstSeenMs: number;
  lastSeenMs: number;
  affectedTraces: number;
  affectedUsers: number;
  affectedSessions: number;
  /** USD spent by the affected traces. */
  affectedCost: number;
  /** What found the finding: picks the mitigations. */
  investigatorKind: string;
}

export interface RiskAssessment {
  method: typeof RISK_METHOD;
  inputs: RiskInputs;
  frequencyPerDay: number;
  likelihood: number;
  impact: number;
  score: number;
  level: FindingSeverity;
  rationale: string[];
  mitigations: string[];
}

const DAY_MS = 86_400_000;
const SEVERITY_BASE: Record<FindingSeverity, number> = { low: 1, medium: 2, high: 3, critical: 4 };
const WIDE_TRACES = 100;
const WIDE_USERS = 10;
const WIDE_SESSIONS = 10;
const COSTLY_USD = 10;

export function likelihoodOf(frequencyPerDay: number): number {
  if (frequencyPerDay >= 50) return 5;
  if (frequencyPerDay >= 10) return 4;
  if (frequencyPerDay >= 2) return 3;
  if (frequencyPerDay >= 0.5) return 2;
  return 1;
}

export function levelOf(score: number): FindingSeverity {
  if (score >= 15) return 'critical';
  if (score >= 9) return 'high';
  if (score >= 4) return 'medium';
  return 'low';
}

/** Assesses a finding from its figures (see the formula above). */
export function assessRisk(inputs: RiskInputs): RiskAssessment {
  const days = Math.max(1, (inputs.lastSeenMs - inputs.firstSeenMs) / DAY_MS);
  const frequencyPerDay = round(inputs.occurrences / days, 4);
  const likelihood = likelihoodOf(frequencyPerDay);
  const wide =
    inputs.affectedTraces >= WIDE_TRACES || inputs.affectedUsers >= WIDE_USERS || inputs.affectedSessions >= WIDE_SESSIONS;
  const costly = inputs.affectedCost >= COSTLY_USD;
  const impact = Math.min(5, SEVERITY_BASE[inputs.severity] + (wide ? 1 : 0) + (costly ? 1 : 0));
  const score = likelihood * impact;
  const level = levelOf(score);
  const rationale = [
    `${inputs.occurrences} occurrence(s) over ${round(days, 2)} day(s): ${frequencyPerDay} per day, likelihood ${likelihood} of 5.`,
    `Severity ${inputs.severity} gives impact ${SEVERITY_BASE[inputs.severity]}` +
      (wide
        ? `, +1 for a wide reach (${inputs.affectedTraces} traces, ${inputs.affectedUsers} users, ${inputs.affectedSessions} sessions)`
        : ` (reach ${inputs.affectedTraces} traces, ${inputs.affectedUsers} users, ${inputs.affectedSessions} sessions: not wide)`) +
      (costly ? `, +1 for the cost of the affected traces ($${round(inputs.affectedCost, 4)})` : `; cost $${round(inputs.affectedCost, 4)}`) +
      `: impact ${impact} of 5.`,
    `Score ${likelihood} × ${impact} = ${score} of 25: ${level}.`,
  ];
  return { method: RISK_METHOD, inputs, frequencyPerDay, likelihood, impact, score, level, rationale, mitigations: mitigationsFor(inputs, level, costly) };
}

const BY_INVESTIGATOR: Record<string, string> = {
  monitor: 'Look at the monitor\'s window in the timeseries (same filter and measure) to find when it started and which group carries it.',
  evaluator: 'Review the failing items with the evaluator\'s rationale; fix the prompt or tool behind them, then backfill the evaluator to confirm.',
  trace_flag: 'Open the evidence traces: break loops and repeated tool calls with step limits or memoised tool results, and cap spend per run.',
  masking: 'Tighten the masking policy and check which outputs leaked the data; rotate anything that was exposed.',
  person: 'Follow up with the reporter and attach the traces that show the problem.',
};

function mitigationsFor(inputs: RiskInputs, level: FindingSeverity, costly: boolean): string[] {
  const out = [BY_INVESTIGATOR[inputs.investigatorKind] ?? BY_INVESTIGATOR.person!];
  if (costly) out.push('Set a cost monitor (cost_total per user or per model) to catch the spend early next time.');
  if (level === 'high' || level === 'critical') out.push('Assign an owner now and track the fix to resolution; consider a monitor with a webhook to page on recurrence.');
  else out.push('Schedule a review; dismiss the finding if it is expected behaviour.');
  return out;
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
