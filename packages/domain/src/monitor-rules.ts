/**
 * How a monitor judges a value: the condition, the rule for windows without data, and
 * the state each group of a monitor is in. Pure, so the writer's evaluation and the
 * API's preview decide the same way.
 */

export const MONITOR_STATES = ['ok', 'warning', 'alert', 'no_data'] as const;
export type MonitorState = (typeof MONITOR_STATES)[number];

export const MONITOR_OPERATORS = ['above', 'below'] as const;
export type MonitorOperator = (typeof MONITOR_OPERATORS)[number];

/**
 * What a window without data means: `no_data` (its own state), `ok`, `alert`, or `keep`
 * (stay in the previous state; `no_data` when there was none).
 */
export const NO_DATA_RULES = ['no_data', 'ok', 'alert', 'keep'] as const;
export type NoDataRule = (typeof NO_DATA_RULES)[number];

export interface MonitorCondition {
  operator: MonitorOperator;
  threshold: number;
  /** Crossed before the threshold: below it for `above`, above it for `below`. */
  warningThreshold?: number | null;
  noData: NoDataRule;
}

/** Why a condition cannot work, or null when it can. */
export function conditionProblem(c: MonitorCondition): { field: string; message: string } | null {
  const w = c.warningThreshold;
  if (w === undefined || w === null) return null;
  if (c.operator === 'above' && !(w < c.threshold)) {
    return { field: 'warningThreshold', message: 'must be below threshold when the operator is above' };
  }
  if (c.operator === 'below' && !(w > c.threshold)) {
    return { field: 'warningThreshold', message: 'must be above threshold when the operator is below' };
  }
  return null;
}

/** The value crosses `limit` in the direction of the operator (equal counts as crossed). */
function crosses(operator: MonitorOperator, value: number, limit: number): boolean {
  return operator === 'above' ? value >= limit : value <= limit;
}

/** The state a group is in for a value of its window (null: no data), given its previous state. */
export function judgeValue(c: MonitorCondition, value: number | null, previous: MonitorState | null): MonitorState {
  if (value === null) {
    if (c.noData === 'keep') return previous ?? 'no_data';
    return c.noData;
  }
  if (crosses(c.operator, value, c.threshold)) return 'alert';
  if (c.warningThreshold !== undefined && c.warningThreshold !== null && crosses(c.operator, value, c.warningThreshold)) return 'warning';
  return 'ok';
}

/** The threshold a state was judged against (for events): warning's own, alert's, none otherwise. */
export function thresholdFor(c: MonitorCondition, state: MonitorState): number | null {
  if (state === 'warning') return c.warningThreshold ?? null;
  if (state === 'alert' || state === 'ok') return c.threshold;
  return null;
}

const SEVERITY_ORDER: Record<MonitorState, number> = { ok: 0, no_data: 1, warning: 2, alert: 3 };

/** A monitor's overall state: the worst of its groups' (ok when it has none). */
export function worstState(states: Iterable<MonitorState>): MonitorState {
  let worst: MonitorState = 'ok';
  let any = false;
  for (const s of states) {
    any = true;
    if (SEVERITY_ORDER[s] > SEVERITY_ORDER[worst]) worst = s;
  }
  return any ? worst : 'ok';
}
